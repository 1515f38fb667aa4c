import {
  InvalidArgsError,
  ToolNotAllowedError,
  UnknownLevelError,
  UnknownScenarioError,
} from '../runtime/errors';
import { ORG_ACCOUNTS_TOOL } from '../runtime/ids';

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

/**
 * The per-account levels of each scenario and their organization secret:
 * `{ scenario: { level: 'aws_org_default' } }`. The CDK computes it from the
 * scenario files (lib/scenarios/pins.ts, `accountLevels`) like the whitelists.
 */
export type AccountLevels = Readonly<Record<string, Readonly<Record<string, string>>>>;

/**
 * The organization secret of a call's level when the level is per-account, checked
 * against the envelope's `account`: a per-account level's call must name its member
 * account, and no other call may (a caller cannot move a call to another account).
 * The one exception is the level's listing of its accounts ({@link ORG_ACCOUNTS_TOOL},
 * made by the engine's `org_targets`): it runs in the organization role, so it names
 * no member account, and it reads the level's organization secret too.
 *
 * @returns the level's `aws_org_*` secret name, or undefined for a level that is not per-account.
 * @throws InvalidArgsError when `account` is missing on a per-account level, or present elsewhere
 *   (the listing tool's call included).
 */
export function accountLevelSecret(
  levels: AccountLevels,
  scenario: string | undefined,
  level: string | undefined,
  account: string | undefined,
  tool?: string,
): string | undefined {
  const ofScenario = scenario !== undefined && Object.hasOwn(levels, scenario) ? levels[scenario] : undefined;
  const secret =
    ofScenario && level !== undefined && Object.hasOwn(ofScenario, level) ? ofScenario[level] : undefined;
  if (secret !== undefined && tool === ORG_ACCOUNTS_TOOL) {
    if (account !== undefined) {
      throw new InvalidArgsError(
        `account is not accepted on ${ORG_ACCOUNTS_TOOL}: it lists the organization's accounts with the organization role, in no member account`,
      );
    }
    return secret;
  }
  if (secret !== undefined && account === undefined) {
    throw new InvalidArgsError(
      `account is required: level ${level} of scenario ${scenario} runs once per member account (for_each_account), so each call names its 12-digit account id`,
    );
  }
  if (secret === undefined && account !== undefined) {
    throw new InvalidArgsError(
      `account is accepted only on the calls of a per-account level (for_each_account); ${
        level === undefined ? 'a call without a level' : `level ${level} of scenario ${scenario}`
      } is not one`,
    );
  }
  return secret;
}
