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
import { RUN_DATA_SESSION } from './secrets/vended';
import type { WorkspaceScope } from './workspace';
import { workspaceRoot } from './workspace-path';

/**
 * The variable the CDK gives the dispatcher and the engine: the ARN of the
 * run-data role (lib/tenant-secret-readers.ts, `TenantRunData`). Unset in local
 * runs and tests: run data is then read with the process's own credentials.
 */
export const RUN_DATA_ROLE_ENV = 'RUN_DATA_ROLE';

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

/** What a call's run-data session may reach in one run's workspace: a workspace tool's files (ToolSpec.workspaceAccess), its claim-checked results, or both. */
export interface WorkspaceSessionScope {
  /** The ARN partition of the bucket (`aws`, `aws-cn`, `aws-us-gov`). */
  readonly partition: string;
  /** The run workspaces' bucket (`RUN_BUCKET`). */
  readonly bucket: string;
  /** The call's tenant, scenario and run: whose workspace. */
  readonly run: WorkspaceScope;
  /** Files relative to the workspace root (`snapshots/findings.json`; IAM wildcards allowed, as in the spec); empty for a tool without `workspaceAccess`. */
  readonly paths: readonly string[];
  readonly access: 'read' | 'read_write';
  /**
   * Whether the tool's function claim-checks its own result (a plan call that
   * answers its task token, functions/runtime/tool-callback.ts): `s3:PutObject`
   * on the run's `results/*` (functions/runtime/claim-check.ts, `claimCheckPath`).
   */
  readonly claimChecks?: boolean;
}

/**
 * The session policy (IAM JSON, for STS AssumeRole `Policy`) that narrows a
 * run-data session to what one call needs: for a workspace tool, `s3:GetObject`
 * (and `s3:PutObject` for `read_write`) on the listed files of the call's own
 * workspace (`runs/<tenant>/<scenario>/<runId>/<path>`, `scratch/<tenant>/<runId>/<path>`)
 * and `s3:ListBucket` for exactly those keys as prefixes (so a missing file reads
 * as missing, not as refused); for a call that claim-checks its own result,
 * `s3:PutObject` on the run's `results/*`. The role's own policy already confines the session
 * to its tenant's prefixes; this leaves the tool no other run's and no other file.
 * Well under STS's 2,048-character packed limit for the specs' paths (STS API
 * reference, "AssumeRole", Policy).
 *
 * @throws InvalidArgsError when the run's identifiers cannot name a workspace.
 * @example workspaceSessionPolicy({ partition: 'aws', bucket: 'b', run: { tenant: 'acme', scenario: 's', runId: 'r1' }, paths: ['snapshots/findings.json'], access: 'read' })
 */
export function workspaceSessionPolicy(scope: WorkspaceSessionScope): string {
  const root = workspaceRoot(scope.run);
  const keys = scope.paths.map((path) => `${root}${path}`);
  const bucketArn = `arn:${scope.partition}:s3:::${scope.bucket}`;
  const files =
    keys.length === 0
      ? []
      : [
          {
            Effect: 'Allow',
            Action: scope.access === 'read' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject'],
            Resource: keys.map((key) => `${bucketArn}/${key}`),
          },
          {
            Effect: 'Allow',
            Action: ['s3:ListBucket'],
            Resource: [bucketArn],
            Condition: { StringLike: { 's3:prefix': keys } },
          },
        ];
  const results = scope.claimChecks
    ? [{ Effect: 'Allow', Action: ['s3:PutObject'], Resource: [`${bucketArn}/${root}results/*`] }]
    : [];
  return JSON.stringify({ Version: '2012-10-17', Statement: [...files, ...results] });
}
