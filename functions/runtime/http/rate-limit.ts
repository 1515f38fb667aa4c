import { setTimeout as sleep } from 'node:timers/promises';
import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../bounded-cache';
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

/** Most buckets a {@link RateLimiter} keeps (least recently used out first), like the runtime's other caches. */
export const MAX_RATE_LIMIT_BUCKETS = 1_024;

/** A bucket idle this long is full again whatever its rate (1 h), so it may be forgotten. */
const BUCKET_IDLE_MS = 3_600_000;

/**
 * One key's bucket as a reservation schedule: `tokens` may go below zero, each
 * negative unit a token a waiter has already been promised. `limiter`'s
 * TokenBucket (used before) cannot promise a token: its waiters raced for each
 * refilled one, so the last of many waited out its whole deadline before being
 * refused. With reservations a caller knows at once when its token comes.
 */
interface Bucket {
  tokens: number;
  /** Epoch ms of the last refill. */
  at: number;
}

/**
 * Token buckets by key, created on first use and bounded
 * ({@link MAX_RATE_LIMIT_BUCKETS}, least recently used out first; a bucket idle
 * for an hour is forgotten, being full again anyway). The HTTP client keys them
 * by partition (the tenant) and host, so one tenant's burst never delays another
 * tenant's call in the same container.
 *
 * Waits are bounded and decided at once: each caller reserves the next free
 * token; one whose token comes after its deadline is refused immediately with
 * `throttled`, `details.retryAfterMs` and `retryAfterSeconds` (when its token
 * would come), never slept on.
 *
 * @example
 * const limiter = new RateLimiter();
 * await limiter.acquire('acme\u0000hooks.slack.com', { burst: 1, perSecond: 1 }, { remainingMs: 5_000 });
 */
export class RateLimiter {
  #cache: LRUCache<string, Bucket> | undefined;
  readonly #maxBuckets: number;
  readonly #now: () => number;

  constructor(options: { readonly maxBuckets?: number; readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxBuckets = options.maxBuckets ?? MAX_RATE_LIMIT_BUCKETS;
  }

  /**
   * The buckets, created on the first acquire: {@link sharedRateLimiter} is built
   * when an HTTP tool's module loads, and creating the cache there would load
   * lru-cache in the function's init phase (about 5 ms of a REST tool's cold start).
   */
  get #buckets(): LRUCache<string, Bucket> {
    this.#cache ??= boundedCache<string, Bucket>({
      max: this.#maxBuckets,
      ttlMs: BUCKET_IDLE_MS,
      now: this.#now,
    });
    return this.#cache;
  }

  /** Buckets held. */
  get size(): number {
    return this.#cache?.size ?? 0;
  }

  /**
   * Takes one token from `key`'s bucket, waiting for it when the wait fits the time left.
   *
   * @throws ThrottledError (`throttled`, retryable, `details.retryAfterMs` and
   *   `retryAfterSeconds`) at once when the caller's token would come after `remainingMs`.
   * @throws the signal's reason when `signal` aborts during the wait (the token is given back).
   */
  async acquire(key: string, limit: RateLimit, options: AcquireOptions): Promise<void> {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.perSecond);
      bucket.at = now;
    } else {
      // A first burst is allowed.
      bucket = { tokens: limit.burst, at: now };
    }
    this.#buckets.set(key, bucket);
    const waitMs = bucket.tokens >= 1 ? 0 : Math.ceil(((1 - bucket.tokens) / limit.perSecond) * 1000);
    if (waitMs > options.remainingMs) {
      throw new ThrottledError(
        `Local rate limit of ${limit.perSecond}/s reached; the next free slot is in ${waitMs} ms, after the call's deadline`,
        Math.ceil(waitMs / 1000),
        options.service,
        waitMs,
      );
    }
    bucket.tokens -= 1;
    if (waitMs === 0) return;
    try {
      await sleep(waitMs, undefined, options.signal ? { signal: options.signal } : undefined);
    } catch (err) {
      bucket.tokens += 1;
      throw err;
    }
  }

  /** Forgets every bucket (tests). */
  clear(): void {
    this.#cache?.clear();
  }
}

/** The container's rate limiter, shared by every HTTP client (its buckets are keyed by tenant and host). */
export const sharedRateLimiter = new RateLimiter();
