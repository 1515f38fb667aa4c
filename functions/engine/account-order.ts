/**
 * The order a per-account level's Distributed Map is given its accounts in:
 * longest first, by what each account took in the previous organization run
 * (longest-processing-time-first, the classic list-scheduling rule).
 *
 * Why: the Map keeps `MaxConcurrency` children busy and starts the next item as
 * one ends. Started in account-id order, a long account that comes last runs on
 * alone while the other slots sit idle; the issue 20 bench measured that
 * schedule at 1.20× the perfectly packed ideal for 1,000 accounts. Started
 * longest first, the last accounts to start are the short ones. Step Functions
 * does not document the order in which a Distributed Map starts its child
 * executions; the local interpreter starts them in item order
 * (docs/organizations-runs.md, "Account order").
 */
import { compareText } from '../runtime/text';

/** Each account's calls' measured durations summed, ms, by account id (`ENGINE_PATHS.accountDurations`). */
export type AccountDurations = Readonly<Record<string, number>>;

/**
 * `items` longest first by `durations`: accounts the previous run did not time
 * (new to the organization, failed before recording, or no previous run) come
 * first, as their length is unknown; ties keep account-id order. Without
 * durations, the items as given.
 *
 * @example longestFirst([{ accountId: 'a' }, { accountId: 'b' }, { accountId: 'c' }], { a: 10, b: 30 })
 * // [{ accountId: 'c' }, { accountId: 'b' }, { accountId: 'a' }]
 */
export function longestFirst<T extends { readonly accountId: string }>(
  items: readonly T[],
  durations: AccountDurations | undefined,
): T[] {
  if (!durations) return [...items];
  const timed = (item: T) => {
    const ms = durations[item.accountId];
    return typeof ms === 'number' && Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
  };
  return [...items].sort((a, b) => {
    const longer = timed(b) - timed(a);
    return Number.isNaN(longer) || longer === 0 ? compareText(a.accountId, b.accountId) : longer;
  });
}

/** What `org_done` writes for the next run's order: each recorded account's calls' durations summed, ms. */
export function accountDurations(
  records: readonly { readonly accountId: string; readonly usage?: { readonly callMs: readonly number[] } }[],
): AccountDurations {
  const durations: Record<string, number> = {};
  for (const record of records) {
    if (record.usage) durations[record.accountId] = record.usage.callMs.reduce((sum, ms) => sum + ms, 0);
  }
  return durations;
}
