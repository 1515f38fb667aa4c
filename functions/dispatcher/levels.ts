import { ToolNotAllowedError, UnknownLevelError, UnknownScenarioError } from '../runtime/errors';

/**
 * Each scenario's levels and their `intra_tools`: `{ scenario: { level: [tool…] } }`.
 * The CDK computes it from the scenario YAML and bundles it with the dispatcher
 * (`DispatcherConfig.scenarios`); local runs compute it from the same files.
 */
export type LevelWhitelists = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;

/**
 * Checks that `tool` may be called at `level` of `scenario`. File tools are always
 * allowed. Names are looked up as own properties only: `constructor` or
 * `__proto__` is an unknown scenario or level, never an inherited member.
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
  const levels = Object.hasOwn(whitelists, scenario) ? whitelists[scenario] : undefined;
  if (!levels) throw new UnknownScenarioError(scenario, Object.keys(whitelists).sort());
  const allowed = Object.hasOwn(levels, level) ? levels[level] : undefined;
  if (!allowed) throw new UnknownLevelError(scenario, level, Object.keys(levels));
  if (!allowed.includes(tool) && !fileTools.includes(tool)) {
    throw new ToolNotAllowedError(tool, scenario, level, [...allowed, ...fileTools]);
  }
}
