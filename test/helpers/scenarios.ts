import * as path from 'node:path';
import { toolCatalog } from '../../functions/tools/catalog';
import { checkScenarioDocument } from '../../lib/scenarios/document-check';
import { loadScenarios, ScenarioValidationError } from '../../lib/scenarios/loader';
import type { Scenario } from '../../lib/scenarios/model';

/**
 * The scenario a document describes (as its YAML would parse).
 *
 * @throws ScenarioValidationError listing its problems.
 */
export function scenarioOf(document: Record<string, unknown>): Scenario {
  const check = checkScenarioDocument(document, path.join(__dirname, 'in-memory.yaml'), toolCatalog);
  if (!check.scenario) throw new ScenarioValidationError(check.problems);
  return check.scenario;
}

/**
 * The tools a shipped scenario's plan level calls, sorted (read from its YAML in
 * functions/scenarios, so tests follow the file rather than a copy of its list).
 *
 * @throws Error when the scenario or the plan level does not exist.
 */
export function shippedPlanTools(scenario: string, level: string): string[] {
  const found = loadScenarios(toolCatalog)
    .find((s) => s.name === scenario)
    ?.levels.find((l) => l.name === level);
  if (found?.kind !== 'plan') throw new Error(`No plan level ${level} in the shipped scenario ${scenario}`);
  return found.calls.map((call) => call.tool).sort();
}

/** The names of the shipped scenarios (the YAML files of functions/scenarios), sorted. */
export function shippedScenarioNames(): string[] {
  return loadScenarios(toolCatalog)
    .map((s) => s.name)
    .sort();
}
