/**
 * A simulated AWS Organization for tests and benches: N accounts in a tree of
 * OUs, each ACTIVE or not, each with its STS outcome (its audit role assumed,
 * refused, or throttled) and its opt-in regions, answered through
 * aws-sdk-client-mock stubs in the shapes of the AWS API references
 * (Organizations "ListRoots", "ListOrganizationalUnitsForParent",
 * "ListAccountsForParent", "ListAccounts", "ListChildren", "ListParents",
 * "DescribeOrganization"; STS "AssumeRole"; EC2 "DescribeRegions").
 *
 * Plugs into the stubs the scenario harness and the benches use
 * (`StubOf`, test/helpers/api-call-case.ts): {@link arrangeOrganizationWorld}
 * answers Organizations and STS; {@link accountOfClient} tells an AWS tool's
 * stub which member account signed a request (each member session's access key
 * names its account), so per-account answers need no second world.
 */

import {
  CostExplorerClient,
  GetCostAndUsageCommand,
  type GetCostAndUsageCommandInput,
} from '@aws-sdk/client-cost-explorer';
import { DescribeRegionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  type Account,
  DescribeOrganizationCommand,
  ListAccountsCommand,
  ListAccountsForParentCommand,
  ListChildrenCommand,
  ListOrganizationalUnitsForParentCommand,
  ListParentsCommand,
  ListRootsCommand,
  OrganizationsClient,
} from '@aws-sdk/client-organizations';
import { AssumeRoleCommand, type AssumeRoleCommandInput, STSClient } from '@aws-sdk/client-sts';
import { resolveCredentials, type StubOf } from './api-call-case';
import { queryError } from './aws-errors';
import { DEFAULT_ENABLED_REGIONS } from './ec2-pages';

/** What STS answers when the platform assumes an account's role. */
export type StsOutcome = 'ok' | 'refused' | 'throttled';

/** One account's state (Organizations API reference, "Account": `State`). */
export type AccountState = 'ACTIVE' | 'SUSPENDED' | 'PENDING_CLOSURE' | 'CLOSED' | 'PENDING_ACTIVATION';

/** One simulated account. */
export interface WorldAccount {
  readonly accountId: string;
  readonly name: string;
  readonly state: AccountState;
  /** The id of its parent (the root or an OU). */
  readonly parentId: string;
  /** The OU names from the root down to its parent. */
  readonly ouPath: readonly string[];
  readonly sts: StsOutcome;
  /** Opt-in regions enabled in this account, beyond the 17 enabled by default (`ap-east-1`). */
  readonly optInRegions: readonly string[];
  /** What Cost Explorer bills the account over a period, USD as a decimal string (`"1234.5678"`). */
  readonly costUsd: string;
}

/** One simulated OU. */
export interface WorldOu {
  readonly id: string;
  readonly name: string;
  readonly parentId: string;
}

/** A simulated organization. */
export interface OrganizationWorld {
  readonly organizationId: string;
  readonly managementAccountId: string;
  readonly rootId: string;
  readonly ous: readonly WorldOu[];
  /** Every account, the management account first, then by id. */
  readonly accounts: readonly WorldAccount[];
  /** The account of `accountId`. @throws Error when the world has none. */
  account(accountId: string): WorldAccount;
  /** The regions every account has enabled (the 17 of AWS unless the world was told fewer). */
  readonly enabledByDefault: readonly string[];
  /** Whether `region` is enabled in the account: the default regions and its opt-in regions. */
  regionEnabled(accountId: string, region: string): boolean;
}

/** How to build a world: counts of each kind, dealt over the accounts in a fixed order (deterministic). */
export interface OrganizationWorldOptions {
  /** Member accounts, the management account not counted. */
  readonly accounts: number;
  /** OUs under the root; every third one also holds a child OU. @default 3 */
  readonly ous?: number;
  /** Accounts by state other than ACTIVE, e.g. `{ SUSPENDED: 1, CLOSED: 1 }`. @default {} */
  readonly states?: Partial<Record<Exclude<AccountState, 'ACTIVE'>, number>>;
  /** ACTIVE accounts whose role STS refuses. @default 0 */
  readonly refused?: number;
  /** ACTIVE accounts whose AssumeRole STS throttles, every attempt. @default 0 */
  readonly throttled?: number;
  /** ACTIVE accounts with `ap-east-1` enabled (an opt-in region). @default 0 */
  readonly optIn?: number;
  /**
   * The regions enabled in every account, for tests that keep runs short (a subset of
   * the 17 AWS enables by default). @default DEFAULT_ENABLED_REGIONS (17)
   */
  readonly enabledByDefault?: readonly string[];
}

/** The management account of every world. */
export const WORLD_MANAGEMENT_ACCOUNT = '100000000000';
/** The opt-in region some accounts enable (Asia Pacific (Hong Kong), disabled by default). */
export const WORLD_OPT_IN_REGION = 'ap-east-1';

/** Member account `index`'s cost over a period: `<index × 10 + 5>.125`, USD (`"5.125"`, `"15.125"`…), exact in binary too. */
export function worldCostUsd(index: number): string {
  return `${index * 10 + 5}.125`;
}

/** Member account `index` (0-based): `2000000000xx`, 12 digits. */
export function worldAccountId(index: number): string {
  return String(200_000_000_000 + index);
}

/**
 * Builds a world: member accounts dealt round-robin over the root and the OUs;
 * the last accounts take the non-ACTIVE states, then the refused, throttled and
 * opt-in outcomes go to the ACTIVE accounts from the end, so the first accounts
 * are plain ACTIVE ones.
 *
 * @example
 * const world = organizationWorld({ accounts: 50, states: { SUSPENDED: 1 }, refused: 1, throttled: 1, optIn: 1 });
 */
export function organizationWorld(options: OrganizationWorldOptions): OrganizationWorld {
  const rootId = 'r-a1b2';
  const ouCount = options.ous ?? 3;
  const ous: WorldOu[] = [];
  for (let i = 0; i < ouCount; i++) {
    const id = `ou-a1b2-${String(10_000_000 + i)}`;
    ous.push({ id, name: `Workloads-${i}`, parentId: rootId });
    if (i % 3 === 0) ous.push({ id: `ou-a1b2-${String(90_000_000 + i)}`, name: `Team-${i}`, parentId: id });
  }
  const pathOf = (parentId: string): string[] => {
    const ou = ous.find((candidate) => candidate.id === parentId);
    return ou ? [...pathOf(ou.parentId), ou.name] : [];
  };
  const parents = [rootId, ...ous.map((ou) => ou.id)];
  const states: AccountState[] = new Array(options.accounts).fill('ACTIVE');
  let end = options.accounts;
  for (const [state, count] of Object.entries(options.states ?? {}) as [AccountState, number][]) {
    for (let i = 0; i < count; i++) states[--end] = state;
  }
  const outcomes: { sts: StsOutcome; optIn: boolean }[] = states.map(() => ({ sts: 'ok', optIn: false }));
  const deal = (count: number, apply: (outcome: { sts: StsOutcome; optIn: boolean }) => void) => {
    for (let i = 0; i < count; i++) apply(outcomes[--end] as { sts: StsOutcome; optIn: boolean });
  };
  deal(options.refused ?? 0, (outcome) => (outcome.sts = 'refused'));
  deal(options.throttled ?? 0, (outcome) => (outcome.sts = 'throttled'));
  deal(options.optIn ?? 0, (outcome) => (outcome.optIn = true));
  if (end < 0) throw new Error('organizationWorld: more special accounts asked for than accounts');

  const members: WorldAccount[] = states.map((state, index) => {
    const parentId = parents[index % parents.length] as string;
    const outcome = outcomes[index] as { sts: StsOutcome; optIn: boolean };
    return {
      accountId: worldAccountId(index),
      name: `account-${String(index).padStart(4, '0')}`,
      state,
      parentId,
      ouPath: pathOf(parentId),
      sts: outcome.sts,
      optInRegions: outcome.optIn ? [WORLD_OPT_IN_REGION] : [],
      costUsd: worldCostUsd(index),
    };
  });
  const management: WorldAccount = {
    accountId: WORLD_MANAGEMENT_ACCOUNT,
    name: 'management',
    state: 'ACTIVE',
    parentId: rootId,
    ouPath: [],
    sts: 'ok',
    optInRegions: [],
    costUsd: '0.1234',
  };
  const accounts = [management, ...members];
  const byId = new Map(accounts.map((account) => [account.accountId, account]));
  const enabledByDefault = options.enabledByDefault ?? DEFAULT_ENABLED_REGIONS;
  return {
    organizationId: 'o-a1b2c3d4e5',
    managementAccountId: WORLD_MANAGEMENT_ACCOUNT,
    rootId,
    ous,
    accounts,
    enabledByDefault,
    account(accountId) {
      const found = byId.get(accountId);
      if (!found) throw new Error(`organizationWorld: no account ${accountId}`);
      return found;
    },
    regionEnabled(accountId, region) {
      return enabledByDefault.includes(region) || this.account(accountId).optInRegions.includes(region);
    },
  };
}

/** Organizations' page size for accounts and OUs (their APIs' `MaxResults` maximum is 20). */
const PAGE_SIZE = 20;

function page<T>(items: readonly T[], token: string | undefined, max = PAGE_SIZE) {
  const start = token ? Number(token) : 0;
  const size = Math.min(max, PAGE_SIZE);
  const next = start + size < items.length ? String(start + size) : undefined;
  return { items: items.slice(start, start + size), next };
}

/** An account as Organizations answers it: `State`, and the deprecated `Status` where it has a value. */
function accountShape(world: OrganizationWorld, account: WorldAccount): Account {
  const status = ['ACTIVE', 'SUSPENDED', 'PENDING_CLOSURE'].includes(account.state)
    ? (account.state as 'ACTIVE' | 'SUSPENDED' | 'PENDING_CLOSURE')
    : account.state === 'CLOSED'
      ? 'SUSPENDED'
      : undefined;
  return {
    Id: account.accountId,
    Arn: `arn:aws:organizations::${world.managementAccountId}:account/${world.organizationId}/${account.accountId}`,
    Email: `${account.name}@example.com`,
    Name: account.name,
    State: account.state,
    ...(status ? { Status: status } : {}),
    JoinedMethod: account.accountId === world.managementAccountId ? 'CREATED' : 'INVITED',
    JoinedTimestamp: new Date('2024-01-15T09:00:00Z'),
  };
}

/** The access key id of a member session: names the account, so a stub can tell who signed. */
export function worldAccessKeyId(accountId: string): string {
  return `ASIAWORLD${accountId}`;
}

/**
 * The member account whose session signed a mocked client's requests, from the
 * client's credentials ({@link worldAccessKeyId}); undefined for other credentials.
 *
 * @example
 * ec2.on(DescribeVolumesCommand).callsFake(async (_input, getClient) => volumesOf(await accountOfClient(getClient)));
 */
export async function accountOfClient(getClient: () => unknown): Promise<string | undefined> {
  return /^ASIAWORLD(\d{12})$/.exec(await resolveCredentials(getClient))?.[1];
}

/** What {@link arrangeOrganizationWorld} counts. */
export interface WorldCalls {
  /** AssumeRole requests by account id (throttled and refused ones included). */
  readonly assumeRole: Map<string, number>;
  /** Every AssumeRole input, in order (session tags, source identity, ExternalId). */
  readonly assumeRoleInputs: AssumeRoleCommandInput[];
  /** Organizations requests. */
  organizations: number;
}

/**
 * Answers Organizations, STS AssumeRole and EC2 DescribeRegions from the world,
 * on the stubs of `stubOf`:
 *
 * - Organizations' listing APIs page by 20 with `NextToken`;
 * - AssumeRole of `arn:aws:iam::<account>:role/<any>`: credentials whose access
 *   key names the account (`ok`), `AccessDenied` (`refused`, or an account the
 *   world does not hold), `Throttling` (`throttled`); sessions last one hour;
 * - DescribeRegions: the world's default regions and the signing account's opt-in ones.
 *
 * @returns the requests counted, for assertions and benches.
 */
export function arrangeOrganizationWorld(stubOf: StubOf, world: OrganizationWorld): WorldCalls {
  const calls: WorldCalls = { assumeRole: new Map(), assumeRoleInputs: [], organizations: 0 };
  const orgs = stubOf(OrganizationsClient);
  // Each request is signed, as the SDK would sign it: the organization session's credentials are
  // resolved (so a refused or throttled AssumeRole fails the request, as it would the real one).
  const count = async (getClient: () => unknown) => {
    calls.organizations++;
    await accountOfClient(getClient);
  };
  const childrenOf = (parentId: string) => ({
    ous: world.ous.filter((ou) => ou.parentId === parentId),
    accounts: world.accounts.filter((account) => account.parentId === parentId),
  });
  orgs.on(DescribeOrganizationCommand).callsFake(async (_input: unknown, getClient: () => unknown) => {
    await count(getClient);
    return {
      Organization: {
        Id: world.organizationId,
        Arn: `arn:aws:organizations::${world.managementAccountId}:organization/${world.organizationId}`,
        FeatureSet: 'ALL',
        MasterAccountArn: `arn:aws:organizations::${world.managementAccountId}:account/${world.organizationId}/${world.managementAccountId}`,
        MasterAccountId: world.managementAccountId,
        MasterAccountEmail: 'management@example.com',
      },
    };
  });
  orgs.on(ListRootsCommand).callsFake(async (_input: unknown, getClient: () => unknown) => {
    await count(getClient);
    return {
      Roots: [
        {
          Id: world.rootId,
          Arn: `arn:aws:organizations::${world.managementAccountId}:root/${world.organizationId}/${world.rootId}`,
          Name: 'Root',
          PolicyTypes: [],
        },
      ],
    };
  });
  orgs.on(ListOrganizationalUnitsForParentCommand).callsFake(async (input, getClient) => {
    await count(getClient);
    const { items, next } = page(childrenOf(input.ParentId).ous, input.NextToken, input.MaxResults);
    return {
      OrganizationalUnits: items.map((ou) => ({
        Id: ou.id,
        Arn: `arn:aws:organizations::${world.managementAccountId}:ou/${world.organizationId}/${ou.id}`,
        Name: ou.name,
      })),
      ...(next ? { NextToken: next } : {}),
    };
  });
  orgs.on(ListAccountsForParentCommand).callsFake(async (input, getClient) => {
    await count(getClient);
    const { items, next } = page(childrenOf(input.ParentId).accounts, input.NextToken, input.MaxResults);
    return {
      Accounts: items.map((account) => accountShape(world, account)),
      ...(next ? { NextToken: next } : {}),
    };
  });
  orgs.on(ListAccountsCommand).callsFake(async (input, getClient) => {
    await count(getClient);
    const { items, next } = page(world.accounts, input.NextToken, input.MaxResults);
    return {
      Accounts: items.map((account) => accountShape(world, account)),
      ...(next ? { NextToken: next } : {}),
    };
  });
  orgs.on(ListChildrenCommand).callsFake(async (input, getClient) => {
    await count(getClient);
    const children = childrenOf(input.ParentId);
    const all: { Id: string; Type: 'ACCOUNT' | 'ORGANIZATIONAL_UNIT' }[] =
      input.ChildType === 'ORGANIZATIONAL_UNIT'
        ? children.ous.map((ou) => ({ Id: ou.id, Type: 'ORGANIZATIONAL_UNIT' as const }))
        : children.accounts.map((account) => ({ Id: account.accountId, Type: 'ACCOUNT' as const }));
    const { items, next } = page(all, input.NextToken, input.MaxResults);
    return { Children: items, ...(next ? { NextToken: next } : {}) };
  });
  orgs.on(ListParentsCommand).callsFake(async (input, getClient) => {
    await count(getClient);
    const parentId =
      world.ous.find((ou) => ou.id === input.ChildId)?.parentId ?? world.account(input.ChildId).parentId;
    return { Parents: [{ Id: parentId, Type: parentId === world.rootId ? 'ROOT' : 'ORGANIZATIONAL_UNIT' }] };
  });

  stubOf(STSClient)
    .on(AssumeRoleCommand)
    .callsFake(async (input: AssumeRoleCommandInput) => {
      const accountId = /^arn:aws:iam::(\d{12}):role\//.exec(input.RoleArn ?? '')?.[1] ?? '';
      calls.assumeRole.set(accountId, (calls.assumeRole.get(accountId) ?? 0) + 1);
      calls.assumeRoleInputs.push(input);
      const account = world.accounts.find((candidate) => candidate.accountId === accountId);
      if (!account || account.sts === 'refused') {
        throw queryError(
          'AccessDenied',
          `User: arn:aws:sts::123456789012:assumed-role/etp-tools/aws/x is not authorized to perform: sts:AssumeRole on resource: ${input.RoleArn}`,
          { httpStatusCode: 403 },
        );
      }
      if (account.sts === 'throttled') throw queryError('Throttling', 'Rate exceeded');
      return {
        Credentials: {
          AccessKeyId: worldAccessKeyId(accountId),
          SecretAccessKey: `fake/world/secret/${accountId}`, // fake test example
          SessionToken: `FwoGZXIvYXdzEfakeWORLD${accountId}`, // fake test example
          Expiration: new Date(Date.now() + (input.DurationSeconds ?? 3600) * 1000),
        },
        AssumedRoleUser: {
          AssumedRoleId: `AROAWORLD${accountId}:${input.RoleSessionName}`,
          Arn: `arn:aws:sts::${accountId}:assumed-role/${input.RoleArn?.split('/').at(-1)}/${input.RoleSessionName}`,
        },
        SourceIdentity: input.SourceIdentity,
      };
    });

  stubOf(EC2Client)
    .on(DescribeRegionsCommand)
    .callsFake(async (_input: unknown, getClient: () => unknown) => {
      const accountId = await accountOfClient(getClient);
      const extra = accountId ? world.account(accountId).optInRegions : [];
      return {
        Regions: [
          ...world.enabledByDefault.map((region) => ({
            RegionName: region,
            Endpoint: `ec2.${region}.amazonaws.com`,
            OptInStatus: 'opt-in-not-required',
          })),
          ...extra.map((region) => ({
            RegionName: region,
            Endpoint: `ec2.${region}.amazonaws.com`,
            OptInStatus: 'opted-in',
          })),
        ],
      };
    });
  return calls;
}

/** Options of {@link arrangeOrganizationCosts}. */
export interface OrganizationCostsOptions {
  /** Groups per page Cost Explorer answers (it pages large answers with `NextPageToken`). @default 5000 */
  readonly groupsPerPage?: number;
}

/**
 * Answers Cost Explorer GetCostAndUsage grouped by LINKED_ACCOUNT from the world
 * (Cost Explorer API reference, "GetCostAndUsage", "ResultByTime", "Group"):
 * each account's {@link WorldAccount.costUsd} in the first time period of the
 * request, the accounts' names in `DimensionValueAttributes`, pages of
 * `groupsPerPage` groups. Refuses any other grouping (a test asked for the wrong thing).
 *
 * @returns the inputs received, one per request.
 */
export function arrangeOrganizationCosts(
  stubOf: StubOf,
  world: OrganizationWorld,
  options: OrganizationCostsOptions = {},
): GetCostAndUsageCommandInput[] {
  const received: GetCostAndUsageCommandInput[] = [];
  const perPage = options.groupsPerPage ?? 5000;
  stubOf(CostExplorerClient)
    .on(GetCostAndUsageCommand)
    .callsFake(async (input: GetCostAndUsageCommandInput) => {
      received.push(input);
      const [group] = input.GroupBy ?? [];
      if (input.GroupBy?.length !== 1 || group?.Type !== 'DIMENSION' || group.Key !== 'LINKED_ACCOUNT') {
        throw new Error(
          `organizationWorld answers LINKED_ACCOUNT groupings only, not ${JSON.stringify(input.GroupBy)}`,
        );
      }
      const metric = input.Metrics?.[0] ?? 'UnblendedCost';
      const start = input.NextPageToken ? Number(input.NextPageToken) : 0;
      const slice = world.accounts.slice(start, start + perPage);
      const next = start + perPage < world.accounts.length ? String(start + perPage) : undefined;
      return {
        GroupDefinitions: [{ Type: 'DIMENSION' as const, Key: 'LINKED_ACCOUNT' }],
        ResultsByTime: [
          {
            TimePeriod: input.TimePeriod,
            Total: {},
            Groups: slice.map((account) => ({
              Keys: [account.accountId],
              Metrics: { [metric]: { Amount: account.costUsd, Unit: 'USD' } },
            })),
            Estimated: true,
          },
        ],
        DimensionValueAttributes: slice.map((account) => ({
          Value: account.accountId,
          Attributes: { description: account.name },
        })),
        ...(next ? { NextPageToken: next } : {}),
      };
    });
  return received;
}
