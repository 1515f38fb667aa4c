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
  /**
   * Clears the timer behind `signal` once the call has ended (the signal then never
   * aborts): a warm container does not keep one pending timer per finished call.
   * Optional for deadlines built elsewhere (tests).
   */
  dispose?(): void;
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
  return deadlineAt(now + Math.max(0, usable), now);
}

/**
 * A deadline at epoch ms `at`, with no margin taken off.
 *
 * @example deadlineAt(callDeadline.at - 16_000) // a tool's deadline before the call's hard stop
 */
export function deadlineAt(at: number, now: number = Date.now()): Deadline {
  // Not AbortSignal.timeout: its timer cannot be cleared when the call ends early.
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The deadline passed', 'TimeoutError')),
    Math.min(Math.max(1, at - now), MAX_TIMER_MS),
  );
  timer.unref?.();
  const signal = controller.signal;
  return {
    at,
    signal,
    dispose: () => clearTimeout(timer),
    remainingMs: () => Math.max(0, at - Date.now()),
    expired: () => Date.now() >= at,
    check(what: string) {
      if (Date.now() >= at) throw new DeadlineExceededError(`Deadline reached while ${what}`);
    },
  };
}

/**
 * A deadline `reserveMs` before `parent` that has also passed whenever `parent`
 * has (the tool's deadline within its call's).
 *
 * @example const toolDeadline = deadlineBefore(callDeadline, inFlightReserveMs(callDeadline.remainingMs()));
 */
export function deadlineBefore(parent: Deadline, reserveMs: number): Deadline {
  const own = deadlineAt(parent.at - reserveMs);
  const expired = () => parent.expired() || own.expired();
  return {
    at: own.at,
    signal: AbortSignal.any([parent.signal, own.signal]),
    dispose: () => own.dispose?.(),
    remainingMs: () => (expired() ? 0 : own.remainingMs()),
    expired,
    check(what: string) {
      if (expired()) throw new DeadlineExceededError(`Deadline reached while ${what}`);
    },
  };
}

/**
 * Grace after a call's deadline before `runTool` gives up on its handler, in ms:
 * a tenth of the budget, at least 250 ms and at most 1 s (half of
 * {@link DEADLINE_SAFETY_MARGIN_MS}, so Lambda's own timeout is never reached).
 * Tools check the deadline between pages and return partial results; the grace
 * lets one that is finishing a page do so.
 */
export function hardStopGraceMs(budgetMs: number): number {
  return Math.min(DEADLINE_SAFETY_MARGIN_MS / 2, Math.max(250, Math.round(budgetMs / 10)));
}

/**
 * Time between the deadline a tool sees and the call's hard stop, in ms: one AWS
 * request's timeout plus a second (`AWS_HTTP_TIMEOUTS.requestTimeoutMs` + 1 s =
 * 16 s), at most a quarter of the budget. A tool stops starting pages at its
 * deadline; a page already in flight then still has time to arrive, so the tool
 * returns what it read, marked truncated, instead of the hard stop's `timeout`.
 */
export function inFlightReserveMs(budgetMs: number): number {
  return Math.max(0, Math.min(IN_FLIGHT_REQUEST_MS, Math.round(budgetMs / 4)));
}

/** An AWS request's timeout (see `AWS_HTTP_TIMEOUTS`) plus a second to handle its answer. */
const IN_FLIGHT_REQUEST_MS = 16_000;

/** The longest delay `setTimeout` honors (2^31 − 1 ms, about 24.8 days); longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Settles as `work` does, or rejects with `onExpiry()` when the deadline passes
 * first, whatever `work` is waiting for (a request to an endpoint that never
 * answers). `work` itself is not stopped: it runs on and its outcome is ignored.
 * The timer is cleared once either settles, so it never holds the process open.
 *
 * @param onExpiry - the error to reject with, built when the deadline passes.
 * @param graceMs - how long after the deadline to wait before rejecting, in ms: time
 *   for work that noticed the deadline to return its partial result. @default 0
 * @example
 * const output = await beforeDeadline(tool.handler(ctx, args), deadline,
 *   () => new DeadlineExceededError('Tool aws_ec2_inventory did not finish within its budget of 118 s'));
 */
export async function beforeDeadline<T>(
  work: Promise<T>,
  deadline: Deadline,
  onExpiry: () => Error,
  graceMs = 0,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onExpiry()), Math.min(deadline.remainingMs() + graceMs, MAX_TIMER_MS));
  });
  try {
    return await Promise.race([work, expiry]);
  } finally {
    clearTimeout(timer);
  }
}
