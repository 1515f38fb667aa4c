/**
 * The accounts an organization run audits: its selection checked before any
 * request, the organization's tree read with the SDK v3 paginators (roots, OUs
 * and their accounts, a few at a time), and the plan — the ACTIVE accounts to
 * audit, and every selected account that is not audited with why.
 *
 * The Organizations client is the caller's (built from `organizationSession`
 * with `awsClientConfig`), so this module loads `@aws-sdk/client-organizations`
 * only in the functions that list an organization.
 */
import type { Account, OrganizationalUnit, OrganizationsClient, Root } from '@aws-sdk/client-organizations';
import { mapBounded } from '../concurrency';
import type { Deadline } from '../deadline';
import { InvalidArgsError, PlatformError } from '../errors';
import { AWS_ACCOUNT_ID } from '../ids';
import type { AccountPlan, AccountSelection, NotAuditedAccount, OrgAccount } from './organization';
import { readPages } from './pagination';

/** An account id: exactly 12 digits (Organizations API reference, "Account"). */
const ACCOUNT_ID = AWS_ACCOUNT_ID.pattern;
/** An OU id (Organizations API reference, "OrganizationalUnit"). */
const OU_ID = /^ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}$/;
/** A root id (Organizations API reference, "Root"). */
const ROOT_ID = /^r-[0-9a-z]{4,32}$/;

/** What ids a selection accepts, in words. */
const SELECTION_ACCEPTED =
  '"all", or a list of 12-digit account ids, OU ids (ou-…, with their child OUs) and root ids (r-…)';

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

/** How a selection's field treats an account id the organization does not hold. */
type UnknownAccounts =
  /** `accounts`: kept, and reported `NOT_FOUND` (not audited), so the run still audits the others. */
  | 'reported'
  /** `exclude`: refused, as an OU or root the organization does not hold is. */
  | 'refused';

/** `ids, which is|are not <what>`. */
function notHeld(ids: readonly string[], what: string): string {
  return `${ids.join(', ')}, which ${ids.length === 1 ? 'is' : 'are'} not ${what}`;
}

/**
 * Why `field` names ids the organization does not hold, or undefined: the OU and
 * root ids it does not hold, and with `unknownAccounts` `refused` its account ids
 * that are not accounts of the organization.
 */
function unknownIdsProblem(
  ids: readonly string[],
  tree: OrganizationTree,
  field: string,
  unknownAccounts: UnknownAccounts,
): string | undefined {
  const containers = ids.filter((id) => !ACCOUNT_ID.test(id) && !tree.containers.has(id));
  const accounts =
    unknownAccounts === 'refused' ? ids.filter((id) => ACCOUNT_ID.test(id) && !tree.accounts.has(id)) : [];
  const parts = [
    ...(containers.length > 0
      ? [
          `${notHeld(containers, 'an OU or root of the organization')} (it holds ${tree.containers.size} roots and OUs)`,
        ]
      : []),
    ...(accounts.length > 0
      ? [
          `${notHeld(accounts, 'an account of the organization')} (it holds ${tree.accounts.size} accounts: ` +
            `an account outside it is never audited, so leave it out of ${field})`,
        ]
      : []),
  ];
  return parts.length > 0 ? `${field} names ${parts.join('; it also names ')}` : undefined;
}

/**
 * The accounts a selection names: account ids as such, OU and root ids as every
 * account under them.
 *
 * @throws InvalidArgsError naming the OU or root ids that are not in the
 *   organization, and with `unknownAccounts` `refused` the account ids that are not.
 */
function accountsNamed(
  ids: readonly string[],
  tree: OrganizationTree,
  field: string,
  unknownAccounts: UnknownAccounts,
): Set<string> {
  const problem = unknownIdsProblem(ids, tree, field, unknownAccounts);
  if (problem) throw new InvalidArgsError(problem);
  const named = new Set<string>();
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
 * - `exclude` takes accounts out (reported `excluded`); it may name only accounts,
 *   OUs and roots of the organization, as `accounts` may name only its OUs and roots;
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
 *   after reading the tree for an OU or root id the organization does not hold
 *   (in `accounts` or `exclude`), an account id in `exclude` it does not hold, or for a selection that leaves no account to audit (every account selected
 *   excluded, not active or not a member: the error names the selection and why).
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
    : accountsNamed(selection.accounts as readonly string[], tree, 'accounts', 'reported');
  const excluded = accountsNamed(selection.exclude ?? [], tree, 'exclude', 'refused');
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
  if (targets.length === 0) throw nothingToAudit(selection, notAudited);
  return { targets, notAudited };
}

/**
 * The error of a selection that leaves no account to audit: it names the
 * selection and counts why each selected account is left out, so a run never
 * "succeeds" having audited nothing.
 */
function nothingToAudit(
  selection: AccountSelection,
  notAudited: readonly NotAuditedAccount[],
): InvalidArgsError {
  const why = new Map<string, number>();
  for (const account of notAudited) why.set(account.reason, (why.get(account.reason) ?? 0) + 1);
  const named = (ids: readonly string[]) => (ids.length > 0 ? ids.map((id) => `"${id}"`).join(', ') : 'none');
  const accounts = selection.accounts === 'all' ? '"all"' : `[${named(selection.accounts)}]`;
  const reasons = [...why].map(([reason, n]) => `${n} ${reason}`).join('; ');
  return new InvalidArgsError(
    `The selection (accounts ${accounts}, exclude [${named(selection.exclude ?? [])}]) leaves no account to audit` +
      (notAudited.length > 0
        ? `: of ${notAudited.length} ${notAudited.length === 1 ? 'account' : 'accounts'} selected, ${reasons}`
        : ': it selects no account') +
      '. Name accounts, OUs or roots with at least one active member account that exclude does not take out',
  );
}
