// Type only: lru-cache is loaded when a cache is first created (a call that needs one),
// not when a tool function's module loads (cold start, issue 6).
import type { LRUCache } from 'lru-cache';

/** Options of {@link boundedCache}. */
export interface BoundedCacheOptions<K, V> {
  /** Most entries kept; the least recently used goes first. */
  readonly max: number;
  /**
   * Lifetime of an entry set without its own `ttl`, ms: served while younger. (lru-cache serves an
   * entry while its age is at most its `ttl`, hence one ms less; pass `ttl - 1` to `set` likewise.)
   */
  readonly ttlMs: number;
  /** Clock in epoch ms (tests). @default Date.now */
  readonly now?: () => number;
  /** Called when an entry leaves the cache (evicted, expired, deleted or replaced): close what it holds. */
  readonly dispose?: (value: V, key: K) => void;
}

/**
 * A cache that cannot grow without bound and never serves an expired entry: at
 * most `max` entries (least recently used evicted first), each with a lifetime
 * (`ttlMs`, or `set(key, value, { ttl })`). Every process-wide cache of the
 * runtime that holds per-tenant or per-run state is one of these, so a warm
 * container serving many tenants and runs keeps a bounded, fresh working set.
 *
 * lru-cache (isaacs/node-lru-cache) with the TTL read from `now` on every access
 * (`ttlResolution: 0`): a test clock, or a long-lived container, sees expiry exactly.
 *
 * @example
 * const sessions = boundedCache<string, Credentials>({ max: 256, ttlMs: 3_600_000 });
 * sessions.set(key, credentials, { ttl: expiresAt - Date.now() });
 */
export function boundedCache<K extends {}, V extends {}>(options: BoundedCacheOptions<K, V>): LRUCache<K, V> {
  const { LRUCache } = require('lru-cache') as typeof import('lru-cache');
  const now = options.now ?? (() => Date.now());
  return new LRUCache<K, V>({
    max: options.max,
    ttl: Math.max(1, Math.round(options.ttlMs) - 1),
    ttlResolution: 0,
    allowStale: false,
    perf: { now },
    ...(options.dispose ? { dispose: (value: V, key: K) => options.dispose?.(value, key) } : {}),
  });
}
