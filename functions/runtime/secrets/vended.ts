/**
 * Tenant credentials vended by the trusted edge (the "token vending machine" of
 * AWS's SaaS guidance; docs/tenant-isolation.md). The dispatcher knows the call's
 * tenant from the envelope it checked (or the access profile); it assumes the
 * reader role of each secret name the tool's spec lists, with the session tag
 * `etp-tenant=<tenant>`, and sends the tool those sessions' credentials in the
 * invocation, beside the envelope's fields. A tool role may assume no reader
 * role: whatever a tool's code does, it reads with the sessions it was handed,
 * which IAM confines to the call's tenant and the names its spec lists.
 *
 * The credentials travel only in the Lambda invocation payload (which Lambda
 * neither logs nor stores, and CloudTrail does not record): `invocationOf` drops
 * them before the harness sees the call, the tool function keeps them only for
 * the call, and their secret parts are masked by exact match in everything the
 * call returns or logs.
 */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { PlatformError } from '../errors';

/**
 * The key of a write tool's exactly-once records session among the vended
 * sessions (no secret name holds a colon): a session of the records role, tagged
 * with the call's tenant, that reaches only that tenant's idempotency items.
 */
export const IDEMPOTENCY_SESSION = 'etp:idempotency';

/**
 * The key of a workspace tool's run-data session among the vended sessions: a
 * session of the run-data role (lib/tenant-secret-readers.ts, `TenantRunData`)
 * tagged with the call's tenant and narrowed by a session policy to the files the
 * tool's spec names (`workspaceAccess`) in the call's own run workspace
 * (functions/runtime/run-data-sessions.ts, `workspaceSessionPolicy`).
 */
export const RUN_DATA_SESSION = 'etp:runs';

/** The invocation's field that carries the vended sessions: secret name → credentials. */
export const VENDED_CREDENTIALS_FIELD = 'vendedCredentials';

/**
 * The variable the CDK sets on a tool function whose secrets are read with
 * vended sessions (`vended`): the function assumes no role to read them.
 */
export const SECRET_SESSIONS_ENV = 'SECRET_SESSIONS';

/** One vended session as JSON: STS AssumeRole's credentials, `expiration` an ISO 8601 instant. */
export interface VendedSession {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  readonly expiration: string;
}

/** What the dispatcher adds to an invocation: the tenant the sessions are for, and one session per secret name. */
export interface VendedCredentials {
  readonly tenant: string;
  readonly sessions: Readonly<Record<string, VendedSession>>;
}

/** Where a tenant's reader sessions come from: assumed (the vendor) or handed over (a tool function). */
export interface TenantSessionSource {
  /**
   * The credentials provider of the tenant's reader session for `secretName`,
   * narrowed by the session policy `policy` (IAM JSON) when one is given.
   */
  credentials(tenant: string, secretName: string, policy?: string): AwsCredentialIdentityProvider;
}

function toJson(credentials: AwsCredentialIdentity): VendedSession {
  if (!credentials.sessionToken || !credentials.expiration) {
    throw new PlatformError('internal_error', 'A vended session lacks its session token or expiration');
  }
  return {
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    sessionToken: credentials.sessionToken,
    expiration: credentials.expiration.toISOString(),
  };
}

/**
 * The vendor: the dispatcher's half. Opens (or reuses: `TenantSecretSessions` caches them)
 * the tenant's reader session of each secret name a tool lists.
 *
 * @example
 * const vendor = new CredentialVendor(new TenantSecretSessions(parseSecretReaderRoles(roles)));
 * const vended = await vendor.vend('acme', ['slack_default']);
 */
export class CredentialVendor {
  constructor(private readonly sessions: TenantSessionSource) {}

  /**
   * Sessions for `tenant`, one per name of `secretNames`, each narrowed by its
   * session policy in `policies` when it has one.
   *
   * @throws the STS error (`access_denied`, `throttled`…) when a reader role cannot be assumed.
   */
  async vend(
    tenant: string,
    secretNames: readonly string[],
    policies: Readonly<Record<string, string>> = {},
  ): Promise<VendedCredentials> {
    const sessions: Record<string, VendedSession> = {};
    for (const name of [...new Set(secretNames)]) {
      const policy = Object.hasOwn(policies, name) ? policies[name] : undefined;
      sessions[name] = toJson(await this.sessions.credentials(tenant, name, policy)());
    }
    return { tenant, sessions };
  }
}

const SESSION_FIELDS = ['accessKeyId', 'secretAccessKey', 'sessionToken', 'expiration'] as const;

/**
 * The vended credentials an invocation carries, narrowed, or undefined when it carries none.
 *
 * @throws PlatformError (`internal_error`) when the field is there but malformed: the
 *   dispatcher built it, so this is a deployment fault, reported without the values.
 */
export function vendedCredentialsOf(event: unknown): VendedCredentials | undefined {
  if (event === null || typeof event !== 'object' || !Object.hasOwn(event, VENDED_CREDENTIALS_FIELD)) {
    return undefined;
  }
  const value = (event as Record<string, unknown>)[VENDED_CREDENTIALS_FIELD];
  const malformed = () =>
    new PlatformError('internal_error', `The invocation's ${VENDED_CREDENTIALS_FIELD} is malformed`);
  if (value === null || typeof value !== 'object') throw malformed();
  const { tenant, sessions } = value as Record<string, unknown>;
  if (typeof tenant !== 'string' || sessions === null || typeof sessions !== 'object') throw malformed();
  const narrowed: Record<string, VendedSession> = Object.create(null);
  for (const [name, session] of Object.entries(sessions)) {
    if (session === null || typeof session !== 'object') throw malformed();
    const fields = session as Record<string, unknown>;
    if (SESSION_FIELDS.some((field) => typeof fields[field] !== 'string')) throw malformed();
    narrowed[name] = session as VendedSession;
  }
  return { tenant, sessions: narrowed };
}

/**
 * The secret strings of vended credentials (secret keys and session tokens): what
 * the call masks by exact match wherever it could be echoed.
 */
export function vendedSecretStrings(vended: VendedCredentials | undefined): string[] {
  if (!vended) return [];
  return Object.values(vended.sessions).flatMap((session) => [session.secretAccessKey, session.sessionToken]);
}

/**
 * A tool function's reader sessions: those the current call was handed, and no
 * other. {@link accept} takes a call's credentials, {@link clear} drops them when it
 * ends; a read with no session vended for its tenant and name fails.
 */
export class VendedSessions implements TenantSessionSource {
  #current: VendedCredentials | undefined;

  /** Holds `vended` for the call about to run (undefined: the call was handed none). */
  accept(vended: VendedCredentials | undefined): void {
    this.#current = vended;
  }

  /** The secret parts of the call's credentials, for exact-match masking. */
  secretStrings(): string[] {
    return vendedSecretStrings(this.#current);
  }

  /** Drops the call's credentials. */
  clear(): void {
    this.#current = undefined;
  }

  credentials(tenant: string, secretName: string): AwsCredentialIdentityProvider {
    return () => {
      const current = this.#current;
      const session =
        current && current.tenant === tenant && Object.hasOwn(current.sessions, secretName)
          ? current.sessions[secretName]
          : undefined;
      if (!session) {
        return Promise.reject(
          new PlatformError(
            'internal_error',
            `No session was vended for secret "${secretName}" of tenant "${tenant}": the dispatcher vends one ` +
              "per secret name the tool's spec lists, for the call's tenant only",
          ),
        );
      }
      return Promise.resolve({
        accessKeyId: session.accessKeyId,
        secretAccessKey: session.secretAccessKey,
        sessionToken: session.sessionToken,
        expiration: new Date(session.expiration),
      });
    };
  }
}
