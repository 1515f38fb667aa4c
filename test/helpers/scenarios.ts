/** Scenarios built in memory for tests, checked by the loader as a file would be. */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { toolCatalog } from '../../functions/tools/catalog';
import { checkScenarioDocument, ScenarioValidationError } from '../../lib/scenarios/loader';
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

/** The shipped scenarios' names (one YAML file each in functions/scenarios), sorted: no hand-kept list. */
export function shippedScenarioNames(): string[] {
  const dir = path.join(__dirname, '../../functions/scenarios');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => file.replace(/\.yaml$/, ''))
    .sort();
}
