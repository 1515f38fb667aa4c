/**
 * The names the platform's IAM trust is built on, shared by the runtime (what a
 * call asks STS for) and the CDK (what the policies allow): the session tags, the
 * resource tags of tenant secrets, the customer-account role name, and the STS
 * session identity rules. docs/tenant-isolation.md explains the model.
 */
import { createHash } from 'node:crypto';

/**
 * Session tag naming the tenant a call acts for. The tenant-secrets reader
 * sessions carry it (their policies compare it with the secret's tag and the
 * table's partition key) and so do the customer-account sessions (CloudTrail,
 * and the customer role's trust policy binds it to one tenant).
 */
export const TENANT_TAG = 'etp-tenant';

/** Session tag naming the scenario of a customer-account session (`none` outside a scenario). */
export const SCENARIO_TAG = 'etp-scenario';

/** Session tag naming the run (Step Functions execution) of a customer-account session. */
export const RUN_TAG = 'etp-run';

/**
 * Session tag naming the member account of an organization run's session
 * (functions/runtime/aws/organization-sessions.ts, `memberSession`), so CloudTrail in the
 * member account and the platform's own records say which account a session was
 * opened for.
 */
export const ACCOUNT_TAG = 'etp-account';

/**
 * The session tag keys a customer role accepts (its trust policy's
 * `aws:TagKeys`): tenant, scenario, run, and the member account of an
 * organization run.
 */
export const CUSTOMER_SESSION_TAG_KEYS = [TENANT_TAG, SCENARIO_TAG, RUN_TAG, ACCOUNT_TAG] as const;

/**
 * Resource tag of a tenant secret in Secrets Manager naming the secret name it
 * serves (`aws_default`): a reader role reads only secrets tagged with its own name.
 * Tenant secrets also carry {@link TENANT_TAG} with their tenant id.
 */
export const SECRET_NAME_TAG = 'etp-secret';

/**
 * Tenant secrets in Secrets Manager are named under this prefix, conventionally
 * `etp/<tenant>/<secret name>` (docs/tenant-isolation.md); reader roles read
 * secrets under it only, and only when their tags match the session.
 */
export const TENANT_SECRET_NAME_PREFIX = 'etp/';

/**
 * The one role name the platform assumes in a customer's account: the read-only
 * audit role `CustomerAccessStack` creates. AWS tool roles may assume a role of
 * this name in any account, and no other role.
 */
export const CUSTOMER_ROLE_NAME = 'ExternalToolsPlatformAudit';

/**
 * The one role name the platform assumes in an organization's management (or
 * delegated-administrator) account to read the organization's structure and its
 * consolidated costs: the role `OrganizationAccessStack` creates beside the
 * StackSet (docs/organizations.md). It may list the organization's accounts and
 * OUs and read Cost Explorer, nothing else.
 */
export const ORGANIZATION_ROLE_NAME = 'ExternalToolsPlatformOrganization';

/**
 * The IAM path of every tool function's role. No tenant-secrets reader role
 * trusts it: a tool gets its reader sessions from the dispatcher (the vendor).
 */
export const TOOL_ROLE_PATH = '/etp-tools/';

/**
 * The IAM path of the role that vends tenant credentials: the dispatcher's, the
 * trusted edge that checked the call's tenant. The tenant-secrets reader roles
 * trust the platform account's roles under this path only (`aws:PrincipalArn`).
 */
export const VENDOR_ROLE_PATH = '/etp-vendor/';

/**
 * The IAM path of the scenario engine's role: besides the vendor, the one role
 * the run-data role trusts (the engine knows a run's tenant from the run's input,
 * as the dispatcher knows a call's from its envelope). The tenant-secrets readers
 * and the exactly-once records role do not trust it.
 */
export const ENGINE_ROLE_PATH = '/etp-engine/';

/**
 * The IAM path of the AWS tool functions' roles (under {@link TOOL_ROLE_PATH}).
 * The customer role trusts the platform account's roles under this path only.
 */
export const AWS_TOOL_ROLE_PATH = '/etp-tools/aws/';

/** Scenario tag value of a call made outside a scenario (`etp tools invoke`). */
export const NO_SCENARIO = 'none';

/**
 * Role chaining — a Lambda function's role session assuming another role —
 * caps the new session at one hour (IAM User Guide, "Roles terms and concepts":
 * role chaining); STS refuses a longer `DurationSeconds`. STS's minimum is 900 s
 * (STS API reference, "AssumeRole").
 */
export const ROLE_CHAINING_MAX_SECONDS = 3600;
const MIN_SESSION_SECONDS = 900;

/**
 * A session length STS accepts for a chained role: `requested` clamped to
 * 900–3,600 s; not a number means the cap.
 *
 * @example clampSessionDuration(43_200) // 3600
 */
export function clampSessionDuration(requested: number = ROLE_CHAINING_MAX_SECONDS): number {
  if (!Number.isFinite(requested)) return ROLE_CHAINING_MAX_SECONDS;
  return Math.min(ROLE_CHAINING_MAX_SECONDS, Math.max(MIN_SESSION_SECONDS, Math.floor(requested)));
}

/** What STS accepts in `RoleSessionName` and `SourceIdentity`: 2–64 of `[\w+=,.@-]` (STS API reference, "AssumeRole"). */
const STS_NAME_CHARS = /[^\w+=,.@-]/g;
const STS_NAME_MAX = 64;

/**
 * `text` as an STS name: characters outside `[\w+=,.@-]` become `-`; a name over
 * 64 characters keeps its first 55 and ends with `.` and 8 hex characters of its
 * SHA-256, so two long names differing only at their end stay distinct.
 */
function stsName(text: string): string {
  const clean = text.replace(STS_NAME_CHARS, '-');
  if (clean.length <= STS_NAME_MAX) return clean.length >= 2 ? clean : `${clean}--`.slice(0, 2);
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 8);
  return `${clean.slice(0, STS_NAME_MAX - 9)}.${digest}`;
}

/**
 * The `SourceIdentity` of every session the platform opens for a tenant:
 * `etp.<tenant>`. STS carries it through CloudTrail on every call the session
 * makes and it cannot be changed down the chain (IAM User Guide, "Monitor and
 * control actions taken with assumed roles").
 *
 * @example sourceIdentityOf('acme') // 'etp.acme'
 */
export function sourceIdentityOf(tenant: string): string {
  return stsName(`etp.${tenant}`);
}

/**
 * The `RoleSessionName` of a run's customer-account session: `etp-<runId>`,
 * 2–64 characters of `[\w+=,.@-]`.
 *
 * @example roleSessionName('run:2024/05 #1') // 'etp-run-2024-05--1'
 */
export function roleSessionName(runId: string): string {
  return stsName(`etp-${runId}`);
}

/**
 * The `RoleSessionName` of a tenant-secrets reader session: `etp-secrets.<tenant>`
 * (2–64 characters of `[\w+=,.@-]`).
 *
 * @example readerSessionName('acme') // 'etp-secrets.acme'
 */
export function readerSessionName(tenant: string): string {
  return stsName(`etp-secrets.${tenant}`);
}

/** One STS session tag. */
export interface SessionTag {
  readonly Key: string;
  readonly Value: string;
}

/** Session tag values: at most 256 characters of `[\p{L}\p{Z}\p{N}_.:/=+\-@]` (STS API reference, "Tag"). */
function tagValue(text: string): string {
  const clean = text.replace(/[^\p{L}\p{Z}\p{N}_.:/=+\-@]/gu, '-').slice(0, 256);
  return clean.length > 0 ? clean : NO_SCENARIO;
}

/**
 * The session tags of a customer-account session: tenant, scenario and run, so
 * CloudTrail attributes every call to them; and, for a member account of an
 * organization run, the account ({@link ACCOUNT_TAG}).
 *
 * @example callSessionTags({ tenant: 'acme', scenario: 'aws_pulse', runId: 'r1' })
 * // [{ Key: 'etp-tenant', Value: 'acme' }, { Key: 'etp-scenario', Value: 'aws_pulse' }, { Key: 'etp-run', Value: 'r1' }]
 */
export function callSessionTags(call: {
  readonly tenant: string;
  readonly scenario?: string;
  readonly runId: string;
  readonly accountId?: string;
}): SessionTag[] {
  return [
    { Key: TENANT_TAG, Value: tagValue(call.tenant) },
    { Key: SCENARIO_TAG, Value: tagValue(call.scenario ?? NO_SCENARIO) },
    { Key: RUN_TAG, Value: tagValue(call.runId) },
    ...(call.accountId ? [{ Key: ACCOUNT_TAG, Value: tagValue(call.accountId) }] : []),
  ];
}

/** The role name of an IAM role ARN (`arn:aws:iam::123456789012:role/path/Name` → `Name`), or undefined. */
export function roleNameOf(roleArn: string): string | undefined {
  return /^arn:aws[a-z-]*:iam::\d{12}:role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]+)$/.exec(roleArn)?.[1];
}
