import { OrganizationsClient } from '@aws-sdk/client-organizations';
import { STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import type { AccountPlan } from '../../../../functions/runtime/aws/organization';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import { runTool } from '../../../../functions/runtime/harness';
import { InMemorySecretReferenceStore } from '../../../../functions/runtime/secrets/memory-store';
import { defaultProviders, EnvSecretProvider } from '../../../../functions/runtime/secrets/providers';
import { SecretResolver } from '../../../../functions/runtime/secrets/resolver';
import { toolHostServices } from '../../../../functions/runtime/tool-host';
import { orgAccountsTool } from '../../../../functions/tools/aws/org-accounts';
import { toolCatalog } from '../../../../functions/tools/catalog';
import { ORGANIZATION_ROLE_ACTIONS } from '../../../../lib/organization-access-stack';
import { expectFailure, expectSuccess } from '../../../helpers/aws-tool';
import { toolInvocation } from '../../../helpers/events';
import { iamActionOf, isGranted } from '../../../helpers/iam-actions';
import {
  arrangeOrganizationWorld,
  organizationWorld,
  WORLD_MANAGEMENT_ACCOUNT,
  worldAccountId,
} from '../../../helpers/organization-world';

const organizations = mockClient(OrganizationsClient);
const sts = mockClient(STSClient);
const stubOf = ((client: unknown) => (client === OrganizationsClient ? organizations : sts)) as never;

const TARGET = {
  management_role_arn: `arn:aws:iam::${WORLD_MANAGEMENT_ACCOUNT}:role/ExternalToolsPlatformOrganization`,
  external_id: 'ext-id-0123456789',
  member_role_name: 'ExternalToolsPlatformAudit',
};

/** Services whose tenant `default` has `secretName` = the organization target (an env reference). */
function orgServices(secretName = 'aws_org_default') {
  const store = new InMemorySecretReferenceStore([
    { tenant_id: 'default', secret_name: secretName, ref_kind: 'env', ref_value: 'TEST_AWS_ORG' },
  ]);
  const env = new EnvSecretProvider({ TEST_AWS_ORG: JSON.stringify(TARGET) });
  return toolHostServices(new SecretResolver(store, { providers: { ...defaultProviders(), env } }));
}

function call(args: unknown, fields: { orgSecret?: string } = {}, secretName?: string) {
  return runTool(
    orgAccountsTool,
    {
      ...toolInvocation({ tool: 'aws_org_accounts', args }),
      scenario: 'aws_pulse_org',
      level: 'collect',
      ...fields,
    },
    deadlineIn(30_000),
    orgServices(secretName),
  );
}

beforeEach(() => {
  organizations.reset();
  sts.reset();
});

describe('aws_org_accounts', () => {
  it('lists the organization with the organization role: targets, not audited, each with its reason', async () => {
    // Prepare: 8 members, one suspended, one closed
    const world = organizationWorld({ accounts: 8, states: { SUSPENDED: 1, CLOSED: 1 } });
    const calls = arrangeOrganizationWorld(stubOf, world);

    // Act
    const result = await call({ accounts: 'all', exclude: [worldAccountId(0)] });

    // Assess
    const { value, summary } = expectSuccess<AccountPlan>(result);
    expect(value.targets.map((account) => account.accountId)).toEqual(
      [1, 2, 3, 4, 5].map((i) => worldAccountId(i)),
    );
    expect(value.notAudited.map((account) => [account.accountId, account.status])).toEqual([
      [WORLD_MANAGEMENT_ACCOUNT, 'ACTIVE'],
      [worldAccountId(0), 'ACTIVE'],
      [worldAccountId(6), 'CLOSED'],
      [worldAccountId(7), 'SUSPENDED'],
    ]);
    expect(value.notAudited[1]?.reason).toBe('excluded by the run’s exclude list');
    expect(summary).toBe('5 accounts to audit, 4 not audited');
    // One session of the organization role, attributed, with its ExternalId
    expect(calls.assumeRoleInputs).toHaveLength(1);
    expect(calls.assumeRoleInputs[0]).toMatchObject({
      RoleArn: TARGET.management_role_arn,
      ExternalId: TARGET.external_id,
      SourceIdentity: 'etp.default',
    });
    expect(calls.assumeRoleInputs[0]?.Tags).toEqual(
      expect.arrayContaining([{ Key: 'etp-account', Value: WORLD_MANAGEMENT_ACCOUNT }]),
    );
  });

  it('sends only the Organizations reads its spec declares (the organization role holds them)', async () => {
    // Prepare
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 30, ous: 4 }));
    const declared = toolCatalog.get('aws_org_accounts').iam.flatMap((grant) => grant.actions);

    // Act
    const result = await call({ accounts: 'all' });

    // Assess
    expectSuccess(result);
    const sent = organizations.calls().map((c) => (c.args[0] as object).constructor.name);
    const actions = [
      ...new Set(
        sent.map((command) => {
          const needed = iamActionOf('OrganizationsClient', command);
          return 'action' in needed ? String(needed.action) : needed.problem;
        }),
      ),
    ];
    expect(actions).toEqual([
      'organizations:DescribeOrganization',
      'organizations:ListRoots',
      'organizations:ListOrganizationalUnitsForParent',
      'organizations:ListAccountsForParent',
    ]);
    expect(actions.filter((action) => !isGranted(action, declared))).toEqual([]);
    // … and the organization role the StackSet stack deploys holds every one of them
    expect(
      declared.filter((action) => !(ORGANIZATION_ROLE_ACTIONS as readonly string[]).includes(action)),
    ).toEqual([]);
  });

  it("reads the level's organization secret when the dispatcher names one", async () => {
    // Prepare: the tenant holds aws_org_prod only
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 2 }));

    // Act
    const result = await call({ accounts: 'all' }, { orgSecret: 'aws_org_prod' }, 'aws_org_prod');

    // Assess
    expect(expectSuccess<AccountPlan>(result).value.targets).toHaveLength(2);
  });

  it('says STS refused the organization role, naming the account', async () => {
    // Prepare: the management role refused (the world holds no such account)
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 2 }));
    const store = {
      ...TARGET,
      management_role_arn: 'arn:aws:iam::999999999999:role/ExternalToolsPlatformOrganization',
    };
    const services = toolHostServices(
      new SecretResolver(
        new InMemorySecretReferenceStore([
          { tenant_id: 'default', secret_name: 'aws_org_default', ref_kind: 'env', ref_value: 'T' },
        ]),
        { providers: { ...defaultProviders(), env: new EnvSecretProvider({ T: JSON.stringify(store) }) } },
      ),
    );

    // Act
    const result = await runTool(
      orgAccountsTool,
      toolInvocation({ tool: 'aws_org_accounts', args: { accounts: 'all' } }),
      deadlineIn(30_000),
      services,
    );

    // Assess
    const { error } = expectFailure(result);
    expect(error.code).toBe('auth_failed');
    expect(error.message).toContain('account 999999999999');
    // The first request, which could not be signed, and no other
    expect(organizations.calls()).toHaveLength(1);
  });

  it('refuses a malformed selection before any request, saying what is accepted', async () => {
    // Act
    const result = await call({ accounts: ['12345'] });

    // Assess
    const { error } = expectFailure(result);
    expect(error.code).toBe('invalid_args');
    expect(error.message).toContain('a 12-digit account id, an OU id (ou-…) or a root id (r-…)');
    expect(sts.calls()).toHaveLength(0);
    expect(organizations.calls()).toHaveLength(0);
  });
});
