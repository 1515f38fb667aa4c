// Types only: STS is loaded when a call first assumes a role (cold start, issue 6).
import type { AssumeRoleCommandInput, AssumeRoleCommandOutput, STSClient } from '@aws-sdk/client-sts';
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { boundedCache } from '../bounded-cache';
import { SecretInvalidError, ServiceCallError } from '../errors';
import { awsRequestHandler } from './http-timeouts';

/** Region used when the function's environment names none (local runs without AWS_REGION). */
export const FALLBACK_REGION = 'us-east-1';

/**
 * The region the platform runs in: the function's `AWS_REGION` (set by Lambda),
 * else `AWS_DEFAULT_REGION`, else {@link FALLBACK_REGION}. STS is always called
 * here, never in a tenant's region: an opt-in region the platform account has not
 * enabled refuses STS calls (IAM User Guide, "Managing AWS STS in an AWS Region"),
 * and a tenant's region says where its resources are, not where the platform is.
 */
export function platformRegion(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_REGION || env.AWS_DEFAULT_REGION || FALLBACK_REGION;
}

/**
 * STS clients by region, signing with the function's own role (the default
 * chain). They carry no tenant state: every tenant's AssumeRole goes through the
 * client of the platform's region, with its own parameters.
 */
const stsClients = new Map<string, STSClient>();

/** The STS client of the platform's region ({@link platformRegion}), created on first use. */
export function platformStsClient(): STSClient {
  const region = platformRegion();
  let client = stsClients.get(region);
  if (!client) {
    const { STSClient } = require('@aws-sdk/client-sts') as typeof import('@aws-sdk/client-sts');
    client = new STSClient({ region, requestHandler: awsRequestHandler() });
    stsClients.set(region, client);
  }
  return client;
}

/** Refresh assumed-role credentials this long before they expire, in ms. */
export const CREDENTIAL_REFRESH_MARGIN_MS = 5 * 60_000;

/** What {@link SessionCache} keeps per key. */
interface CachedSession {
  readonly credentials: AwsCredentialIdentity;
}

/** Options of a {@link SessionCache}. */
export interface SessionCacheOptions {
  /** Most sessions kept (least recently used evicted first). */
  readonly max: number;
  /** Clock, epoch ms (tests). @default Date.now */
  readonly now?: () => number;
}

/**
 * Assumed-role credentials by key, bounded ({@link boundedCache}): an entry is
 * served until {@link CREDENTIAL_REFRESH_MARGIN_MS} before its expiration and
 * evicted then; concurrent callers of one key (a region fan-out) share one
 * AssumeRole. A failed AssumeRole is not cached.
 */
export class SessionCache {
  readonly #sessions;
  readonly #pending = new Map<string, Promise<AwsCredentialIdentity>>();
  readonly #now: () => number;

  constructor(options: SessionCacheOptions) {
    // Read through Date.now at each call, so a test's clock (jest.spyOn(Date, 'now')) is seen.
    this.#now = options.now ?? (() => Date.now());
    this.#sessions = boundedCache<string, CachedSession>({
      max: options.max,
      ttlMs: 3_600_000,
      now: this.#now,
    });
  }

  /** Sessions held (expired ones are not served, and are dropped when met). */
  get size(): number {
    this.#sessions.purgeStale();
    return this.#sessions.size;
  }

  /** The key's credentials: cached, shared with a call under way, or from `assume`. */
  get(key: string, assume: () => Promise<AwsCredentialIdentity>): Promise<AwsCredentialIdentity> {
    const cached = this.#sessions.get(key);
    if (cached) return Promise.resolve(cached.credentials);
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = assume()
        .then((credentials) => {
          const expiresAt = credentials.expiration?.getTime() ?? this.#now();
          // Served while strictly before the refresh point: lru-cache keeps an entry while its age <= ttl.
          const ttl = expiresAt - CREDENTIAL_REFRESH_MARGIN_MS - this.#now() - 1;
          if (ttl > 0) this.#sessions.set(key, { credentials }, { ttl });
          return credentials;
        })
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** Drops the key's session (STS said it expired early): the next `get` assumes the role again. */
  invalidate(key: string): void {
    this.#sessions.delete(key);
  }

  /** Drops every session. */
  clear(): void {
    this.#sessions.clear();
    this.#pending.clear();
  }
}

/**
 * Calls STS AssumeRole in the platform's region and returns the credentials.
 *
 * @throws ServiceCallError('sts', …) wrapping STS's error (AccessDenied, a
 *   timeout…), so it is reported as STS's whichever client asked for credentials.
 * @throws SecretInvalidError when STS answers without credentials.
 */
export async function assumeRole(input: AssumeRoleCommandInput): Promise<AwsCredentialIdentity> {
  const { AssumeRoleCommand } = require('@aws-sdk/client-sts') as typeof import('@aws-sdk/client-sts');
  let Credentials: AssumeRoleCommandOutput['Credentials'];
  try {
    ({ Credentials } = await platformStsClient().send(new AssumeRoleCommand(input)));
  } catch (err) {
    throw new ServiceCallError('sts', err);
  }
  if (!Credentials?.AccessKeyId || !Credentials.SecretAccessKey) {
    throw new SecretInvalidError(`STS returned no credentials for ${input.RoleArn}`, { service: 'sts' });
  }
  return {
    accessKeyId: Credentials.AccessKeyId,
    secretAccessKey: Credentials.SecretAccessKey,
    sessionToken: Credentials.SessionToken,
    expiration: Credentials.Expiration ?? new Date(Date.now() + (input.DurationSeconds ?? 3600) * 1000),
  };
}
