/**
 * The console's tenant isolation by IAM (docs/console.md, "Authorization"): the
 * API function's own role holds no right on the secret references, the run
 * records, the run workspaces or the secrets' tags; it reaches them only through a
 * session of the console tenant role tagged `etp-tenant=<tenant>`, opened for the
 * tenant of the request's path after the router has checked that the user's
 * Cognito groups name it. That role's policies (lib/console.ts) allow only items
 * whose partition key is the session's tenant (`dynamodb:LeadingKeys`), objects and
 * listings under `runs/<tenant>/` and DescribeSecret on secrets tagged for the tenant.
 */
import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { boundedCache } from '../runtime/bounded-cache';
import {
  MAX_TENANT_SESSIONS,
  parseSecretReaderRoles,
  TenantSecretSessions,
} from '../runtime/secrets/tenant-scope';

/** The variable the CDK gives the console function: the ARN of the console tenant role. */
export const CONSOLE_TENANT_ROLE_ENV = 'CONSOLE_TENANT_ROLE';

/** The IAM path of the console function's role: the one path the console tenant role trusts. */
export const CONSOLE_ROLE_PATH = '/etp-console/';

/** The console tenant role's name among the tenant sessions (no secret name holds a colon). */
const CONSOLE_SESSION = 'etp:console';

/** How long a tenant's clients are kept, ms: their credentials renew themselves (`TenantSecretSessions`). */
const TENANT_CLIENTS_TTL_MS = 3_600_000;

/**
 * The tenant-tagged sessions of the role `roleArn`: STS AssumeRole with the session
 * tag `etp-tenant=<tenant>`, SourceIdentity `etp.<tenant>`, cached per tenant
 * (at most {@link MAX_TENANT_SESSIONS}) until 5 minutes before expiry.
 *
 * @throws Error when `roleArn` is not a role ARN: a deployment fault, so the init fails loudly.
 */
export function consoleTenantCredentials(roleArn: string): (tenant: string) => AwsCredentialIdentityProvider {
  let sessions: TenantSecretSessions;
  try {
    sessions = new TenantSecretSessions(
      parseSecretReaderRoles(JSON.stringify({ [CONSOLE_SESSION]: roleArn })),
    );
  } catch {
    throw new Error(`${CONSOLE_TENANT_ROLE_ENV} is not a role ARN`);
  }
  return (tenant) => sessions.credentials(tenant, CONSOLE_SESSION);
}

/**
 * One value per tenant built by `build` on first use and kept (at most
 * {@link MAX_TENANT_SESSIONS} tenants, least recently used first out, one hour each):
 * the console's per-tenant clients, so a warm container does not open a TLS
 * connection per request nor hold clients of every tenant it ever served.
 */
export function perTenant<V extends {}>(build: (tenant: string) => V): (tenant: string) => V {
  const cache = boundedCache<string, V>({ max: MAX_TENANT_SESSIONS, ttlMs: TENANT_CLIENTS_TTL_MS });
  return (tenant) => {
    let value = cache.get(tenant);
    if (!value) {
      value = build(tenant);
      cache.set(tenant, value);
    }
    return value;
  };
}
