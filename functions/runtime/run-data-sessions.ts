/**
 * Run data confined to the call's tenant by IAM (docs/tenant-isolation.md, "Run
 * records and run workspaces"): the dispatcher and the engine reach the run
 * workspaces (`runs/<tenant>/…`, `scratch/<tenant>/…`) and the run-records table
 * only through a session of the run-data role tagged `etp-tenant=<tenant>`, whose
 * policy allows `runs/${aws:PrincipalTag/etp-tenant}/*`, listings under those
 * prefixes and run-record items whose partition key is the session's tenant
 * (`dynamodb:LeadingKeys`). Their own roles hold no right on the bucket or the table.
 */
import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { parseSecretReaderRoles, TenantSecretSessions } from './secrets/tenant-scope';

/**
 * The variable the CDK gives the dispatcher and the engine: the ARN of the
 * run-data role (lib/tenant-secret-readers.ts, `TenantRunData`). Unset in local
 * runs and tests: run data is then read with the process's own credentials.
 */
export const RUN_DATA_ROLE_ENV = 'RUN_DATA_ROLE';

/**
 * The run-data role's name among the tenant sessions (no secret name holds a colon),
 * and the name of its session in a callback invocation's vended credentials.
 */
export const RUN_DATA_SESSION = 'etp:runs';

/** The credentials provider of one tenant's run-data session. */
export type TenantCredentials = (tenant: string) => AwsCredentialIdentityProvider;

/**
 * The tenant-tagged sessions of the run-data role named by {@link RUN_DATA_ROLE_ENV}:
 * STS AssumeRole in the platform's region with the session tag `etp-tenant=<tenant>`,
 * SourceIdentity `etp.<tenant>`, one hour, cached per tenant (bounded) until
 * 5 minutes before expiry (`TenantSecretSessions`), or undefined when the variable is unset.
 *
 * @throws Error when the variable is not a role ARN: a deployment fault, so the init fails loudly.
 * @example
 * const credentials = runDataCredentials(process.env);
 * const workspaces = s3WorkspaceProvider(bucket, undefined, credentials);
 */
export function runDataCredentials(env: NodeJS.ProcessEnv = process.env): TenantCredentials | undefined {
  const arn = env[RUN_DATA_ROLE_ENV];
  if (!arn) return undefined;
  let roles: ReturnType<typeof parseSecretReaderRoles>;
  try {
    roles = parseSecretReaderRoles(JSON.stringify({ [RUN_DATA_SESSION]: arn }));
  } catch {
    throw new Error(`${RUN_DATA_ROLE_ENV} is not a role ARN`);
  }
  const sessions = new TenantSecretSessions(roles);
  return (tenant) => sessions.credentials(tenant, RUN_DATA_SESSION);
}
