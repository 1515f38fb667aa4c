import { NOT_SENT_CODES } from './errors';

/** Methods whose repetition is harmless (RFC 9110 §9.2.2, "Idempotent Methods"). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'OPTIONS',
  'PUT',
  'DELETE',
  'TRACE',
]);

/** Statuses worth a retry: rate limited, or a server failure that may be transient (RFC 9110 §15.6). */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Failures after the request may have been sent: retried only when the request is idempotent. */
const MAYBE_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'AttemptTimeout',
]);

/** First backoff between attempts, ms; doubled per attempt up to {@link MAX_BACKOFF_MS}. */
export const BASE_BACKOFF_MS = 200;
/** Longest backoff without a `Retry-After`, ms. */
export const MAX_BACKOFF_MS = 2_000;
/** Time an attempt needs at least; a retry that would start with less left is not made. */
export const MIN_ATTEMPT_MS = 500;

/** One failed attempt, as the retry policy sees it. */
export interface AttemptFailure {
  /** HTTP status of an error response. */
  readonly status?: number;
  /** Node/undici error code of a failed request (`ECONNREFUSED`, `UND_ERR_SOCKET`…). */
  readonly code?: string;
  /** From the response's `Retry-After`, seconds. */
  readonly retryAfterSeconds?: number;
}

/** What the policy knows of the request and the time left. */
export interface RetryContext {
  /** Failed attempts so far, this one included (1 after the first failure). */
  readonly attempt: number;
  readonly maxRetries: number;
  readonly idempotent: boolean;
  /** A 429 means the server did not act on the request, so a non-idempotent request may be repeated. */
  readonly retryThrottled: boolean;
  /** Time left to the deadline, ms. */
  readonly remainingMs: number;
  /** Random number in [0, 1) for jitter. @default Math.random */
  readonly random?: () => number;
}

/** Retry after `waitMs`, or give up (the reason is logged). */
export type RetryDecision =
  | { readonly retry: true; readonly waitMs: number }
  | { readonly retry: false; readonly reason: string };

/**
 * Decides whether a failed attempt is retried and after how long:
 *
 * - a failure before the request was sent (refused connection, DNS, connect
 *   timeout) is retried whatever the method: the server saw nothing;
 * - 5xx and failures after sending (reset, response timeout) only when the
 *   request is idempotent: repeating a POST whose outcome is unknown could act twice;
 * - 429 when the request is idempotent or `retryThrottled` says the server did not act on it;
 * - the wait is `Retry-After` when given, else 200 ms doubling to 2 s with jitter;
 * - never a wait that leaves less than {@link MIN_ATTEMPT_MS} before the deadline:
 *   the caller then gets the failure (429: `throttled` with `retryAfterSeconds`).
 *
 * @example retryDecision({ status: 503 }, { attempt: 1, maxRetries: 2, idempotent: true, retryThrottled: false, remainingMs: 9_000 })
 * // { retry: true, waitMs: 100…200 }
 */
export function retryDecision(failure: AttemptFailure, context: RetryContext): RetryDecision {
  if (context.attempt > context.maxRetries) return { retry: false, reason: 'retries exhausted' };
  const eligible = eligibility(failure, context);
  if (eligible !== true) return { retry: false, reason: eligible };
  const waitMs =
    failure.retryAfterSeconds !== undefined ? failure.retryAfterSeconds * 1000 : backoffMs(context);
  if (waitMs + MIN_ATTEMPT_MS > context.remainingMs) {
    return { retry: false, reason: `a wait of ${waitMs} ms does not fit the ${context.remainingMs} ms left` };
  }
  return { retry: true, waitMs };
}

function eligibility(failure: AttemptFailure, context: RetryContext): true | string {
  if (failure.status !== undefined) {
    if (!RETRY_STATUSES.has(failure.status)) return `HTTP ${failure.status} is not retried`;
    if (failure.status === 429) {
      return context.idempotent || context.retryThrottled
        ? true
        : 'a non-idempotent request is not retried on 429';
    }
    return context.idempotent ? true : `a non-idempotent request is not retried on HTTP ${failure.status}`;
  }
  const code = failure.code ?? '';
  if (NOT_SENT_CODES.has(code)) return true;
  if (MAYBE_SENT_CODES.has(code)) {
    return context.idempotent
      ? true
      : `a non-idempotent request that may have been sent is not retried (${code})`;
  }
  return `${code || 'this error'} is not retried`;
}

function backoffMs(context: RetryContext): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (context.attempt - 1));
  // "Equal jitter": half fixed, half random, so concurrent clients spread out.
  return Math.round(ceiling / 2 + (ceiling / 2) * (context.random ?? Math.random)());
}
