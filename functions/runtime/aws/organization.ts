/**
 * An AWS Organization as the unit a tenant audits (docs/organizations.md): the
 * tenant's organization target (its `aws_org_*` secret), the accounts a run
 * selects from the organization's structure and those it never audits, and one
 * attributed session per member account.
 *
 * The Organizations client is the caller's (built from {@link organizationSession}
 * with `awsClientConfig`), so this module loads `@aws-sdk/client-organizations`
 * only in the functions that list an organization.
 */
import type { Account, OrganizationalUnit, OrganizationsClient, Root } from '@aws-sdk/client-organizations';
import * as z from 'zod/mini';
import { builtOnce } from '../built-once';
import { mapBounded } from '../concurrency';
import type { Deadline } from '../deadline';
import { InvalidArgsError, PlatformError, SecretInvalidError, ServiceCallError } from '../errors';
import { AWS_ACCOUNT_ID } from '../ids';
import { normalizeError } from '../normalize-error';
import {
  AWS_REGION_PATTERN,
  type AwsAccess,
  assumedRoleAccess,
  checkCustomerRoleName,
  EXTERNAL_ID_ACCEPTED,
  EXTERNAL_ID_PATTERN,
  IAM_ROLE_ARN_PATTERN,
  parseAwsPayload,
} from './credentials';
import { readPages } from './pagination';
import { platformRegion } from './sts';
import { roleNameOf } from './trust';

/** Secret names of the organization family start with this (`aws_org_default`); checked before `aws_`. */
export const ORG_SECRET_PREFIX = 'aws_org_';

/** The organization target every organization run reads unless told otherwise. */
export { DEFAULT_ORG_SECRET } from '../ids';

/**
 * The variable naming the organization role a deployed function may assume
 * (the CDK sets it to `ORGANIZATION_ROLE_NAME` where it grants that role): when
 * set, a `management_role_arn` naming another role is refused before STS is
 * called; unset (locally), any role is tried.
 */
export const ORGANIZATION_ROLE_NAME_ENV = 'ORGANIZATION_ROLE_NAME';

/** A tenant's organization target, parsed from its `aws_org_*` secret. */
export interface OrgTarget {
  /**
   * The role that reads AWS Organizations (and Cost Explorer) in the management
   * or delegated-administrator account: `arn:aws:iam::<account>:role/<name>`.
   */
  readonly managementRoleArn: string;
  /** The ExternalId the organization role's trust policy requires. */
  readonly externalId?: string;
  /** The audit role's name in every member account (the StackSet's role, `ExternalToolsPlatformAudit`). */
  readonly memberRoleName: string;
  /** The ExternalId of the member roles (the StackSet's parameter). @default {@link externalId} */
  readonly memberExternalId?: string;
  /** Region for regional clients when a tool is not told otherwise. @default the platform's region */
  readonly region?: string;
}

/** IAM role names: 1-64 characters of `[\w+=,.@-]` (IAM API reference, "CreateRole"). */
const ROLE_NAME_PATTERN = /^[\w+=,.@-]{1,64}$/;

const ORG_TARGET_ACCEPTED =
  'management_role_arn, external_id?, member_role_name, member_external_id?, region? ' +
  '(docs/organizations.md, "The organization target")';

const orgTargetSchema = builtOnce(() => {
  const externalId = z.optional(z.string().check(z.regex(EXTERNAL_ID_PATTERN, EXTERNAL_ID_ACCEPTED)));
  return z.strictObject({
    management_role_arn: z.string().check(z.regex(IAM_ROLE_ARN_PATTERN, 'an IAM role ARN')),
    external_id: externalId,
    member_role_name: z.string().check(z.regex(ROLE_NAME_PATTERN, 'an IAM role name')),
    member_external_id: externalId,
    region: z.optional(z.string().check(z.regex(AWS_REGION_PATTERN, 'an AWS region such as eu-west-1'))),
  });
});

/**
 * Parses an `aws_org_*` secret: `{"management_role_arn", "external_id"?,
 * "member_role_name", "member_external_id"?, "region"?}`, strict (an unknown
 * field is refused, never ignored). Also what `etp secrets seed --ref-kind
 * inline` checks a value against (functions/tools/secret-forms.ts).
 *
 * @throws SecretInvalidError (`secret_invalid`) naming the wrong fields, never their values.
 * @example
 * parseOrgTargetSecret({ management_role_arn: 'arn:aws:iam::111122223333:role/ExternalToolsPlatformOrganization',
 *   external_id: 'x1y2z3', member_role_name: 'ExternalToolsPlatformAudit' });
 * // { managementRoleArn: 'arn:aws:iam::111122223333:role/ExternalToolsPlatformOrganization',
 * //   externalId: 'x1y2z3', memberRoleName: 'ExternalToolsPlatformAudit' }
 */
export function parseOrgTargetSecret(value: Record<string, unknown>): OrgTarget {
  const parsed = parseAwsPayload(orgTargetSchema(), value, ORG_TARGET_ACCEPTED, 'AWS organization secret');
  return {
    managementRoleArn: parsed.management_role_arn,
    memberRoleName: parsed.member_role_name,
    ...(parsed.external_id === undefined ? {} : { externalId: parsed.external_id }),
    ...(parsed.member_external_id === undefined ? {} : { memberExternalId: parsed.member_external_id }),
    ...(parsed.region === undefined ? {} : { region: parsed.region }),
  };
}

/** The account id of an IAM role ARN (`arn:aws:iam::111122223333:role/X` → `111122223333`). */
function accountOfRoleArn(roleArn: string): string {
  return roleArn.split(':')[4] as string;
}

/** The partition of an IAM role ARN (`aws`, `aws-us-gov`, `aws-cn`). */
function partitionOfRoleArn(roleArn: string): string {
  return roleArn.split(':')[1] as string;
}

/** The member role of one account: `arn:<partition>:iam::<accountId>:role/<memberRoleName>`. */
export function memberRoleArn(target: OrgTarget, accountId: string): string {
  return `arn:${partitionOfRoleArn(target.managementRoleArn)}:iam::${accountId}:role/${target.memberRoleName}`;
}

// --- Selecting accounts -------------------------------------------------------------------------

/** An account id: exactly 12 digits (Organizations API reference, "Account"). */
const ACCOUNT_ID = AWS_ACCOUNT_ID.pattern;
/** An OU id (Organizations API reference, "OrganizationalUnit"). */
const OU_ID = /^ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}$/;
/** A root id (Organizations API reference, "Root"). */
const ROOT_ID = /^r-[0-9a-z]{4,32}$/;

/** What ids a selection accepts, in words. */
const SELECTION_ACCEPTED =
  '"all", or a list of 12-digit account ids, OU ids (ou-…, with their child OUs) and root ids (r-…)';

/**
 * Which accounts of the organization a run audits.
 *
 * - `accounts`: `"all"` (every ACTIVE account but the management account), or a
 *   list of 12-digit account ids, OU ids (`ou-…`, the accounts of the OU and of
 *   every OU under it) and root ids (`r-…`);
 * - `exclude`: ids of the same forms, taken out of the selection (reported as
 *   not audited, "excluded").
 */
export interface AccountSelection {
  readonly accounts: 'all' | readonly string[];
  readonly exclude?: readonly string[];
}

/** One account a run audits. */
export interface OrgAccount {
  readonly accountId: string;
  /** The account's friendly name (1-50 characters; the id when Organizations gave none). */
  readonly name: string;
  /** Names of the OUs from the root down to the account's parent; `[]` for an account at the root. */
  readonly ouPath?: string[];
}

/** One selected account that is not audited, and why, in plain words. */
export interface NotAuditedAccount {
  readonly accountId: string;
  readonly name?: string;
  /**
   * The account's `State` (`SUSPENDED`, `PENDING_CLOSURE`, `CLOSED`,
   * `PENDING_ACTIVATION`; its deprecated `Status` when no `State` is given),
   * `ACTIVE` for an excluded or management account, `NOT_FOUND` for an id that
   * is not a member of the organization.
   */
  readonly status: string;
  readonly reason: string;
}

/** What {@link resolveAccounts} found. */
export interface AccountPlan {
  /** The ACTIVE accounts to audit, by account id. */
  readonly targets: OrgAccount[];
  /** The selected accounts that are never audited, by account id. */
  readonly notAudited: NotAuditedAccount[];
}

/** Options of {@link resolveAccounts}. */
export interface ResolveAccountsOptions {
  /**
   * Roots and OUs read at once, each with its two listings in flight (so twice as
   * many requests). Organizations throttles at a few requests per second per
   * account (AWS Organizations User Guide, "Quotas": throttling), so the tree is
   * read a few OUs at a time. @default 4
   */
  readonly concurrency?: number;
  /** When it passes, reading stops with an error: a partial organization is never planned. */
  readonly deadline?: Deadline;
}

/**
 * Pages read from one parent at most: 20 accounts a page (ListAccountsForParent's
 * maximum `MaxResults`), 10,000 accounts under one parent, beyond the default
 * quota of accounts in an organization (AWS Organizations User Guide, "Quotas").
 */
const MAX_PAGES_PER_PARENT = 500;

/** An account as listed, with where it sits. */
interface ListedAccount {
  readonly account: Account;
  readonly ouPath: string[];
  /** The ids of the root and every OU above the account. */
  readonly ancestors: ReadonlySet<string>;
}

/** The organization's tree, as read. */
interface OrganizationTree {
  readonly managementAccountId?: string;
  readonly accounts: Map<string, ListedAccount>;
  /** Ids of the roots and OUs met. */
  readonly containers: Set<string>;
}

/** A container to read: a root or an OU, with the names above it. */
interface Parent {
  readonly id: string;
  readonly path: string[];
  readonly ancestors: ReadonlySet<string>;
}

function problemWithId(id: unknown, where: string): string | undefined {
  if (typeof id !== 'string') return `${where} holds a ${typeof id}`;
  if (ACCOUNT_ID.test(id) || OU_ID.test(id) || ROOT_ID.test(id)) return undefined;
  return `${where} holds "${id.slice(0, 80)}"`;
}

/**
 * Checks a selection before any request.
 *
 * @throws InvalidArgsError naming the faulty entry and what is accepted.
 */
export function checkAccountSelection(selection: AccountSelection): void {
  const problems: string[] = [];
  const checkIds = (ids: readonly unknown[], field: string) => {
    ids.forEach((id, i) => {
      const problem = problemWithId(id, `${field}[${i}]`);
      if (problem) problems.push(problem);
    });
  };
  const { accounts, exclude } = selection;
  if (accounts !== 'all') {
    if (!Array.isArray(accounts)) problems.push('accounts is neither "all" nor a list');
    else if (accounts.length === 0) problems.push('accounts is an empty list');
    else checkIds(accounts, 'accounts');
  }
  if (exclude !== undefined) {
    if (!Array.isArray(exclude)) problems.push('exclude is not a list');
    else checkIds(exclude, 'exclude');
  }
  if (problems.length > 0) {
    throw new InvalidArgsError(
      `Invalid account selection: ${problems.join('; ')}. Accepted: ${SELECTION_ACCEPTED}`,
    );
  }
}

function organizationsModule(): typeof import('@aws-sdk/client-organizations') {
  return require('@aws-sdk/client-organizations') as typeof import('@aws-sdk/client-organizations');
}

async function readAll<P, T>(
  pages: AsyncIterable<P>,
  items: (page: P) => readonly T[] | undefined,
  what: string,
  deadline: Deadline | undefined,
): Promise<T[]> {
  const found: T[] = [];
  const read = await readPages(pages, (page) => found.push(...(items(page) ?? [])), {
    maxPages: MAX_PAGES_PER_PARENT,
    deadline,
  });
  if (read.stoppedBy) {
    throw new PlatformError(
      read.stoppedBy === 'deadline' ? 'timeout' : 'upstream_error',
      `Reading ${what} stopped after ${read.pages} pages (${read.stoppedBy}): a partial organization is never audited`,
      { service: 'organizations', retryable: read.stoppedBy === 'deadline' },
    );
  }
  return found;
}

/**
 * Reads the whole organization: DescribeOrganization (the management account),
 * ListRoots, then from each root down, per container, ListOrganizationalUnitsForParent
 * (the child OUs and their names) and ListAccountsForParent (its accounts with
 * their state), a few containers at a time.
 */
async function readOrganization(
  client: OrganizationsClient,
  options: ResolveAccountsOptions,
): Promise<OrganizationTree> {
  const sdk = organizationsModule();
  const { deadline } = options;
  const concurrency = options.concurrency ?? 4;
  const { Organization } = await client.send(new sdk.DescribeOrganizationCommand({}));
  const roots = await readAll(
    sdk.paginateListRoots({ client }, {}),
    (page) => page.Roots,
    'the roots',
    deadline,
  );
  const accounts = new Map<string, ListedAccount>();
  const containers = new Set<string>();
  let level: Parent[] = roots
    .filter((root): root is Root & { Id: string } => typeof root.Id === 'string')
    .map((root) => ({ id: root.Id, path: [], ancestors: new Set([root.Id]) }));
  while (level.length > 0) {
    for (const parent of level) containers.add(parent.id);
    const { settled } = await mapBounded(
      level,
      async (parent) => {
        const [units, members] = await Promise.all([
          readAll(
            sdk.paginateListOrganizationalUnitsForParent({ client }, { ParentId: parent.id }),
            (page) => page.OrganizationalUnits,
            `the OUs of ${parent.id}`,
            deadline,
          ),
          readAll(
            sdk.paginateListAccountsForParent({ client }, { ParentId: parent.id }),
            (page) => page.Accounts,
            `the accounts of ${parent.id}`,
            deadline,
          ),
        ]);
        return { units, members };
      },
      { concurrency },
    );
    const next: Parent[] = [];
    for (const outcome of settled) {
      if (!outcome.ok) throw outcome.error;
      const parent = outcome.item;
      for (const account of outcome.value.members) {
        if (account.Id)
          accounts.set(account.Id, { account, ouPath: parent.path, ancestors: parent.ancestors });
      }
      for (const unit of outcome.value.units.filter(
        (u): u is OrganizationalUnit & { Id: string } => typeof u.Id === 'string',
      )) {
        next.push({
          id: unit.Id,
          path: [...parent.path, unit.Name ?? unit.Id],
          ancestors: new Set([...parent.ancestors, unit.Id]),
        });
      }
    }
    level = next;
  }
  return { managementAccountId: Organization?.MasterAccountId, accounts, containers };
}

/** The account's state: `State` (newer API), else its deprecated `Status`. */
function stateOf(account: Account): string {
  return account.State ?? account.Status ?? 'UNKNOWN';
}

/**
 * Why an account in `state` is never audited, in plain words (AWS Organizations
 * User Guide, "Monitor the state of your AWS accounts").
 */
function reasonOfState(state: string): string {
  switch (state) {
    case 'SUSPENDED':
      return 'suspended: AWS has suspended the account, so its resources cannot be read';
    case 'PENDING_CLOSURE':
      return 'closing: the account is being closed, so it is not audited';
    case 'CLOSED':
      return 'closed: the account is closed (AWS keeps it 90 days before it is gone), so there is nothing to audit';
    case 'PENDING_ACTIVATION':
      return 'not activated: its sign-up was never completed, so the account cannot be used yet';
    default:
      return `its state is ${state}, not ACTIVE, so it is not audited`;
  }
}

const MANAGEMENT_ACCOUNT_REASON =
  'the management account: the StackSet never deploys the audit role there (service-managed StackSets ' +
  'skip the management account), so it is audited only when named in accounts with CustomerAccessStack deployed there';

/**
 * The accounts a selection names: account ids as such, OU and root ids as every
 * account under them.
 *
 * @throws InvalidArgsError naming the OU or root ids that are not in the organization.
 */
function accountsNamed(ids: readonly string[], tree: OrganizationTree, field: string): Set<string> {
  const named = new Set<string>();
  const unknown = ids.filter((id) => !ACCOUNT_ID.test(id) && !tree.containers.has(id));
  if (unknown.length > 0) {
    throw new InvalidArgsError(
      `${field} names ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not an OU or root of the ` +
        `organization (it holds ${tree.containers.size} roots and OUs)`,
    );
  }
  for (const id of ids) {
    if (ACCOUNT_ID.test(id)) named.add(id);
    else for (const [accountId, listed] of tree.accounts) if (listed.ancestors.has(id)) named.add(accountId);
  }
  return named;
}

/**
 * The accounts a run audits, and those it never audits with the reason.
 *
 * Reads the organization's whole tree (so every account comes with its OU path)
 * with the SDK v3 paginators, then selects:
 *
 * - `"all"`: every account of the organization; the management account is
 *   reported not audited ({@link MANAGEMENT_ACCOUNT_REASON}) unless an id list names it;
 * - ids: the accounts named, and those under each OU or root named;
 * - `exclude` takes accounts out (reported `excluded`);
 * - an account whose `State` (or deprecated `Status`) is not `ACTIVE` is never
 *   audited: SUSPENDED, PENDING_CLOSURE, CLOSED and PENDING_ACTIVATION accounts
 *   are reported with the reason in plain words; an account id that is not a
 *   member of the organization is reported `NOT_FOUND`.
 *
 * Requests: DescribeOrganization, ListRoots, and per root or OU one
 * ListOrganizationalUnitsForParent and one ListAccountsForParent (more pages for
 * more than 20 children), `options.concurrency` at a time.
 *
 * @throws InvalidArgsError before any request for a malformed selection, and
 *   after reading the tree for an OU or root id the organization does not hold.
 * @throws the Organizations error as it came (`AccessDeniedException`,
 *   `AWSOrganizationsNotInUseException`, `TooManyRequestsException` after the
 *   SDK's retries): `normalizeError` maps it; a partial organization is never planned.
 * @example
 * const plan = await resolveAccounts(client, { accounts: ['ou-ab12-cdef3456'], exclude: ['111122223333'] });
 * // { targets: [{ accountId: '444455556666', name: 'prod', ouPath: ['Workloads'] }],
 * //   notAudited: [{ accountId: '111122223333', name: 'sandbox', status: 'ACTIVE', reason: 'excluded: …' }] }
 */
export async function resolveAccounts(
  client: OrganizationsClient,
  selection: AccountSelection,
  options: ResolveAccountsOptions = {},
): Promise<AccountPlan> {
  checkAccountSelection(selection);
  const tree = await readOrganization(client, options);
  const implicit = selection.accounts === 'all';
  const selected = implicit
    ? new Set(tree.accounts.keys())
    : accountsNamed(selection.accounts as readonly string[], tree, 'accounts');
  const excluded = accountsNamed(selection.exclude ?? [], tree, 'exclude');
  const explicitIds = new Set(implicit ? [] : (selection.accounts as readonly string[]));

  const targets: OrgAccount[] = [];
  const notAudited: NotAuditedAccount[] = [];
  for (const accountId of [...selected].sort()) {
    const listed = tree.accounts.get(accountId);
    if (!listed) {
      notAudited.push({
        accountId,
        status: 'NOT_FOUND',
        reason: 'not a member of the organization, so the platform has no role to read it with',
      });
      continue;
    }
    const name = listed.account.Name ?? accountId;
    const state = stateOf(listed.account);
    if (excluded.has(accountId)) {
      notAudited.push({ accountId, name, status: state, reason: 'excluded by the run’s exclude list' });
    } else if (state !== 'ACTIVE') {
      notAudited.push({ accountId, name, status: state, reason: reasonOfState(state) });
    } else if (accountId === tree.managementAccountId && !explicitIds.has(accountId)) {
      notAudited.push({ accountId, name, status: state, reason: MANAGEMENT_ACCOUNT_REASON });
    } else {
      targets.push({ accountId, name, ouPath: listed.ouPath });
    }
  }
  return { targets, notAudited };
}

// --- Sessions -----------------------------------------------------------------------------------

/** Who a member-account (or organization) session is opened for. */
export interface MemberSessionRequest {
  readonly tenant: string;
  readonly runId: string;
  /** Tagged `etp-scenario` (`none` outside a scenario). */
  readonly scenario?: string;
  /** The member account, 12 digits. */
  readonly accountId: string;
  /** The account's name, for error messages. */
  readonly accountName?: string;
  readonly target: OrgTarget;
  /** The call's hard stop, carried into every client built from the access. */
  readonly signal?: AbortSignal;
}

/**
 * A failure to open an organization run's session in one account, naming the
 * account: `auth_failed` when STS refused the AssumeRole (the role is missing,
 * or its trust refuses the ExternalId or the tenant), `throttled` when STS
 * throttled it (retryable), else STS's own normalized code. `details` carry
 * `accountId`, and `awsError` as STS named it.
 */
export class MemberAccountError extends PlatformError {
  override readonly name = 'MemberAccountError';
}

/** Codes of a refused AssumeRole, reported `auth_failed`: the account cannot be reached with its role. */
const REFUSED = new Set(['access_denied', 'auth_failed', 'secret_invalid']);

function sessionFailure(err: unknown, roleArn: string, accountId: string, accountName?: string): unknown {
  const info = normalizeError(
    'organization',
    err instanceof ServiceCallError ? err : new ServiceCallError('sts', err),
  );
  const account = accountName ? `account ${accountId} (${accountName})` : `account ${accountId}`;
  const details = { accountId, ...(info.details?.awsError ? { awsError: info.details.awsError } : {}) };
  if (REFUSED.has(info.code)) {
    return new MemberAccountError(
      'auth_failed',
      `STS refused AssumeRole of ${roleArn} in ${account}: check that the StackSet deployed the role there ` +
        `and that the organization secret's ExternalId matches (${info.message})`,
      { service: 'sts', details, cause: err },
    );
  }
  if (info.code === 'throttled') {
    return new MemberAccountError('throttled', `STS throttled AssumeRole in ${account}: ${info.message}`, {
      service: 'sts',
      retryable: true,
      details,
      cause: err,
    });
  }
  return new MemberAccountError(info.code, `AssumeRole in ${account} failed: ${info.message}`, {
    service: 'sts',
    retryable: info.retryable,
    details,
    cause: err,
  });
}

function checkAccountId(accountId: string): void {
  if (!ACCOUNT_ID.test(accountId)) {
    throw new InvalidArgsError(
      `accountId must be a 12-digit AWS account id, not "${String(accountId).slice(0, 40)}"`,
    );
  }
}

/**
 * The session of one member account of an organization run: AssumeRole of
 * `arn:<partition>:iam::<accountId>:role/<memberRoleName>` with the member
 * ExternalId (the target's `external_id` when it names no `member_external_id`),
 * SourceIdentity `etp.<tenant>`, session tags `etp-tenant`, `etp-scenario`,
 * `etp-run` and `etp-account`, 1 hour (the role-chaining cap). The session is
 * cached per tenant, run and account in the container and renewed 5 minutes
 * before it expires (a run longer than the hour opens a new one on its next
 * request); `invalidate()` drops it when STS said it expired early, which
 * `CallCredentials` does after an `ExpiredToken` (functions/runtime/credential-renewal.ts).
 *
 * The `credentials` provider rejects with a {@link MemberAccountError} naming the
 * account: `auth_failed` when AssumeRole is refused, `throttled` when throttled.
 *
 * @throws InvalidArgsError when `accountId` is not 12 digits.
 * @throws SecretInvalidError when the deployed function may not assume `memberRoleName`.
 * @example
 * const access = memberSession({ tenant: 'acme', runId: 'r1', accountId: '444455556666', target });
 * const ec2 = new EC2Client(awsClientConfig(access, 'eu-west-1'));
 */
export function memberSession(request: MemberSessionRequest): AwsAccess {
  checkAccountId(request.accountId);
  const { target } = request;
  const roleArn = memberRoleArn(target, request.accountId);
  checkCustomerRoleName(roleArn, 'member_role_name');
  return assumedRoleAccess({
    roleArn,
    externalId: target.memberExternalId ?? target.externalId,
    region: target.region ?? platformRegion(),
    owner: {
      tenant: request.tenant,
      runId: request.runId,
      scenario: request.scenario,
      accountId: request.accountId,
    },
    signal: request.signal,
    onFailure: (err) => sessionFailure(err, roleArn, request.accountId, request.accountName),
  });
}

/** Who the organization session is opened for (the management or delegated-administrator account). */
export type OrganizationSessionRequest = Omit<MemberSessionRequest, 'accountId' | 'accountName'>;

/**
 * The session of the organization role (`managementRoleArn`), which lists the
 * organization ({@link resolveAccounts}) and reads its consolidated costs: as
 * {@link memberSession}, with the target's `external_id` and `etp-account` the
 * role's account. A deployed function refuses a role not named as
 * {@link ORGANIZATION_ROLE_NAME_ENV} says.
 *
 * @throws SecretInvalidError when the deployed function may not assume that role.
 */
export function organizationSession(request: OrganizationSessionRequest): AwsAccess {
  const { target } = request;
  const allowed = process.env[ORGANIZATION_ROLE_NAME_ENV];
  if (allowed && roleNameOf(target.managementRoleArn) !== allowed) {
    throw new SecretInvalidError(
      `AWS organization secret is invalid in: management_role_arn. The platform may assume only the role named ` +
        `${allowed} in the management account: deploy OrganizationAccessStack there (docs/organizations.md)`,
    );
  }
  const accountId = accountOfRoleArn(target.managementRoleArn);
  return assumedRoleAccess({
    roleArn: target.managementRoleArn,
    externalId: target.externalId,
    region: target.region ?? platformRegion(),
    owner: { tenant: request.tenant, runId: request.runId, scenario: request.scenario, accountId },
    signal: request.signal,
    onFailure: (err) =>
      sessionFailure(err, target.managementRoleArn, accountId, 'management or delegated administrator'),
  });
}
