/**
 * The concurrency budget of an organization run (issue 20, "Fan-out on a
 * Distributed Map"): the account's Lambda concurrency shared by every function
 * an account's audit keeps busy, so a run never throttles itself on Lambda
 * concurrency. The Distributed Map's `MaxConcurrency` (child executions at
 * once) is computed here at synth, from one figure per level:
 * {@link functionsPerInFlightCall}.
 */
import type { PlanLevel } from '../../functions/engine/definition';

/**
 * Lambda concurrent executions per account and Region, by default (Lambda
 * developer guide, "Lambda quotas": 1,000, raisable). The platform's setting
 * `lambdaConcurrency` overrides it.
 */
export const DEFAULT_LAMBDA_CONCURRENCY = 1000;

/** Most child executions a Distributed Map runs at once (Step Functions developer guide, "Distributed Map state": 10,000). */
export const DISTRIBUTED_MAP_MAX_CONCURRENCY = 10_000;

/**
 * Lambda functions one in-flight tool call of a plan level keeps busy: 1. A plan
 * call's Task waits for its task token (lib/scenarios/asl-states/tasks.ts,
 * `callback`): the dispatcher checks the call, starts the tool's function
 * asynchronously and returns; the tool's function finishes the call and answers
 * the token (docs/architecture.md, "Functions a call keeps busy"). The dispatcher's
 * checks run before the tool starts, never beside it. `npm run -s bench:scenario`
 * and `bench:org` measure it. The one place this figure is read: every
 * `MaxConcurrency` follows it.
 */
export function functionsPerInFlightCall(_level: PlanLevel): number {
  return 1;
}

/** How an organization level shares the budget. */
export interface AccountConcurrency {
  /** Functions one account keeps busy at its peak: its calls in flight × {@link functionsPerInFlightCall}. */
  readonly functionsPerAccount: number;
  /** Accounts audited at once: `floor(budget / functionsPerAccount)`, at least 1. */
  readonly accountsAtOnce: number;
  /** Child executions at once (the Distributed Map's `MaxConcurrency`): accounts at once / accounts per child. */
  readonly maxConcurrency: number;
}

/**
 * The Distributed Map's `MaxConcurrency` for a per-account plan level. Each
 * child audits `accountsPerChild` accounts in parallel, each with the level's
 * `concurrency` calls in flight; the engine Task of an account runs between its
 * calls, never beside them, so it adds nothing to the peak.
 *
 * @param lambdaConcurrency - functions the run may keep busy (the account's Lambda concurrency, or what of it is given to runs).
 * @throws RangeError when `lambdaConcurrency` or `accountsPerChild` is not a whole number ≥ 1.
 * @example
 * // a level of 12 calls, 4 in flight, 1 function per call:
 * accountConcurrency(collect, 1000, 1) // { functionsPerAccount: 4, accountsAtOnce: 250, maxConcurrency: 250 }
 */
export function accountConcurrency(
  level: PlanLevel,
  lambdaConcurrency: number,
  accountsPerChild: number,
): AccountConcurrency {
  for (const [name, value] of [
    ['lambdaConcurrency', lambdaConcurrency],
    ['accountsPerChild', accountsPerChild],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new RangeError(`${name} must be a whole number of at least 1, got ${value}`);
    }
  }
  const functionsPerAccount =
    Math.min(level.concurrency, level.calls.length) * functionsPerInFlightCall(level);
  const accountsAtOnce = Math.max(1, Math.floor(lambdaConcurrency / functionsPerAccount));
  return {
    functionsPerAccount,
    accountsAtOnce,
    maxConcurrency: Math.min(
      DISTRIBUTED_MAP_MAX_CONCURRENCY,
      Math.max(1, Math.floor(accountsAtOnce / accountsPerChild)),
    ),
  };
}
