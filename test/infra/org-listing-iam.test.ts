import { Template } from 'aws-cdk-lib/assertions';
import { ORG_ACCOUNTS_TOOL } from '../../functions/runtime/ids';
import { OrganizationAccessStack } from '../../lib/organization-access-stack';
import { logicalIdOf, newApp, roleOf, synthesizePlatform, toolFunctionId } from '../helpers/cdk';
import {
  arnIn,
  decide,
  identityPoliciesOf,
  type ResolvedTemplate,
  resolveTemplate,
  sessionOf,
  trustPolicyOf,
} from '../helpers/iam-simulation';

/**
 * The deployed account listing (docs/organizations-runs.md, "Listing the accounts"),
 * proved by the IAM simulator on the synthesized platform: the `aws_org_accounts`
 * function's role may open sessions of the organization role and of no other role,
 * holds no Organizations action of its own, and no other role of the platform may
 * assume the organization role; the engine reaches it only by invoking the dispatcher.
 */
const PLATFORM = '123456789012';
const MANAGEMENT = '100000000000';
const REGION = 'eu-west-1';
const ORGANIZATION_ROLE = `arn:aws:iam::${MANAGEMENT}:role/ExternalToolsPlatformOrganization`;
const EXTERNAL_ID = 'etp-acme-7c2d9e4f';

/** What `organizationSession` sends with its AssumeRole (functions/runtime/aws/organization.ts). */
const SESSION_CONTEXT = {
  'aws:RequestTag/etp-tenant': 'acme',
  'aws:RequestTag/etp-scenario': 'aws_pulse_org',
  'aws:RequestTag/etp-run': 'r1',
  'aws:RequestTag/etp-account': MANAGEMENT,
  'aws:TagKeys': ['etp-tenant', 'etp-scenario', 'etp-run', 'etp-account'],
  'sts:SourceIdentity': 'etp.acme',
  'sts:ExternalId': EXTERNAL_ID,
};

let platform: ResolvedTemplate;
let roleIds: string[];
let listingRoleId: string;
let engineRoleId: string;
let dispatcherArn: string;
let otherToolArn: string;
/** The organization role's trust policy, as OrganizationAccessStack deploys it in the management account. */
let organizationTrust: unknown;

beforeAll(() => {
  const { stack, template } = synthesizePlatform();
  platform = resolveTemplate(template, { account: PLATFORM, region: REGION });
  roleIds = Object.keys(template.findResources('AWS::IAM::Role'));
  listingRoleId = roleOf(template, toolFunctionId(stack, ORG_ACCOUNTS_TOOL));
  engineRoleId = roleOf(template, logicalIdOf(stack.platform.engine.lambdaFunction));
  dispatcherArn = arnIn(platform, logicalIdOf(stack.platform.dispatcher.lambdaFunction));
  otherToolArn = arnIn(platform, toolFunctionId(stack, 'aws_ec2_inventory'));
  const organizationStack = new OrganizationAccessStack(newApp(), 'ExternalToolsOrganizationAccess', {
    organizationalUnitIds: ['r-ab12'],
  });
  const management = resolveTemplate(Template.fromStack(organizationStack), {
    account: MANAGEMENT,
    region: REGION,
    parameters: { PlatformAccountId: PLATFORM, ExternalId: EXTERNAL_ID, TenantId: 'acme' },
  });
  organizationTrust = trustPolicyOf(management, logicalIdOf(organizationStack.organizationRole));
});

/** One STS action of a platform role on the organization role: its identity policy and the role's trust. */
function assumeOrganizationRole(roleId: string, action: string) {
  const arn = arnIn(platform, roleId);
  return decide({
    principal: sessionOf(arn, 'etp-r1'),
    identityPolicies: identityPoliciesOf(platform, roleId),
    action,
    resource: ORGANIZATION_ROLE,
    resourceAccount: MANAGEMENT,
    resourcePolicy: organizationTrust,
    context: { 'aws:PrincipalArn': arn, 'aws:PrincipalAccount': PLATFORM, ...SESSION_CONTEXT },
  });
}

/** One action of a platform role within the platform account: its identity policies alone decide. */
function asRole(roleId: string, action: string, resource: string, resourceAccount = PLATFORM) {
  return decide({
    principal: sessionOf(arnIn(platform, roleId), 'etp-r1'),
    identityPolicies: identityPoliciesOf(platform, roleId),
    action,
    resource,
    resourceAccount,
  });
}

describe('the organization listing tool, proved by the IAM simulator', () => {
  it.each(['sts:AssumeRole', 'sts:TagSession', 'sts:SetSourceIdentity'])(
    'lets the aws_org_accounts role call %s on the organization role (its grant and the role’s trust)',
    async (action) => {
      expect(await assumeOrganizationRole(listingRoleId, action)).toBe('Allowed');
    },
  );

  it.each([
    // The member audit role: the organization tool never reads a member account
    ['sts:AssumeRole', `arn:aws:iam::${PLATFORM}:role/ExternalToolsPlatformAudit`],
    ['sts:AssumeRole', `arn:aws:iam::${PLATFORM}:role/OrganizationAccountAccessRole`],
    ['sts:AssumeRole', `arn:aws:iam::${PLATFORM}:role/path/ExternalToolsPlatformOrganization`],
    // The organization role's own reads are not the function's
    ['organizations:ListAccountsForParent', '*'],
    ['organizations:DescribeOrganization', '*'],
    ['ce:GetCostAndUsage', '*'],
    ['ec2:DescribeInstances', '*'],
  ])('refuses the aws_org_accounts role %s on %s', async (action, resource) => {
    expect(await asRole(listingRoleId, action, resource)).toBe('ImplicitlyDenied');
  });

  it('lets no other role of the platform assume the organization role', async () => {
    // Act
    const allowed: string[] = [];
    for (const roleId of roleIds) {
      if ((await assumeOrganizationRole(roleId, 'sts:AssumeRole')) === 'Allowed') allowed.push(roleId);
    }

    // Assess
    expect(allowed).toEqual([listingRoleId]);
    expect(roleIds.length).toBeGreaterThan(10);
  }, 120_000);

  it('lets the engine invoke the dispatcher, and no tool function, nor assume the organization role', async () => {
    expect(await asRole(engineRoleId, 'lambda:InvokeFunction', dispatcherArn, PLATFORM)).toBe('Allowed');
    expect(await asRole(engineRoleId, 'lambda:InvokeFunction', otherToolArn, PLATFORM)).toBe(
      'ImplicitlyDenied',
    );
    expect(await assumeOrganizationRole(engineRoleId, 'sts:AssumeRole')).toBe('ImplicitlyDenied');
  });
});
