import { ToolNotAllowedError, UnknownLevelError, UnknownScenarioError } from '../runtime/errors';
import { readJsonVariable } from './environment';

/**
 * Each scenario's levels and their `intra_tools`: `{ scenario: { level: [tool…] } }`.
 * The CDK computes it from the scenario YAML and hands it to the dispatcher in
 * `SCENARIO_LEVELS`; local runs compute it from the same files.
 */
export type LevelWhitelists = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;

/**
 * Reads `SCENARIO_LEVELS` once at load time.
 *
 * @throws Error when it is missing, not JSON, or not a `{ scenario: { level: string[] } }` object.
 */
export function levelWhitelistsFromEnvironment(env: NodeJS.ProcessEnv = process.env): LevelWhitelists {
  const parsed = readJsonVariable(env, 'SCENARIO_LEVELS');
  const valid =
    isRecord(parsed) &&
    Object.values(parsed).every(
      (levels) =>
        isRecord(levels) &&
        Object.values(levels).every(
          (tools) => Array.isArray(tools) && tools.every((t) => typeof t === 'string'),
        ),
    );
  if (!valid) throw new Error('SCENARIO_LEVELS must be a JSON object { scenario: { level: [tool names] } }');
  return parsed as LevelWhitelists;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Checks that `tool` may be called at `level` of `scenario`. File tools are always allowed.
 *
 * @throws UnknownScenarioError | UnknownLevelError | ToolNotAllowedError, each listing what is accepted.
 */
export function assertToolAllowed(
  whitelists: LevelWhitelists,
  scenario: string,
  level: string,
  tool: string,
  fileTools: readonly string[],
): void {
  const levels = whitelists[scenario];
  if (!levels) throw new UnknownScenarioError(scenario, Object.keys(whitelists).sort());
  const allowed = levels[level];
  if (!allowed) throw new UnknownLevelError(scenario, level, Object.keys(levels));
  if (!allowed.includes(tool) && !fileTools.includes(tool)) {
    throw new ToolNotAllowedError(tool, scenario, level, [...allowed, ...fileTools]);
  }
}
