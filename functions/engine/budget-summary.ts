/**
 * The run budget's part of the run summary (docs/scenarios.md, "Run budget"): the work the budget
 * did not start, from the levels' records, and its figures in one sentence.
 */

import { roundTo as round } from '../runtime/text';
import type { ScenarioDefinition } from './definition';
import type { LevelRecord } from './records';

/** Work the budget did not start. */
export interface BudgetSkip {
  readonly kind: 'call' | 'model_turn' | 'account';
  /** The call id (`collect/3`), the turn (`analyze/turn 4`) or the account id. */
  readonly id: string;
  /** The call's tool. */
  readonly tool?: string;
  /** The level it belonged to. */
  readonly level?: string;
  /** What it was estimated to cost, in USD. */
  readonly estimateUsd: number;
}

/** The run budget's part of the summary. */
export interface RunBudgetSummary {
  readonly limitUsd: number;
  /** The run's estimated cost: `cost.totalUsd`. */
  readonly spentUsd: number;
  /** `limitUsd - spentUsd`, never below 0. */
  readonly remainingUsd: number;
  /** Calls, model turns and accounts not started because of the budget. */
  readonly skipped: readonly BudgetSkip[];
  /** One sentence for people. */
  readonly summary: string;
}

/** The skipped work of the levels' records, and the budget's figures in a sentence. */
export function budgetSummary(
  limitUsd: number,
  spent: number,
  scenario: ScenarioDefinition,
  levels: Readonly<Record<string, LevelRecord>>,
): RunBudgetSummary {
  const skipped: BudgetSkip[] = [];
  // Accounts are counted whole; only the first of each level are listed (records.ts, ORG_BUDGET_SKIPPED_IDS).
  let skippedAccounts = 0;
  for (const level of scenario.levels) {
    const record = levels[level.name];
    if (!record) continue;
    for (const call of record.calls) {
      if (call.skipped !== 'budget') continue;
      skipped.push({
        kind: 'call',
        id: call.callId,
        tool: call.tool,
        level: level.name,
        estimateUsd: call.estimateUsd ?? 0,
      });
    }
    if (record.kind === 'plan' && record.organization?.budgetSkipped) {
      const { first, accounts } = record.organization.budgetSkipped;
      skippedAccounts += accounts;
      for (const account of first) {
        skipped.push({
          kind: 'account',
          id: account.accountId,
          level: level.name,
          estimateUsd: account.estimateUsd,
        });
      }
    }
    if (record.kind === 'agent' && record.budgetSkipped) {
      skipped.push({
        kind: 'model_turn',
        id: `${level.name}/turn ${record.budgetSkipped.turn}`,
        level: level.name,
        estimateUsd: record.budgetSkipped.estimateUsd,
      });
    }
  }
  const remainingUsd = round(Math.max(0, limitUsd - spent), 6);
  const calls = skipped.filter((skip) => skip.kind === 'call').length;
  const turns = skipped.filter((skip) => skip.kind === 'model_turn').length;
  const pieces = calls + turns + skippedAccounts;
  const what = [
    ...(skippedAccounts > 0 ? [`${skippedAccounts} account${skippedAccounts === 1 ? '' : 's'}`] : []),
    ...(calls > 0 ? [`${calls} call${calls === 1 ? '' : 's'}`] : []),
    ...(turns > 0 ? [`${turns} model turn${turns === 1 ? '' : 's'}`] : []),
  ].join(' and ');
  return {
    limitUsd,
    spentUsd: spent,
    remainingUsd,
    skipped,
    summary:
      `Budget $${limitUsd}: ~$${spent.toFixed(4)} spent, ~$${remainingUsd.toFixed(4)} left; ` +
      (pieces === 0
        ? 'nothing was skipped.'
        : `${what} not started because ${pieces === 1 ? 'its estimate' : 'their estimates'} would have gone past it.`),
  };
}
