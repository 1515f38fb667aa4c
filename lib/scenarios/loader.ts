import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { LevelWhitelists } from '../../functions/dispatcher/levels';
import type { ToolCatalog } from '../../functions/runtime/catalog';
import { PlatformError, UnknownScenarioError } from '../../functions/runtime/errors';
import { type Scenario, scenarioSchema } from './model';

/** The folder holding the scenario YAML files. */
export const SCENARIOS_DIR = path.join(__dirname, '../../functions/scenarios');

/**
 * Loads and validates every `*.yaml` scenario in `dir`.
 *
 * @throws PlatformError (`internal_error`) naming the file and each problem: a YAML
 *   syntax error, a schema violation, a duplicate name, a level tool that is not
 *   registered (the message lists every registered name), or a call to a tool
 *   outside its level's `intra_tools` (file tools excepted).
 */
export function loadScenarios(catalog: ToolCatalog, dir: string = SCENARIOS_DIR): Scenario[] {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.yaml') || file.endsWith('.yml'))
    .sort();
  const scenarios = files.map((file) => parseScenarioFile(path.join(dir, file), catalog));
  const seen = new Set<string>();
  for (const scenario of scenarios) {
    if (seen.has(scenario.name))
      throw new PlatformError('internal_error', `Scenario "${scenario.name}" is defined twice in ${dir}`);
    seen.add(scenario.name);
  }
  return scenarios;
}

/** Parses and checks one scenario file; see {@link loadScenarios}. */
export function parseScenarioFile(file: string, catalog: ToolCatalog): Scenario {
  const where = path.basename(file);
  let document: unknown;
  try {
    document = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new PlatformError('internal_error', `${where}: not valid YAML: ${(err as Error).message}`);
  }
  const parsed = scenarioSchema.safeParse(document);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new PlatformError('internal_error', `${where}: ${problems.join('; ')}`);
  }
  const scenario = parsed.data;
  for (const level of scenario.levels) {
    try {
      catalog.subset(level.intra_tools);
    } catch (err) {
      throw new PlatformError(
        'internal_error',
        `${where}: level "${level.name}" intra_tools: ${(err as Error).message}`,
      );
    }
    for (const call of level.calls) {
      if (!level.intra_tools.includes(call.tool) && !catalog.isFileTool(call.tool)) {
        throw new PlatformError(
          'internal_error',
          `${where}: level "${level.name}" calls ${call.tool}, which its intra_tools (${level.intra_tools.join(', ')}) does not list`,
        );
      }
    }
  }
  const levelNames = scenario.levels.map((l) => l.name);
  if (new Set(levelNames).size !== levelNames.length) {
    throw new PlatformError('internal_error', `${where}: level names must be unique`);
  }
  return scenario;
}

/** Finds a scenario by name. @throws UnknownScenarioError listing the known names. */
export function findScenario(scenarios: readonly Scenario[], name: string): Scenario {
  const scenario = scenarios.find((s) => s.name === name);
  if (!scenario)
    throw new UnknownScenarioError(
      name,
      scenarios.map((s) => s.name),
    );
  return scenario;
}

/** `{ scenario: { level: intra_tools } }` for the dispatcher. */
export function levelWhitelists(scenarios: readonly Scenario[]): LevelWhitelists {
  return Object.fromEntries(
    scenarios.map((scenario) => [
      scenario.name,
      Object.fromEntries(scenario.levels.map((l) => [l.name, [...l.intra_tools]])),
    ]),
  );
}
