import { DescribeRegionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  ListAccountsForParentCommand,
  ListOrganizationalUnitsForParentCommand,
  OrganizationsClient,
} from '@aws-sdk/client-organizations';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { awsClientConfig } from '../../../../functions/runtime/aws/client-config';
import { CUSTOMER_ROLE_NAME_ENV, clearAssumedRoleCache } from '../../../../functions/runtime/aws/credentials';
import {
  memberRoleArn,
  type OrgTarget,
  parseOrgTargetSecret,
} from '../../../../functions/runtime/aws/organization';
import { resolveAccounts } from '../../../../functions/runtime/aws/organization-accounts';
import {
  MemberAccountError,
  memberSession,
  organizationSession,
} from '../../../../functions/runtime/aws/organization-sessions';
import { InvalidArgsError, SecretInvalidError } from '../../../../functions/runtime/errors';
import { normalizeError } from '../../../../functions/runtime/normalize-error';
import { clientStubs } from '../../../helpers/api-call-case';
import { credentialsProviderError } from '../../../helpers/aws-errors';
import {
  accountOfClient,
  arrangeOrganizationWorld,
  organizationWorld,
  WORLD_MANAGEMENT_ACCOUNT,
  worldAccountId,
} from '../../../helpers/organization-world';

const { stubs, stubOf } = clientStubs([OrganizationsClient, STSClient]);
const client = new OrganizationsClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIAFAKETESTEXAMPLE0', secretAccessKey: 'fake/test/example' }, // fake test example
});

const TARGET: OrgTarget = {
  managementRoleArn: `arn:aws:iam::${WORLD_MANAGEMENT_ACCOUNT}:role/ExternalToolsPlatformOrganization`,
  externalId: 'org-external-0001',
  memberRoleName: 'ExternalToolsPlatformAudit',
};

beforeEach(() => {
  for (const stub of stubs.values()) stub.reset();
  clearAssumedRoleCache();
});

describe('parseOrgTargetSecret()', () => {
  it('reads the documented form into an OrgTarget', () => {
    // Act
    const target = parseOrgTargetSecret({
      management_role_arn: 'arn:aws:iam::111122223333:role/ExternalToolsPlatformOrganization',
      external_id: 'abc-123',
      member_role_name: 'ExternalToolsPlatformAudit',
      member_external_id: 'member-456',
      region: 'eu-west-1',
    });

    // Assess
    expect(target).toEqual({
      managementRoleArn: 'arn:aws:iam::111122223333:role/ExternalToolsPlatformOrganization',
      externalId: 'abc-123',
      memberRoleName: 'ExternalToolsPlatformAudit',
      memberExternalId: 'member-456',
      region: 'eu-west-1',
    });
  });

  it.each([
    [{ member_role_name: 'ExternalToolsPlatformAudit' }, 'management_role_arn (missing)'],
    [
      { management_role_arn: 'arn:aws:iam::111122223333:role/X', member_role_name: 'a/b' },
      // A value that fails its own check: what the check accepts, not the value.
      'member_role_name (an IAM role name)',
    ],
    [
      {
        management_role_arn: 'arn:aws:iam::111122223333:role/X',
        member_role_name: 'ExternalToolsPlatformAudit',
        role_arn: 'arn:aws:iam::111122223333:role/X',
      },
      'role_arn (unknown field)',
    ],
    [
      {
        management_role_arn: 'arn:aws:iam::111122223333:role/X',
        member_role_name: 'Y',
        external_id: 'x',
      },
      'external_id (2-1224 characters of letters, digits, _+=,.@:/-)',
    ],
  ])('refuses %j naming %s and what is accepted, never a value', (value, field) => {
    // Act
    const attempt = () => parseOrgTargetSecret(value);

    // Assess
    expect(attempt).toThrow(SecretInvalidError);
    expect(attempt).toThrow(
      `AWS organization secret is invalid in: ${field}. Accepted fields: management_role_arn, external_id?, member_role_name, member_external_id?, region?`,
    );
    expect(attempt).not.toThrow(/111122223333/);
  });
});

describe('resolveAccounts()', () => {
  it('selects every ACTIVE account of "all" with its OU path, and reports the others with their reason', async () => {
    // Prepare: 9 members over the root, 3 OUs and a child OU.
    const world = organizationWorld({
      accounts: 9,
      states: { SUSPENDED: 1, PENDING_CLOSURE: 1, CLOSED: 1 },
    });
    const calls = arrangeOrganizationWorld(stubOf, world);

    // Act
    const plan = await resolveAccounts(client, { accounts: 'all' });

    // Assess
    expect(plan.targets).toEqual([
      { accountId: '200000000000', name: 'account-0000', ouPath: [] },
      { accountId: '200000000001', name: 'account-0001', ouPath: ['Workloads-0'] },
      { accountId: '200000000002', name: 'account-0002', ouPath: ['Workloads-0', 'Team-0'] },
      { accountId: '200000000003', name: 'account-0003', ouPath: ['Workloads-1'] },
      { accountId: '200000000004', name: 'account-0004', ouPath: ['Workloads-2'] },
      { accountId: '200000000005', name: 'account-0005', ouPath: [] },
    ]);
    expect(plan.notAudited).toEqual([
      {
        accountId: WORLD_MANAGEMENT_ACCOUNT,
        name: 'management',
        status: 'ACTIVE',
        reason: expect.stringMatching(
          /^the management account: the StackSet never deploys the audit role there/,
        ),
      },
      {
        accountId: '200000000006',
        name: 'account-0006',
        status: 'CLOSED',
        reason:
          'closed: the account is closed (AWS keeps it 90 days before it is gone), so there is nothing to audit',
      },
      {
        accountId: '200000000007',
        name: 'account-0007',
        status: 'PENDING_CLOSURE',
        reason: 'closing: the account is being closed, so it is not audited',
      },
      {
        accountId: '200000000008',
        name: 'account-0008',
        status: 'SUSPENDED',
        reason: 'suspended: AWS has suspended the account, so its resources cannot be read',
      },
    ]);
    // DescribeOrganization, ListRoots, and 2 per container (root, 3 OUs, 1 child OU).
    expect(calls.organizations).toBe(2 + 2 * 5);
  });

  it('reads the deprecated Status when an account has no State (older API answers)', async () => {
    // Prepare
    const world = organizationWorld({ accounts: 2, ous: 0 });
    arrangeOrganizationWorld(stubOf, world);
    stubs
      .get(OrganizationsClient)
      ?.on(ListAccountsForParentCommand)
      .resolves({
        Accounts: [
          { Id: '200000000000', Name: 'old-active', Status: 'ACTIVE' },
          { Id: '200000000001', Name: 'old-suspended', Status: 'SUSPENDED' },
        ],
      });

    // Act
    const plan = await resolveAccounts(client, { accounts: 'all' });

    // Assess
    expect(plan.targets).toEqual([{ accountId: '200000000000', name: 'old-active', ouPath: [] }]);
    expect(plan.notAudited.map(({ accountId, status }) => ({ accountId, status }))).toEqual([
      { accountId: '200000000001', status: 'SUSPENDED' },
    ]);
  });

  it('selects an OU with its child OUs, account ids as named, minus exclusions; the management account when named', async () => {
    // Prepare
    const world = organizationWorld({ accounts: 12 });
    arrangeOrganizationWorld(stubOf, world);
    const workloads0 = world.ous.find((ou) => ou.name === 'Workloads-0')?.id as string;

    // Act
    const plan = await resolveAccounts(client, {
      accounts: [workloads0, worldAccountId(3), WORLD_MANAGEMENT_ACCOUNT, '999999999999'],
      exclude: [worldAccountId(7)],
    });

    // Assess: Workloads-0 holds 1, 6, 11; its child Team-0 holds 2, 7.
    expect(plan.targets.map((t) => [t.accountId, t.ouPath])).toEqual(
      [
        [WORLD_MANAGEMENT_ACCOUNT, []],
        [worldAccountId(1), ['Workloads-0']],
        [worldAccountId(11), ['Workloads-0']],
        [worldAccountId(2), ['Workloads-0', 'Team-0']],
        [worldAccountId(3), ['Workloads-1']],
        [worldAccountId(6), ['Workloads-0']],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(plan.notAudited).toEqual([
      {
        accountId: worldAccountId(7),
        name: 'account-0007',
        status: 'ACTIVE',
        reason: 'excluded by the run’s exclude list',
      },
      {
        accountId: '999999999999',
        status: 'NOT_FOUND',
        reason: 'not a member of the organization, so the platform has no role to read it with',
      },
    ]);
  });

  it('excludes a whole OU', async () => {
    // Prepare
    const world = organizationWorld({ accounts: 6, ous: 2 });
    arrangeOrganizationWorld(stubOf, world);
    const workloads1 = world.ous.find((ou) => ou.name === 'Workloads-1')?.id as string;

    // Act
    const plan = await resolveAccounts(client, { accounts: [world.rootId], exclude: [workloads1] });

    // Assess
    expect(plan.targets.every((t) => !t.ouPath?.includes('Workloads-1'))).toBe(true);
    expect(plan.notAudited.filter((n) => n.reason.startsWith('excluded')).map((n) => n.accountId)).toEqual(
      world.accounts.filter((a) => a.ouPath.includes('Workloads-1')).map((a) => a.accountId),
    );
  });

  it('reads every page of a parent with more than 20 children', async () => {
    // Prepare: 45 accounts at the root.
    const world = organizationWorld({ accounts: 45, ous: 0 });
    arrangeOrganizationWorld(stubOf, world);

    // Act
    const plan = await resolveAccounts(client, { accounts: 'all' });

    // Assess
    expect(plan.targets).toHaveLength(45);
    expect(stubs.get(OrganizationsClient)?.commandCalls(ListAccountsForParentCommand)).toHaveLength(3);
  });

  it.each([
    [{ accounts: [] }, 'accounts is an empty list'],
    [{ accounts: ['12345'] }, 'accounts[0] holds "12345"'],
    [{ accounts: 'some' }, 'accounts is neither "all" nor a list'],
    [{ accounts: 'all', exclude: ['ou-xyz'] }, 'exclude[0] holds "ou-xyz"'],
  ])('refuses %j before any request', async (selection, problem) => {
    // Prepare
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 1 }));

    // Act
    const attempt = resolveAccounts(client, selection as never);

    // Assess
    await expect(attempt).rejects.toThrow(InvalidArgsError);
    await expect(attempt).rejects.toThrow(
      `Invalid account selection: ${problem}. Accepted: "all", or a list of 12-digit account ids, OU ids (ou-…, with their child OUs) and root ids (r-…)`,
    );
    expect(stubs.get(OrganizationsClient)?.calls()).toHaveLength(0);
  });

  it('refuses a selection that leaves no account (the root excluded), naming it and why', async () => {
    // Prepare: 3 members and the management account
    const world = organizationWorld({ accounts: 3 });
    arrangeOrganizationWorld(stubOf, world);

    // Act
    const attempt = resolveAccounts(client, { accounts: 'all', exclude: [world.rootId] });

    // Assess
    await expect(attempt).rejects.toMatchObject({
      code: 'invalid_args',
      message:
        `The selection (accounts "all", exclude ["${world.rootId}"]) leaves no account to audit: ` +
        `of ${world.accounts.length} accounts selected, ${world.accounts.length} excluded by the run’s exclude list. ` +
        'Name accounts, OUs or roots with at least one active member account that exclude does not take out',
    });
  });

  it('refuses an OU the organization does not hold, naming it', async () => {
    // Prepare
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 3 }));

    // Act
    const attempt = resolveAccounts(client, { accounts: ['ou-zzzz-00000000'] });

    // Assess
    await expect(attempt).rejects.toThrow(
      'accounts names ou-zzzz-00000000, which is not an OU or root of the organization (it holds 5 roots and OUs)',
    );
  });

  it('refuses an excluded account id the organization does not hold, as an excluded OU it does not hold', async () => {
    // Prepare: 3 members and the management account
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 3 }));

    // Act
    const attempt = resolveAccounts(client, { accounts: [worldAccountId(0)], exclude: ['999999999999'] });

    // Assess
    await expect(attempt).rejects.toMatchObject({
      code: 'invalid_args',
      message:
        'exclude names 999999999999, which is not an account of the organization (it holds 4 accounts: ' +
        'an account outside it is never audited, so leave it out of exclude)',
    });
  });

  it('names every id of exclude the organization does not hold, OUs and accounts alike', async () => {
    // Prepare
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 3 }));

    // Act
    const attempt = resolveAccounts(client, {
      accounts: 'all',
      exclude: ['ou-zzzz-00000000', worldAccountId(1), '999999999998', '999999999999'],
    });

    // Assess
    await expect(attempt).rejects.toThrow(
      'exclude names ou-zzzz-00000000, which is not an OU or root of the organization (it holds 5 roots and OUs); ' +
        'it also names 999999999998, 999999999999, which are not an account of the organization (it holds 4 accounts: ' +
        'an account outside it is never audited, so leave it out of exclude)',
    );
  });

  it('lets an Organizations refusal rise as it came, normalized as access_denied', async () => {
    // Prepare
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 3 }));
    const denied = Object.assign(new Error('You don’t have permissions to access this resource.'), {
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    stubs.get(OrganizationsClient)?.on(ListOrganizationalUnitsForParentCommand).rejects(denied);

    // Act
    const error = await resolveAccounts(client, { accounts: 'all' }).catch((err: unknown) => err);

    // Assess
    expect(normalizeError('org', error, 'organizations')).toMatchObject({
      code: 'access_denied',
      service: 'organizations',
      details: { awsError: 'AccessDeniedException' },
    });
  });
});

describe('memberSession()', () => {
  const savedRoleName = process.env[CUSTOMER_ROLE_NAME_ENV];
  let now = Date.parse('2026-05-01T06:00:00Z');

  beforeEach(() => {
    now = Date.parse('2026-05-01T06:00:00Z');
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });

  afterEach(() => {
    jest.restoreAllMocks();
    if (savedRoleName === undefined) delete process.env[CUSTOMER_ROLE_NAME_ENV];
    else process.env[CUSTOMER_ROLE_NAME_ENV] = savedRoleName;
  });

  it('assumes the member role with the ExternalId, source identity and the tenant, scenario, run and account tags', async () => {
    // Prepare
    const world = organizationWorld({ accounts: 2 });
    const calls = arrangeOrganizationWorld(stubOf, world);
    const accountId = worldAccountId(1);

    // Act
    const access = memberSession({
      tenant: 'acme',
      runId: 'org-run-1',
      scenario: 'aws_pulse',
      accountId,
      target: TARGET,
    });
    const credentials = await access.credentials();

    // Assess
    expect(access).toMatchObject({
      mode: 'assume_role',
      roleArn: `arn:aws:iam::${accountId}:role/ExternalToolsPlatformAudit`,
    });
    expect(credentials.accessKeyId).toBe(`ASIAWORLD${accountId}`);
    expect(calls.assumeRoleInputs).toEqual([
      {
        RoleArn: `arn:aws:iam::${accountId}:role/ExternalToolsPlatformAudit`,
        RoleSessionName: 'etp-org-run-1',
        ExternalId: 'org-external-0001',
        DurationSeconds: 3600,
        SourceIdentity: 'etp.acme',
        Tags: [
          { Key: 'etp-tenant', Value: 'acme' },
          { Key: 'etp-scenario', Value: 'aws_pulse' },
          { Key: 'etp-run', Value: 'org-run-1' },
          { Key: 'etp-account', Value: accountId },
        ],
      },
    ]);
  });

  it('uses member_external_id when the target names one, in the partition of the management role', async () => {
    // Prepare
    const calls = arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 1 }));
    const target = { ...TARGET, memberExternalId: 'member-external-2' };
    const govTarget = {
      ...TARGET,
      managementRoleArn: 'arn:aws-us-gov:iam::100000000000:role/ExternalToolsPlatformOrganization',
    };

    // Act
    const arn = memberRoleArn(govTarget, worldAccountId(0));
    await memberSession({ tenant: 'acme', runId: 'r1', accountId: worldAccountId(0), target }).credentials();

    // Assess
    expect(arn).toBe('arn:aws-us-gov:iam::200000000000:role/ExternalToolsPlatformAudit');
    expect(calls.assumeRoleInputs[0]?.ExternalId).toBe('member-external-2');
  });

  it('keeps one session per account and run, and opens a new one before the hour ends', async () => {
    // Prepare
    const calls = arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 2 }));
    const session = (accountId: string) =>
      memberSession({ tenant: 'acme', runId: 'r1', accountId, target: TARGET });

    // Act: two calls at once in account 0, one in account 1, then 54 and 56 minutes later.
    await Promise.all([session(worldAccountId(0)).credentials(), session(worldAccountId(0)).credentials()]);
    await session(worldAccountId(1)).credentials();
    now += 54 * 60_000;
    await session(worldAccountId(0)).credentials();
    const before = calls.assumeRole.get(worldAccountId(0));
    now += 2 * 60_000;
    await session(worldAccountId(0)).credentials();

    // Assess: renewed at 56 minutes, 5 minutes before the one-hour role-chaining limit.
    expect(before).toBe(1);
    expect(calls.assumeRole.get(worldAccountId(0))).toBe(2);
    expect(calls.assumeRole.get(worldAccountId(1))).toBe(1);
  });

  it('drops a session STS said expired early, so the renewal after ExpiredToken assumes the role again', async () => {
    // Prepare
    const calls = arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 1 }));
    const access = memberSession({
      tenant: 'acme',
      runId: 'r1',
      accountId: worldAccountId(0),
      target: TARGET,
    });
    await access.credentials();

    // Act
    access.invalidate?.();
    await access.credentials();

    // Assess
    expect(calls.assumeRole.get(worldAccountId(0))).toBe(2);
  });

  it('reports a refused AssumeRole as auth_failed naming the account', async () => {
    // Prepare
    const world = organizationWorld({ accounts: 2, refused: 1 });
    arrangeOrganizationWorld(stubOf, world);
    const refused = world.accounts.find((a) => a.sts === 'refused');

    // Act
    const error = await memberSession({
      tenant: 'acme',
      runId: 'r1',
      accountId: refused?.accountId as string,
      accountName: refused?.name,
      target: TARGET,
    })
      .credentials()
      .catch((err: unknown) => err);

    // Assess
    expect(error).toBeInstanceOf(MemberAccountError);
    expect(normalizeError('aws_ec2_inventory', error, 'ec2')).toMatchObject({
      code: 'auth_failed',
      retryable: false,
      service: 'sts',
      message: expect.stringMatching(
        /^STS refused AssumeRole of the role of the organization secret's member_role_name in account 200000000001 \(account-0001\): check that the StackSet deployed the role there/,
      ),
      details: { accountId: '200000000001', awsError: 'AccessDenied' },
    });
  });

  it('says there were no credentials to call STS with, and what to set, rather than that STS refused', async () => {
    // Prepare: the platform's own credential chain finds nothing (the SDK raises before sending)
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 1 }));
    stubOf(STSClient).on(AssumeRoleCommand).rejects(credentialsProviderError());

    // Act
    const error = await organizationSession({ tenant: 'acme', runId: 'r1', target: TARGET })
      .credentials()
      .catch((err: unknown) => err);

    // Assess
    const info = normalizeError('aws_org_accounts', error, 'organizations');
    expect(error).toBeInstanceOf(MemberAccountError);
    expect(info).toMatchObject({ code: 'auth_failed', retryable: false, service: 'sts' });
    expect(info.message).toBe(
      `No AWS credentials were found to call STS with, so the role of the organization secret's management_role_arn in account ${WORLD_MANAGEMENT_ACCOUNT} (management or delegated administrator) could not be assumed: ` +
        'set AWS_PROFILE (a profile of ~/.aws/config) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys) to credentials allowed to assume it',
    );
    expect(info.message).not.toContain('refused');
  });

  it('reports a throttled AssumeRole as throttled (retryable), naming the account', async () => {
    // Prepare
    const world = organizationWorld({ accounts: 1, throttled: 1 });
    arrangeOrganizationWorld(stubOf, world);
    jest.restoreAllMocks(); // the SDK's retry backoff reads the real clock

    // Act
    const error = await memberSession({
      tenant: 'acme',
      runId: 'r1',
      accountId: worldAccountId(0),
      target: TARGET,
    })
      .credentials()
      .catch((err: unknown) => err);

    // Assess
    expect(normalizeError('aws_ec2_inventory', error, 'ec2')).toMatchObject({
      code: 'throttled',
      retryable: true,
      service: 'sts',
      message: expect.stringMatching(/^STS throttled AssumeRole in account 200000000000: /),
      details: { accountId: '200000000000', awsError: 'Throttling' },
    });
  });

  it('refuses a malformed account id, and a member role the deployed function may not assume, before STS', () => {
    // Prepare
    process.env[CUSTOMER_ROLE_NAME_ENV] = 'ExternalToolsPlatformAudit';

    // Act
    const badId = () => memberSession({ tenant: 'acme', runId: 'r1', accountId: '1234', target: TARGET });
    const otherRole = () =>
      memberSession({
        tenant: 'acme',
        runId: 'r1',
        accountId: worldAccountId(0),
        target: { ...TARGET, memberRoleName: 'OrganizationAccountAccessRole' },
      });

    // Assess
    expect(badId).toThrow('accountId must be a 12-digit AWS account id, not "1234"');
    expect(otherRole).toThrow(
      /^AWS secret is invalid in: member_role_name. The platform may assume only the role named ExternalToolsPlatformAudit/,
    );
    expect(stubs.get(STSClient)?.commandCalls(AssumeRoleCommand)).toHaveLength(0);
  });
});

describe('the organization world (test/helpers/organization-world.ts)', () => {
  it('answers each member session with its own account’s regions: the 17 defaults and its opt-in ones', async () => {
    // Prepare: the last ACTIVE account has ap-east-1 enabled.
    const world = organizationWorld({ accounts: 3, optIn: 1 });
    arrangeOrganizationWorld(stubOf, world);
    const regionsOf = async (accountId: string) => {
      const access = memberSession({ tenant: 'acme', runId: 'r1', accountId, target: TARGET });
      const ec2 = new EC2Client(awsClientConfig(access, 'us-east-1'));
      const { Regions } = await ec2.send(new DescribeRegionsCommand({}));
      return {
        signedBy: await accountOfClient(() => ec2),
        regions: (Regions ?? []).map((r) => r.RegionName),
      };
    };

    // Act
    const plain = await regionsOf(worldAccountId(0));
    const optedIn = await regionsOf(worldAccountId(2));

    // Assess
    expect(plain.signedBy).toBe(worldAccountId(0));
    expect(plain.regions).toHaveLength(17);
    expect(optedIn).toEqual({ signedBy: worldAccountId(2), regions: [...plain.regions, 'ap-east-1'] });
    expect(world.regionEnabled(worldAccountId(2), 'ap-east-1')).toBe(true);
    expect(world.regionEnabled(worldAccountId(0), 'ap-east-1')).toBe(false);
  });
});

describe('organizationSession()', () => {
  it('assumes the organization role with its ExternalId, tagged with its account', async () => {
    // Prepare
    const calls = arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 1 }));

    // Act
    await organizationSession({ tenant: 'acme', runId: 'r1', target: TARGET }).credentials();

    // Assess
    expect(calls.assumeRoleInputs[0]).toMatchObject({
      RoleArn: TARGET.managementRoleArn,
      ExternalId: 'org-external-0001',
      Tags: expect.arrayContaining([{ Key: 'etp-account', Value: WORLD_MANAGEMENT_ACCOUNT }]),
    });
  });
});
