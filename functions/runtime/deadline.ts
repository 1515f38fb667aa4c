import { DeadlineExceededError } from './errors';

/** Time kept back from Lambda's remaining time to build, bound and return the result, in ms. */
export const DEADLINE_SAFETY_MARGIN_MS = 2_000;

/**
 * A call's deadline: tools check it between pages and regions, stop early and
 * return partial results marked `truncated` instead of being killed by Lambda.
 */
export interface Deadline {
  /** Epoch ms at which the call must have returned. */
  readonly at: number;
  /** Milliseconds left; 0 once passed. */
  remainingMs(): number;
  /** Whether the deadline has passed. */
  expired(): boolean;
  /** Aborted when the deadline passes; hand it to SDK calls (`abortSignal`). */
  readonly signal: AbortSignal;
  /** @throws DeadlineExceededError (`timeout`) when the deadline has passed. */
  check(what: string): void;
}

/**
 * A deadline `budgetMs` from now, less {@link DEADLINE_SAFETY_MARGIN_MS} when the
 * budget is large enough to afford it.
 *
 * @param budgetMs - time available in ms, e.g. Lambda's `context.getRemainingTimeInMillis()`.
 * @example
 * const deadline = deadlineIn(context.getRemainingTimeInMillis());
 * if (deadline.expired()) return partial;
 */
export function deadlineIn(budgetMs: number, now: number = Date.now()): Deadline {
  const usable = budgetMs > DEADLINE_SAFETY_MARGIN_MS * 4 ? budgetMs - DEADLINE_SAFETY_MARGIN_MS : budgetMs;
  const at = now + Math.max(0, usable);
  const signal = AbortSignal.timeout(Math.max(1, at - now));
  return {
    at,
    signal,
    remainingMs: () => Math.max(0, at - Date.now()),
    expired: () => Date.now() >= at,
    check(what: string) {
      if (Date.now() >= at) throw new DeadlineExceededError(`Deadline reached while ${what}`);
    },
  };
}
