import { boundedCache } from '../bounded-cache';
import { SecretInvalidError, SecretNotFoundError, UnsupportedRefKindError } from '../errors';
import {
  CONVENTION_RULE,
  conventionalSecretVariable,
  defaultProviders,
  parseSecretValue,
  type SecretProviders,
} from './providers';
import { REF_KINDS, type RefKind, type SecretReference, type SecretReferenceStore } from './reference';

/** How long resolved secrets (and their references) are reused, in seconds (docs/design.md). */
export const DEFAULT_SECRET_TTL_SECONDS = 300;

/**
 * Tenant secrets (and reference rows) cached per container, least recently used
 * out first: a warm container serving many tenants keeps a bounded working set.
 */
export const MAX_CACHED_SECRETS = 1024;

/** Options of {@link SecretResolver}. */
export interface SecretResolverOptions {
  /** Cache lifetime in seconds; 0 disables caching. @default `SECRETS_CACHE_TTL_SECONDS` or 300 */
  readonly ttlSeconds?: number;
  /**
   * Providers by `ref_kind`; a kind not given keeps its default.
   * @default env, Secrets Manager (Powertools Parameters) and inline (KMS): {@link defaultProviders}
   */
  readonly providers?: Partial<SecretProviders>;
  /**
   * With no reference row, read the conventional environment variable of the
   * tenant and name ({@link conventionalSecretVariable}). Local runs only: a
   * deployed function reads Secrets Manager references only. @default true
   */
  readonly conventionFallback?: boolean;
  /** The environment the convention fallback reads. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Clock, in epoch ms (tests). */
  readonly now?: () => number;
}

/** What {@link SecretResolver.resolve} may be told. */
export interface ResolveOptions {
  /**
   * Bypass every cache — the resolver's value and row caches and the provider's
   * own (Powertools') — and read the row and the value again: after an auth
   * failure, the secret may have been rotated.
   */
  readonly fresh?: boolean;
}

function cacheKey(tenantId: string, secretName: string): string {
  return JSON.stringify([tenantId, secretName]);
}

/**
 * Resolves a tenant's secret: reference row → provider → parsed value. Values and
 * rows are cached in-process for `ttlSeconds` (bounded, {@link MAX_CACHED_SECRETS}
 * each), keyed by tenant and name. Values never leave the function that resolved them.
 *
 * With no row and the convention fallback on, the tenant's conventional variable
 * (`ETP_SECRET_<TENANT>__<NAME>`, see {@link conventionalSecretVariable}) is read.
 *
 * @example
 * const resolver = new SecretResolver(new DynamoDbSecretReferenceStore(table));
 * const { bot_token } = await resolver.resolve('default', 'slack_default');
 */
export class SecretResolver {
  readonly #values;
  readonly #rows;
  readonly #ttlMs: number;
  readonly #providers: SecretProviders;
  readonly #conventionFallback: boolean;
  readonly #env: NodeJS.ProcessEnv;

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
    this.#providers = { ...defaultProviders(), ...options.providers };
    this.#conventionFallback = options.conventionFallback ?? true;
    this.#env = options.env ?? process.env;
    const cacheOptions = { max: MAX_CACHED_SECRETS, ttlMs: Math.max(1, this.#ttlMs), now: options.now };
    this.#values = boundedCache<string, { value: Record<string, unknown> }>(cacheOptions);
    this.#rows = boundedCache<string, { row: SecretReference }>(cacheOptions);
  }

  /**
   * The parsed value of the tenant's secret (a fresh copy each call).
   *
   * @param options - `true` or `{ fresh: true }`: bypass every cache (after an auth failure).
   * @throws SecretNotFoundError (`secret_not_found`) when the tenant has no reference (nor a
   *   conventional variable) or the value is missing.
   * @throws UnsupportedRefKindError (`unsupported_ref_kind`) for a row whose `ref_kind` no provider handles.
   */
  async resolve(
    tenantId: string,
    secretName: string,
    options: ResolveOptions | boolean = {},
  ): Promise<Record<string, unknown>> {
    const fresh = typeof options === 'boolean' ? options : options.fresh === true;
    const key = cacheKey(tenantId, secretName);
    const cached = fresh ? undefined : this.#values.get(key);
    if (cached) return structuredClone(cached.value);

    const reference = await this.#reference(tenantId, secretName, fresh);
    if (!(REF_KINDS as readonly string[]).includes(reference.ref_kind)) {
      throw new UnsupportedRefKindError(reference.ref_kind, REF_KINDS);
    }
    const provider = this.#providers[reference.ref_kind as RefKind];
    const raw = await provider.read(reference, fresh ? 0 : this.#ttlMs / 1000);
    const value = parseSecretValue(raw);
    if (this.#ttlMs > 0) this.#values.set(key, { value });
    return structuredClone(value);
  }

  /** Forgets every cached value and row. */
  clear(): void {
    this.#values.clear();
    this.#rows.clear();
  }

  /** The reference row (cached like values), or the conventional env reference when there is none. */
  async #reference(tenantId: string, secretName: string, fresh: boolean): Promise<SecretReference> {
    const key = cacheKey(tenantId, secretName);
    const cached = fresh ? undefined : this.#rows.get(key);
    if (cached) return cached.row;
    const row = await this.store.get(tenantId, secretName);
    if (row) {
      if (this.#ttlMs > 0) this.#rows.set(key, { row });
      return row;
    }
    const variable = this.#conventionFallback ? conventionalSecretVariable(tenantId, secretName) : undefined;
    if (variable && this.#env[variable]) {
      return { tenant_id: tenantId, secret_name: secretName, ref_kind: 'env', ref_value: variable };
    }
    if (variable && this.#env[variable] === '') {
      // As an env reference set but empty (providers.ts): a secret without a value, never a fallback.
      throw new SecretInvalidError(
        `Tenant "${tenantId}" has no secret reference named "${secretName}" and environment variable ${variable} is set but empty`,
      );
    }
    const convention = this.#conventionFallback
      ? variable
        ? ` and environment variable ${variable} is not set`
        : ` (and no conventional environment variable: ${CONVENTION_RULE})`
      : '';
    throw new SecretNotFoundError(
      `Tenant "${tenantId}" has no secret reference named "${secretName}"${convention}`,
    );
  }
}
