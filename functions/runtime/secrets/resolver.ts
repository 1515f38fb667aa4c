import { SecretNotFoundError, UnsupportedRefKindError } from '../errors';
import { defaultProviders, parseSecretValue, type SecretProviders } from './providers';
import { REF_KINDS, type RefKind, type SecretReferenceStore } from './reference';

/** How long resolved secrets (and their references) are reused, in seconds (DESIGN.md). */
export const DEFAULT_SECRET_TTL_SECONDS = 300;

/** Options of {@link SecretResolver}. */
export interface SecretResolverOptions {
  /** Cache lifetime in seconds; 0 disables caching. @default `SECRETS_CACHE_TTL_SECONDS` or 300 */
  readonly ttlSeconds?: number;
  /** @default env + Secrets Manager (Powertools Parameters) */
  readonly providers?: SecretProviders;
  /** Clock, in epoch ms (tests). */
  readonly now?: () => number;
}

interface CacheEntry {
  readonly value: Record<string, unknown>;
  readonly expiresAt: number;
}

/**
 * Resolves a tenant's secret: reference row → provider → parsed value, cached
 * in-process for `ttlSeconds`. Values never leave the function that resolved them.
 *
 * @example
 * const resolver = new SecretResolver(new DynamoDbSecretReferenceStore(table));
 * const { bot_token } = await resolver.resolve('default', 'slack_default');
 */
export class SecretResolver {
  readonly #cache = new Map<string, CacheEntry>();
  readonly #ttlMs: number;
  readonly #providers: SecretProviders;
  readonly #now: () => number;

  constructor(
    private readonly store: SecretReferenceStore,
    options: SecretResolverOptions = {},
  ) {
    // An empty variable (as a template may leave it) means unset: Number('') is 0, which would disable the cache.
    const configured = Number(process.env.SECRETS_CACHE_TTL_SECONDS?.trim() || Number.NaN);
    const ttl =
      options.ttlSeconds ??
      (Number.isFinite(configured) && configured >= 0 ? configured : DEFAULT_SECRET_TTL_SECONDS);
    this.#ttlMs = ttl * 1000;
    this.#providers = options.providers ?? defaultProviders();
    this.#now = options.now ?? Date.now;
  }

  /**
   * The parsed value of the tenant's secret (a fresh copy each call).
   *
   * @param forceRefresh - skip the cache (after a rotation).
   * @throws SecretNotFoundError (`secret_not_found`) when the tenant has no reference or the value is missing.
   * @throws UnsupportedRefKindError (`unsupported_ref_kind`) for a row whose `ref_kind` no provider handles.
   */
  async resolve(
    tenantId: string,
    secretName: string,
    forceRefresh = false,
  ): Promise<Record<string, unknown>> {
    const cacheKey = `${tenantId}\u0000${secretName}`;
    const cached = this.#cache.get(cacheKey);
    if (!forceRefresh && cached && cached.expiresAt > this.#now()) return structuredClone(cached.value);

    const reference = await this.store.get(tenantId, secretName);
    if (!reference) {
      throw new SecretNotFoundError(`Tenant "${tenantId}" has no secret reference named "${secretName}"`);
    }
    if (!(REF_KINDS as readonly string[]).includes(reference.ref_kind)) {
      throw new UnsupportedRefKindError(reference.ref_kind, REF_KINDS);
    }
    const provider = this.#providers[reference.ref_kind as RefKind];
    const raw = await provider.read(reference, forceRefresh ? 0 : this.#ttlMs / 1000);
    const value = parseSecretValue(raw);
    if (this.#ttlMs > 0) this.#cache.set(cacheKey, { value, expiresAt: this.#now() + this.#ttlMs });
    return structuredClone(value);
  }

  /** Forgets every cached value. */
  clear(): void {
    this.#cache.clear();
  }
}
