import { setTimeout as sleep } from 'node:timers/promises';
import { TokenBucket } from 'limiter';
import { ThrottledError } from './errors';

/** A token bucket's shape: `burst` requests at once, refilled at `perSecond`. */
export interface RateLimit {
  /** Requests allowed back to back (the bucket's size). */
  readonly burst: number;
  /** Sustained rate, requests per second. */
  readonly perSecond: number;
}

/**
 * Default per-host limit of the HTTP client: 10 requests at once, 5 per second
 * sustained. Generous next to the services we call (Slack's Web API allows
 * 20-100 calls per minute per method and workspace, "Rate limits" on
 * api.slack.com; incoming webhooks about 1 message per second) so it only
 * flattens bursts; the remote's own 429 + `Retry-After` does the rest.
 */
export const DEFAULT_RATE_LIMIT: RateLimit = { burst: 10, perSecond: 5 };

/** How long a wait {@link RateLimiter.acquire} may take. */
export interface AcquireOptions {
  /** Time left to the caller's deadline, ms: a longer wait is refused. */
  readonly remainingMs: number;
  /** Aborts the wait (the call's deadline). */
  readonly signal?: AbortSignal;
  /** For the error's `service`. */
  readonly service?: string;
}

/**
 * Token buckets by key (`limiter`'s `TokenBucket`), created on first use. The
 * HTTP client keys them by partition (the tenant) and host, so one tenant's
 * burst never delays another tenant's call in the same container.
 *
 * Waits are bounded: a token that will not be there before the caller's
 * deadline is refused at once with `throttled` and `retryAfterSeconds`, never
 * slept on past the time left.
 *
 * @example
 * const limiter = new RateLimiter();
 * await limiter.acquire('acme\u0000hooks.slack.com', { burst: 1, perSecond: 1 }, { remainingMs: 5_000 });
 */
export class RateLimiter {
  readonly #buckets = new Map<string, TokenBucket>();

  /**
   * Takes one token from `key`'s bucket, waiting for it when the wait fits the time left.
   *
   * @throws ThrottledError (`throttled`, retryable, `details.retryAfterSeconds`) when the
   *   wait would outlast `remainingMs`.
   * @throws the signal's reason when `signal` aborts during the wait.
   */
  async acquire(key: string, limit: RateLimit, options: AcquireOptions): Promise<void> {
    const bucket = this.#bucket(key, limit);
    const started = Date.now();
    // tryRemoveTokens debits atomically; a waiter loops because a concurrent caller
    // may take the token it waited for.
    while (!bucket.tryRemoveTokens(1)) {
      const waitMs = Math.max(1, bucket.getWaitTime(1));
      const left = options.remainingMs - (Date.now() - started);
      if (waitMs > left) {
        throw new ThrottledError(
          `Local rate limit of ${limit.perSecond}/s reached; the next slot is in ${waitMs} ms, after the call's deadline`,
          Math.ceil(waitMs / 1000),
          options.service,
        );
      }
      await sleep(waitMs, undefined, options.signal ? { signal: options.signal } : undefined);
    }
  }

  /** Forgets every bucket (tests). */
  clear(): void {
    this.#buckets.clear();
  }

  #bucket(key: string, limit: RateLimit): TokenBucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket({
        bucketSize: limit.burst,
        tokensPerInterval: limit.perSecond,
        interval: 'second',
      });
      // limiter starts a bucket empty; a first burst is allowed.
      bucket.content = limit.burst;
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }
}

/** The container's rate limiter, shared by every HTTP client (its buckets are keyed by tenant and host). */
export const sharedRateLimiter = new RateLimiter();
