/**
 * Tenant isolation enforced by IAM, the runtime's half (docs/tenant-isolation.md).
 * A deployed tool function never reads a reference row or a secret with its own
 * role: for tenant T and secret name S it assumes S's reader role with the
 * session tag `etp-tenant=T`, and reads T's row and secret with that session.
 * The reader role's policy allows `dynamodb:GetItem` only where the partition key
 * equals the session's tenant (`dynamodb:LeadingKeys`) and `GetSecretValue` only
 * on secrets tagged with that tenant and with S; the tool role may assume only the
 * reader roles at all. A bug here, or a row of tenant U pointing at T's secret,
 * therefore reads nothing of T.
 *
 * Every client and cache below is keyed by tenant and secret name and bounded,
 * so no client, session or Powertools cache of one tenant serves another.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { awsRequestHandler } from '../aws/http-timeouts';
import { assumeRole, SessionCache } from '../aws/sts';
import { clampSessionDuration, readerSessionName, sourceIdentityOf, TENANT_TAG } from '../aws/trust';
import { boundedCache } from '../bounded-cache';
import { PlatformError } from '../errors';
import type { SecretReference, SecretReferenceStore } from './reference';
import { SecretResolver, type SecretResolverOptions } from './resolver';
import type { SecretsManagerSecretProvider } from './secrets-manager-provider';
import type { SecretValueProvider } from './value-provider';
import type { TenantSessionSource } from './vended';

/**
 * The variable the CDK gives the dispatcher (the vendor): the JSON map of each
 * secret name a tool lists to that name's reader role ARN (`{"aws_default":"arn:aws:iam::…:role/…"}`).
 */
export const SECRET_READER_ROLES_ENV = 'SECRET_READER_ROLES';

/** Secret name → reader role ARN. */
export type SecretReaderRoles = Readonly<Record<string, string>>;

/** Tenant sessions (and their clients) kept per container, least recently used out first. */
export const MAX_TENANT_SESSIONS = 256;

const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/**
 * Reads {@link SECRET_READER_ROLES_ENV}.
 *
 * @throws Error naming what is wrong: a deployment fault, so the function's first call fails loudly.
 */
export function parseSecretReaderRoles(text: string): SecretReaderRoles {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${SECRET_READER_ROLES_ENV} is not JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${SECRET_READER_ROLES_ENV} must map secret names to reader role ARNs`);
  }
  const roles: Record<string, string> = Object.create(null);
  for (const [name, arn] of Object.entries(parsed)) {
    if (typeof arn !== 'string' || !ROLE_ARN.test(arn)) {
      throw new Error(`${SECRET_READER_ROLES_ENV}: the reader role of ${name} is not a role ARN`);
    }
    roles[name] = arn;
  }
  return roles;
}

/** Options of {@link TenantSecretSessions}. */
export interface TenantSecretSessionsOptions {
  /** @default {@link MAX_TENANT_SESSIONS} */
  readonly maxSessions?: number;
  /** Clock, epoch ms (tests). */
  readonly now?: () => number;
  /** Assumes a role (tests). @default STS AssumeRole in the platform's region */
  readonly assume?: typeof assumeRole;
}

/**
 * Reader sessions per (tenant, secret name): STS AssumeRole of the name's reader
 * role in the platform's region, tagged `etp-tenant=<tenant>`, with SourceIdentity
 * `etp.<tenant>` and 1 hour (the role-chaining cap), cached until 5 minutes before
 * expiry in a bounded cache.
 */
export class TenantSecretSessions implements TenantSessionSource {
  readonly #sessions: SessionCache;
  readonly #assume: typeof assumeRole;

  constructor(
    private readonly roles: SecretReaderRoles,
    options: TenantSecretSessionsOptions = {},
  ) {
    this.#sessions = new SessionCache({ max: options.maxSessions ?? MAX_TENANT_SESSIONS, now: options.now });
    this.#assume = options.assume ?? assumeRole;
  }

  /** Sessions held. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * The credentials provider of the tenant's reader session for `secretName`;
   * given `policy` (an IAM policy document as JSON), a session narrowed by it
   * (STS AssumeRole `Policy`: the session may do what both the role and the policy
   * allow), cached apart from the unnarrowed one.
   *
   * @throws PlatformError (`internal_error`) when the function has no reader role for
   *   the name: its spec does not list it (IAM would refuse the read anyway).
   */
  credentials(tenant: string, secretName: string, policy?: string): AwsCredentialIdentityProvider {
    const roleArn = Object.hasOwn(this.roles, secretName) ? this.roles[secretName] : undefined;
    if (!roleArn) {
      throw new PlatformError(
        'internal_error',
        `This function may not read secret "${secretName}": its spec does not list it`,
      );
    }
    const key = JSON.stringify(policy === undefined ? [tenant, secretName] : [tenant, secretName, policy]);
    return (): Promise<AwsCredentialIdentity> =>
      this.#sessions.get(key, () =>
        this.#assume({
          RoleArn: roleArn,
          RoleSessionName: readerSessionName(tenant),
          DurationSeconds: clampSessionDuration(),
          SourceIdentity: sourceIdentityOf(tenant),
          Tags: [{ Key: TENANT_TAG, Value: tenant }],
          ...(policy === undefined ? {} : { Policy: policy }),
        }),
      );
  }
}

/** Builds the DynamoDB client of one reader session. */
export type ScopedDynamoDbClientFactory = (credentials: AwsCredentialIdentityProvider) => DynamoDBClient;

function dynamoDbClientWith(credentials: AwsCredentialIdentityProvider): DynamoDBClient {
  const { DynamoDBClient } = require('@aws-sdk/client-dynamodb') as typeof import('@aws-sdk/client-dynamodb');
  return new DynamoDBClient({ credentials, requestHandler: awsRequestHandler() });
}

function scopeKey(tenant: string, secretName: string, ...more: string[]): string {
  return JSON.stringify([tenant, secretName, ...more]);
}

/**
 * One object per (tenant, secret name) — a client, a store, a provider — built on
 * first use with that pair's reader session and kept, bounded and least recently
 * used out first, so no client or cache of one pair serves another.
 */
function perReaderSession<T extends {}>(
  sessions: TenantSessionSource,
  build: (credentials: AwsCredentialIdentityProvider) => T,
  dispose?: (value: T) => void,
): (tenant: string, secretName: string) => T {
  const built = boundedCache<string, T>({
    max: MAX_TENANT_SESSIONS,
    ttlMs: 24 * 3_600_000,
    ...(dispose ? { dispose } : {}),
  });
  return (tenant, secretName) => {
    const key = scopeKey(tenant, secretName);
    let value = built.get(key);
    if (!value) {
      value = build(sessions.credentials(tenant, secretName));
      built.set(key, value);
    }
    return value;
  };
}

/**
 * The reference table as a deployed tool function reads it: each (tenant, secret
 * name) through its own reader session and client, so IAM checks the partition
 * key against the session's tenant. Reads only: a tool never lists or writes.
 */
export class TenantScopedReferenceStore implements SecretReferenceStore {
  readonly #storeOf;

  constructor(
    readonly tableName: string,
    sessions: TenantSessionSource,
    createClient: ScopedDynamoDbClientFactory = dynamoDbClientWith,
  ) {
    this.#storeOf = perReaderSession(
      sessions,
      (credentials) => {
        const { DynamoDbSecretReferenceStore } =
          require('./dynamodb-store') as typeof import('./dynamodb-store');
        const client = createClient(credentials);
        return { store: new DynamoDbSecretReferenceStore(tableName, client), client };
      },
      ({ client }) => client.destroy(),
    );
  }

  get(tenantId: string, secretName: string): Promise<SecretReference | undefined> {
    return this.#storeOf(tenantId, secretName).store.get(tenantId, secretName);
  }

  list(): Promise<SecretReference[]> {
    return Promise.reject(readOnly('list'));
  }

  put(): Promise<SecretReference> {
    return Promise.reject(readOnly('put'));
  }

  delete(): Promise<boolean> {
    return Promise.reject(readOnly('delete'));
  }
}

function readOnly(operation: string): PlatformError {
  return new PlatformError(
    'internal_error',
    `A tool function reads secret references, it never ${operation}s them (etp secrets does)`,
  );
}

/**
 * `ref_kind: secrets_manager` as a deployed tool function reads it: one
 * {@link SecretsManagerSecretProvider} (its clients and its Powertools cache) per
 * (tenant, secret name), signing with that pair's reader session. A shared
 * provider would serve tenant U a value cached for tenant T by ARN, with no IAM
 * check (a row of U pointing at T's secret): keyed this way, U's read goes to
 * Secrets Manager with U's session, and IAM refuses it.
 */
export class TenantScopedSecretsManager implements SecretValueProvider {
  readonly #providerOf;

  constructor(sessions: TenantSessionSource) {
    this.#providerOf = perReaderSession(sessions, (credentials): SecretsManagerSecretProvider => {
      const loaded = require('./secrets-manager-provider') as typeof import('./secrets-manager-provider');
      return new loaded.SecretsManagerSecretProvider((region) =>
        loaded.secretsManagerClient(region, credentials),
      );
    });
  }

  read(reference: SecretReference, maxAgeSeconds: number): Promise<string> {
    return this.#providerOf(reference.tenant_id, reference.secret_name).read(reference, maxAgeSeconds);
  }
}

/**
 * `ref_kind: inline` as a deployed tool function reads it: KMS Decrypt with the
 * (tenant, secret name) pair's reader session, one client per pair. The key
 * policy lets only reader sessions decrypt, and only under the context of their
 * own tenant tag and name (docs/inline-secrets.md), so a row of U holding T's
 * ciphertext decrypts nothing: the row's own (tenant, name) is the context asked.
 */
export class TenantScopedInline implements SecretValueProvider {
  readonly #clientOf;

  constructor(sessions: TenantSessionSource) {
    this.#clientOf = perReaderSession(
      sessions,
      (credentials): KMSClient =>
        (require('./inline-kms') as typeof import('./inline-kms')).kmsClient(credentials),
      (client) => client.destroy(),
    );
  }

  read(reference: SecretReference): Promise<string> {
    const { openInlineValue } = require('./inline-kms') as typeof import('./inline-kms');
    return openInlineValue(this.#clientOf(reference.tenant_id, reference.secret_name), reference);
  }
}

/**
 * `ref_kind: env` in a deployed function: refused. An environment variable of
 * the function is readable by every tenant's calls and no IAM policy tells them
 * apart; deployed secrets live in Secrets Manager (local runs read env refs).
 */
export const DEPLOYED_ENV_PROVIDER: SecretValueProvider = {
  read: (reference) =>
    Promise.reject(
      new PlatformError(
        'unsupported_ref_kind',
        `Secret "${reference.secret_name}" of tenant "${reference.tenant_id}" is an env reference: deployed tools ` +
          'read secrets from Secrets Manager only, where IAM keeps tenants apart. Store it in Secrets Manager ' +
          'and seed a secrets_manager reference (etp secrets seed)',
      ),
    ),
};

/**
 * The secret resolver of a deployed tool function: reference rows, Secrets
 * Manager values and inline values (KMS) read through tenant-scoped reader
 * sessions (those the call was vended, a {@link TenantSessionSource}; or, given
 * the reader roles, sessions it assumes itself: tests and benches), `env`
 * references refused, no environment-variable convention fallback.
 *
 * @example
 * const resolver = deployedSecretResolver(table, parseSecretReaderRoles(process.env.SECRET_READER_ROLES!));
 */
export function deployedSecretResolver(
  tableName: string,
  roles: SecretReaderRoles | TenantSessionSource,
  options: Omit<SecretResolverOptions, 'providers' | 'conventionFallback'> = {},
): SecretResolver {
  const sessions =
    typeof (roles as TenantSessionSource).credentials === 'function'
      ? (roles as TenantSessionSource)
      : new TenantSecretSessions(roles as SecretReaderRoles, { now: options.now });
  return new SecretResolver(new TenantScopedReferenceStore(tableName, sessions), {
    ...options,
    providers: {
      env: DEPLOYED_ENV_PROVIDER,
      secrets_manager: new TenantScopedSecretsManager(sessions),
      inline: new TenantScopedInline(sessions),
    },
    conventionFallback: false,
  });
}
