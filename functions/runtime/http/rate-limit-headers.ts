/**
 * Rate-limit headers, read per connector: what is left of the API's quota and
 * when it resets, so a session stops before the API refuses (a request sent at
 * `remaining: 0` only earns a 403/429 and counts against the secondary limits).
 */
import type { HttpResponse } from './client';

/** The quota an answer reports. */
export interface QuotaState {
  /** Requests left in the current window. */
  readonly remaining: number;
  /** Epoch ms at which the window resets. */
  readonly resetAtMs: number;
}

/** Reads a response's quota headers; undefined when it carries none. */
export type QuotaReader = (response: HttpResponse, now: number) => QuotaState | undefined;

/** How an API writes its reset time. */
export type ResetUnit =
  /** Epoch seconds (GitHub `x-ratelimit-reset`). */
  | 'epoch_seconds'
  /** Seconds from now (PagerDuty `ratelimit-reset`, the IETF RateLimit header fields). */
  | 'delta_seconds'
  /** Milliseconds from now (HubSpot `x-hubspot-ratelimit-interval-milliseconds` as a window). */
  | 'delta_ms';

/** Header names of one API's quota (lower case). */
export interface QuotaHeaders {
  readonly remaining: string;
  readonly reset: string;
  readonly resetUnit: ResetUnit;
}

/**
 * A {@link QuotaReader} over two headers.
 *
 * @example
 * const github = quotaHeaders({ remaining: 'x-ratelimit-remaining', reset: 'x-ratelimit-reset', resetUnit: 'epoch_seconds' });
 * github({ status: 200, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1700000060' }, text: '' }, 1700000000000)
 * // { remaining: 0, resetAtMs: 1700000060000 }
 */
export function quotaHeaders(names: QuotaHeaders): QuotaReader {
  return (response, now) => {
    const remaining = integer(response.headers[names.remaining]);
    const reset = integer(response.headers[names.reset]);
    if (remaining === undefined || reset === undefined) return undefined;
    const resetAtMs =
      names.resetUnit === 'epoch_seconds'
        ? reset * 1000
        : names.resetUnit === 'delta_seconds'
          ? now + reset * 1000
          : now + reset;
    return { remaining, resetAtMs };
  };
}

function integer(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}
