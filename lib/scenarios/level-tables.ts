import type { AccountLevels, LevelWhitelists } from '../../functions/dispatcher/levels';
import { ASK_USER_LEVEL } from '../../functions/engine/definition';
import { ORG_ACCOUNTS_TOOL } from '../../functions/runtime/ids';
import type { Scenario } from './model';

/**
 * `{ scenario: { level: intra_tools } }` for the dispatcher, plus, for scenarios
 * with an `ask_user` level posting to Slack, the engine's `ask_user` level
 * allowed `slack_post_message` only (the question's post).
 */
export function levelWhitelists(scenarios: readonly Scenario[]): LevelWhitelists {
  return Object.fromEntries(
    scenarios.map((scenario) => {
      // A per-account level also lists its accounts (the engine's org_targets, through the dispatcher).
      const levels: [string, string[]][] = scenario.levels.map((l) => [
        l.name,
        l.kind === 'plan' && l.for_each_account ? [...l.intra_tools, ORG_ACCOUNTS_TOOL] : [...l.intra_tools],
      ]);
      if (scenario.levels.some((l) => l.kind === 'agent' && l.ask_user && l.ask_user.slack_channel)) {
        levels.push([ASK_USER_LEVEL, ['slack_post_message']]);
      }
      return [scenario.name, Object.fromEntries(levels)];
    }),
  );
}

/**
 * `{ scenario: { level: org_secret } }` of the per-account levels (`for_each_account`),
 * for the dispatcher: their calls carry the member `account`, and their AWS tools
 * assume the member role of that organization secret.
 */
export function accountLevels(scenarios: readonly Scenario[]): AccountLevels {
  return Object.fromEntries(
    scenarios.flatMap((scenario) => {
      const levels = scenario.levels.flatMap((l) =>
        l.kind === 'plan' && l.for_each_account ? [[l.name, l.for_each_account.org_secret] as const] : [],
      );
      return levels.length > 0 ? [[scenario.name, Object.fromEntries(levels)]] : [];
    }),
  );
}

/** The organization secrets the per-account levels read (each tenant's reader role per name). */
export function accountLevelSecrets(scenarios: readonly Scenario[]): string[] {
  return [
    ...new Set(Object.values(accountLevels(scenarios)).flatMap((levels) => Object.values(levels))),
  ].sort();
}
