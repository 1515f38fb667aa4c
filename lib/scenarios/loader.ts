import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { ToolCatalog } from '../../functions/runtime/catalog';
import { PlatformError, UnknownScenarioError } from '../../functions/runtime/errors';
import { DEFAULT_RESULT_MAX_BYTES } from '../../functions/runtime/result-limits';
import { inlineResultBudget, STATE_BUDGET_BYTES, worstCaseState } from './budget';
import { checkScenarioDocument, type ScenarioCheck } from './document-check';
import type { Scenario } from './model';
import { checkPins } from './pins';

export { levelPins } from './pins';

/** The folder holding the scenario YAML files. */
export const SCENARIOS_DIR = path.join(__dirname, '../../functions/scenarios');

/**
 * Scenario files with problems: every problem of every file, one per line,
 * each naming its file and place and saying what is accepted.
 */
export class ScenarioValidationError extends PlatformError {
  override readonly name = 'ScenarioValidationError';
  /** `<file>: <where>: <problem>` lines. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      'internal_error',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the scenario files:\n${problems.map((p) => `- ${p}`).join('\n')}`,
    );
    this.problems = problems;
  }
}

/** The `*.yaml` / `*.yml` files of a folder, sorted. */
function scenarioFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml') || file.endsWith('.yml'))
    .sort()
    .map((file) => path.join(dir, file));
}

/**
 * Loads and checks every scenario file of `dir`.
 *
 * @param resultMaxBytes - the platform's result bound, for the state budget check.
 * @throws ScenarioValidationError listing every problem of every file (see {@link checkScenarioFile}),
 *   and scenario names defined twice.
 */
export function loadScenarios(
  catalog: ToolCatalog,
  dir: string = SCENARIOS_DIR,
  resultMaxBytes: number = DEFAULT_RESULT_MAX_BYTES,
): Scenario[] {
  const checks = scenarioFiles(dir).map((file) => checkScenarioFile(file, catalog));
  const problems = checks.flatMap((check) => check.problems);
  const scenarios = checks.flatMap((check) => (check.scenario ? [check.scenario] : []));
  const seen = new Map<string, string>();
  for (const check of checks) {
    const name = check.scenario?.name;
    if (!name) continue;
    const first = seen.get(name);
    if (first)
      problems.push(`${path.basename(check.file)}: scenario "${name}" is already defined in ${first}`);
    else seen.set(name, path.basename(check.file));
  }
  problems.push(...budgetProblems(scenarios, resultMaxBytes));
  if (problems.length > 0) throw new ScenarioValidationError(problems);
  return scenarios;
}

/** Problems of scenarios whose worst-case state exceeds the budget with the inline budget these scenarios get. */
function budgetProblems(scenarios: readonly Scenario[], resultMaxBytes: number): string[] {
  const inline = inlineResultBudget(scenarios, resultMaxBytes);
  return scenarios.flatMap((scenario) => {
    const worst = worstCaseState(scenario, inline);
    if (worst.bytes <= STATE_BUDGET_BYTES) return [];
    const parts = worst.parts.map((part) => `${part.part} ${Math.ceil(part.bytes / 1024)} KiB`).join(', ');
    return [
      `${scenario.name}: a run's state could reach ${Math.ceil(worst.bytes / 1024)} KiB (${parts}), over the ${STATE_BUDGET_BYTES / 1024} KiB budget: split large levels or lower max_tokens`,
    ];
  });
}

/**
 * Loads one scenario file.
 *
 * @throws ScenarioValidationError listing its problems.
 */
export function parseScenarioFile(file: string, catalog: ToolCatalog): Scenario {
  const check = checkScenarioFile(file, catalog);
  if (!check.scenario || check.problems.length > 0) throw new ScenarioValidationError(check.problems);
  return check.scenario;
}

/**
 * Reads and checks one scenario file, collecting every problem rather than
 * stopping at the first:
 * - YAML syntax; the schema (unknown keys with the accepted ones, wrong types,
 *   bounds, a level without `kind`, `calls` or `model`);
 * - duplicate level names, the reserved level name `ask_user`;
 * - tools: an `intra_tools` name or a call's tool that is not registered (with
 *   every registered name), a call to a tool its level does not list;
 * - agent prompts: neither or both of `prompt` and `prompt_file`, a prompt file
 *   that is missing or outside the scenario's folder;
 * - `{{…}}` references: unknown inputs, unknown or later levels, fields a run
 *   may not have (see lib/scenarios/references.ts), references inside lists,
 *   lists or objects formatted into text;
 * - inputs: a default of the wrong type, `enum` on a non-string input;
 * - `watermark`: an input that is not a declared string input, a value that is
 *   not one reference to what the run has when it ends;
 * - call args, with input defaults in place, against the tool's schema.
 */
export function checkScenarioFile(file: string, catalog: ToolCatalog): ScenarioCheck {
  let document: unknown;
  try {
    document = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return {
      file,
      problems: [`${path.basename(file)}: not valid YAML: ${(err as Error).message.replace(/\s+/g, ' ')}`],
    };
  }
  return checkScenarioDocument(document, file, catalog);
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

/** The warnings of loaded scenarios (see {@link ScenarioCheck.warnings}), each naming its scenario and level. */
export function scenarioWarnings(scenario: Scenario, catalog: ToolCatalog): string[] {
  return scenario.levels.flatMap((level, index) =>
    level.kind === 'agent'
      ? checkPins(level, index, scenario, catalog, `levels[${index}] (${level.name})`).warnings.map(
          (warning) => `${scenario.name}: ${warning}`,
        )
      : [],
  );
}
