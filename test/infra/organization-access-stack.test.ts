import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { organizationConfig } from '../../bin/app-config';
import { toolCatalog } from '../../functions/tools/catalog';
import { isOrganizationTool } from '../../lib/aws-tool-grants';
import { CustomerAccessStack } from '../../lib/customer-access-stack';
import {
  ORGANIZATION_ROLE_ACTIONS,
  OrganizationAccessStack,
  type OrganizationAccessStackProps,
} from '../../lib/organization-access-stack';
import { logicalIdOf, newApp, rolePermissions } from '../helpers/cdk';
import {
  decide,
  identityPoliciesOf,
  type NamedPolicy,
  type ResolvedTemplate,
  resolveTemplate,
  sessionOf,
  trustPolicyOf,
} from '../helpers/iam-simulation';

const PLATFORM = '123456789012';
const MANAGEMENT = '100000000000';
const MEMBER = '200000000001';
const REGION = 'eu-west-1';
const EXTERNAL_ID = 'etp-acme-5d1e9b2c';
const PARAMETERS = { PlatformAccountId: PLATFORM, ExternalId: EXTERNAL_ID, TenantId: 'acme' };

function synthesize(props: Partial<OrganizationAccessStackProps> = {}) {
  const app = newApp();
  const stack = new OrganizationAccessStack(app, 'ExternalToolsOrganizationAccess', {
    organizationalUnitIds: ['r-ab12'],
    ...props,
  });
  return { app, stack, template: Template.fromStack(stack) };
}

describe('OrganizationAccessStack', () => {
  it('creates a service-managed, auto-deploying StackSet of the customer stack’s very template, in one region', () => {
    // Prepare
    const { template } = synthesize({ organizationalUnitIds: ['ou-ab12-11111111', 'ou-ab12-22222222'] });
    const customer = Template.fromStack(new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess'));

    // Act
    const stackSet = template.findResources('AWS::CloudFormation::StackSet');
    const [properties] = Object.values(stackSet).map((resource) => resource.Properties);

    // Assess
    expect(Object.keys(stackSet)).toHaveLength(1);
    expect({ ...properties, TemplateBody: undefined }).toEqual({
      StackSetName: 'ExternalToolsPlatformAudit',
      Description: 'External Tools Platform: the read-only audit role in every member account',
      PermissionModel: 'SERVICE_MANAGED',
      AutoDeployment: { Enabled: true, RetainStacksOnAccountRemoval: false },
      CallAs: 'SELF',
      Capabilities: ['CAPABILITY_NAMED_IAM'],
      ManagedExecution: { Active: true },
      OperationPreferences: { FailureTolerancePercentage: 10, MaxConcurrentPercentage: 25 },
      Parameters: [
        { ParameterKey: 'PlatformAccountId', ParameterValue: { Ref: 'PlatformAccountId' } },
        { ParameterKey: 'ExternalId', ParameterValue: { Ref: 'ExternalId' } },
        { ParameterKey: 'TenantId', ParameterValue: { Ref: 'TenantId' } },
      ],
      StackInstancesGroup: [
        {
          DeploymentTargets: { OrganizationalUnitIds: ['ou-ab12-11111111', 'ou-ab12-22222222'] },
          Regions: [{ Ref: 'AWS::Region' }],
        },
      ],
      TemplateBody: undefined,
    });
    expect(JSON.parse(properties.TemplateBody)).toEqual(customer.toJSON());
    expect(template.toJSON().Parameters.ExternalId).toMatchObject({ NoEcho: true });
  });

  it('deploys instances in the region and with the caller it is told', () => {
    // Act
    const { template } = synthesize({ instanceRegion: 'us-east-1', callAs: 'DELEGATED_ADMIN' });

    // Assess
    template.hasResourceProperties('AWS::CloudFormation::StackSet', {
      CallAs: 'DELEGATED_ADMIN',
      StackInstancesGroup: [
        { DeploymentTargets: { OrganizationalUnitIds: ['r-ab12'] }, Regions: ['us-east-1'] },
      ],
    });
  });

  it('gives the organization role exactly the list and cost actions it needs, and trusts as the customer role does', () => {
    // Prepare
    const { stack, template } = synthesize();
    const customerStack = new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess');
    const customer = Template.fromStack(customerStack).toJSON();
    const roleId = logicalIdOf(stack.organizationRole);

    // Act
    const role = template.toJSON().Resources[roleId].Properties;

    // Assess
    expect(rolePermissions(template, roleId)).toEqual(
      [...ORGANIZATION_ROLE_ACTIONS].sort().map((action) => ({ action, resource: '*' })),
    );
    expect(role).toMatchObject({ RoleName: 'ExternalToolsPlatformOrganization', MaxSessionDuration: 3600 });
    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.AssumeRolePolicyDocument).toEqual(
      customer.Resources[logicalIdOf(customerStack.auditRole)].Properties.AssumeRolePolicyDocument,
    );
  });

  it('refuses targets that are not root or OU ids', () => {
    expect(() => synthesize({ organizationalUnitIds: [] })).toThrow(
      'OrganizationAccessStack needs at least one root (r-…) or OU (ou-…) id to deploy to',
    );
    expect(() => synthesize({ organizationalUnitIds: ['123456789012'] })).toThrow(
      'OrganizationAccessStack: 123456789012 is not a root (r-…) or OU (ou-…) id',
    );
  });

  it('synthesizes with no unacknowledged cdk-nag finding and an empty validation report', () => {
    // Prepare
    const app = newApp({ cloudFormationValidation: true });
    new OrganizationAccessStack(app, 'ExternalToolsOrganizationAccess', {
      organizationalUnitIds: ['r-ab12'],
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    // Act
    const assembly = app.synth();

    // Assess
    const report = JSON.parse(readFileSync(path.join(assembly.directory, 'validation-report.json'), 'utf8'));
    expect(report.pluginReports).toEqual([]);
    expect(new AwsSolutionsChecks().validateScope(app).violations).toEqual([]);
  });
});

describe('the organization context (bin/app-config.ts)', () => {
  it('reads the organization to deploy to, as an object or JSON; absent, there is no third stack', () => {
    const context = (value: unknown) => (key: string) => (key === 'organization' ? value : undefined);
    expect(organizationConfig(context(undefined))).toBeUndefined();
    expect(
      organizationConfig(context('{"organizationalUnitIds":["r-ab12"],"callAs":"DELEGATED_ADMIN"}')),
    ).toEqual({
      organizationalUnitIds: ['r-ab12'],
      callAs: 'DELEGATED_ADMIN',
    });
    expect(() => organizationConfig(context({ organizationalUnitIds: ['o-ab12cd34ef'] }))).toThrow(
      'context organization: organizationalUnitIds.0: a root id (r-…) or an OU id (ou-…-…) (accepted keys: organizationalUnitIds, instanceRegion, callAs; docs/organizations.md, "Creating the StackSet")',
    );
    expect(() => organizationConfig(context({ organizationalUnitIds: ['r-ab12'], tenant: 'acme' }))).toThrow(
      /^context organization: \(top level\): Unrecognized key: "tenant"/,
    );
  });
});

describe('the organization and member roles, proved by the IAM simulator', () => {
  let management: ResolvedTemplate;
  let member: ResolvedTemplate;
  let organizationRoleId: string;
  let memberRoleId: string;

  beforeAll(() => {
    const { stack, template } = synthesize();
    management = resolveTemplate(template, { account: MANAGEMENT, region: REGION, parameters: PARAMETERS });
    organizationRoleId = logicalIdOf(stack.organizationRole);
    // Each member account runs the StackSet's template body as it is.
    const body = template.toJSON().Resources[logicalIdOf(stack.stackSet)].Properties.TemplateBody;
    const memberTemplate = Template.fromJSON(JSON.parse(body));
    member = resolveTemplate(memberTemplate, { account: MEMBER, region: REGION, parameters: PARAMETERS });
    memberRoleId = Object.entries(memberTemplate.findResources('AWS::IAM::Role'))[0]?.[0] as string;
  });

  const organizationRoleArn = `arn:aws:iam::${MANAGEMENT}:role/ExternalToolsPlatformOrganization`;
  const orgSession = () => ({
    principal: sessionOf(organizationRoleArn, 'etp-r1'),
    identityPolicies: identityPoliciesOf(management, organizationRoleId),
    resourceAccount: MANAGEMENT,
  });

  it.each([...ORGANIZATION_ROLE_ACTIONS])('lets the organization role call %s', async (action) => {
    expect(await decide({ ...orgSession(), action, resource: '*' })).toBe('Allowed');
  });

  it.each([
    // Organizations actions it does not need, reads included
    'organizations:ListAccounts',
    'organizations:DescribeAccount',
    'organizations:ListPolicies',
    'organizations:DescribePolicy',
    'organizations:ListDelegatedAdministrators',
    'organizations:ListHandshakesForOrganization',
    'organizations:CreateAccount',
    'organizations:CloseAccount',
    'organizations:RemoveAccountFromOrganization',
    'organizations:LeaveOrganization',
    'organizations:InviteAccountToOrganization',
    'organizations:MoveAccount',
    'organizations:AttachPolicy',
    'organizations:CreatePolicy',
    'organizations:UpdatePolicy',
    'organizations:DeleteOrganization',
    'organizations:EnableAWSServiceAccess',
    'organizations:RegisterDelegatedAdministrator',
    'organizations:TagResource',
    // Cost Explorer beyond reading costs
    'ce:GetCostForecast',
    'ce:UpdateCostAllocationTagsStatus',
    'ce:CreateAnomalyMonitor',
    // anything else in the management account
    'account:CloseAccount',
    'cloudformation:CreateStackInstances',
    'iam:CreateRole',
    'iam:PassRole',
    'sts:AssumeRole',
    's3:GetObject',
    'ec2:DescribeInstances',
  ])('refuses the organization role %s', async (action) => {
    expect(await decide({ ...orgSession(), action, resource: '*' })).toBe('ImplicitlyDenied');
  });

  /** The three authorizations of a platform AWS tool role's AssumeRole of `roleArn`. */
  async function assumeFromToolRole(
    target: { arn: string; account: string; trust: unknown },
    context: Record<string, string | string[]>,
  ): Promise<string[]> {
    const toolRoleArn = `arn:aws:iam::${PLATFORM}:role/etp-tools/aws/OrgListerRole`;
    const grant: NamedPolicy = {
      name: 'platform-grant',
      policy: {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: ['sts:AssumeRole', 'sts:TagSession', 'sts:SetSourceIdentity'],
            Resource: target.arn,
          },
        ],
      },
    };
    return Promise.all(
      ['sts:AssumeRole', 'sts:TagSession', 'sts:SetSourceIdentity'].map((action) =>
        decide({
          principal: sessionOf(toolRoleArn, 'tool'),
          identityPolicies: [grant],
          action,
          resource: target.arn,
          resourceAccount: target.account,
          resourcePolicy: target.trust,
          context: { 'aws:PrincipalArn': toolRoleArn, 'aws:PrincipalAccount': PLATFORM, ...context },
        }),
      ),
    );
  }

  const sessionTags = (tenant: string, accountId: string) => ({
    'aws:RequestTag/etp-tenant': tenant,
    'aws:RequestTag/etp-scenario': 'aws_pulse',
    'aws:RequestTag/etp-run': 'r1',
    'aws:RequestTag/etp-account': accountId,
    'aws:TagKeys': ['etp-tenant', 'etp-scenario', 'etp-run', 'etp-account'],
    'sts:SourceIdentity': `etp.${tenant}`,
  });

  it('lets a platform AWS tool role open the organization and member sessions with the ExternalId, tenant and account tags', async () => {
    // Act
    const organization = await assumeFromToolRole(
      { arn: organizationRoleArn, account: MANAGEMENT, trust: trustPolicyOf(management, organizationRoleId) },
      { ...sessionTags('acme', MANAGEMENT), 'sts:ExternalId': EXTERNAL_ID },
    );
    const memberSession = await assumeFromToolRole(
      {
        arn: `arn:aws:iam::${MEMBER}:role/ExternalToolsPlatformAudit`,
        account: MEMBER,
        trust: trustPolicyOf(member, memberRoleId),
      },
      { ...sessionTags('acme', MEMBER), 'sts:ExternalId': EXTERNAL_ID },
    );

    // Assess
    expect({ organization, memberSession }).toEqual({
      organization: ['Allowed', 'Allowed', 'Allowed'],
      memberSession: ['Allowed', 'Allowed', 'Allowed'],
    });
  });

  it.each([
    ['a wrong ExternalId', { ...sessionTags('acme', MANAGEMENT), 'sts:ExternalId': 'guessed' }],
    ['another tenant', { ...sessionTags('globex', MANAGEMENT), 'sts:ExternalId': EXTERNAL_ID }],
    [
      'a tag key beyond the call tags',
      {
        ...sessionTags('acme', MANAGEMENT),
        'aws:TagKeys': ['etp-tenant', 'etp-admin'],
        'sts:ExternalId': EXTERNAL_ID,
      },
    ],
  ])('refuses the organization role with %s', async (_kind, context) => {
    // Act
    const decisions = await assumeFromToolRole(
      { arn: organizationRoleArn, account: MANAGEMENT, trust: trustPolicyOf(management, organizationRoleId) },
      context,
    );

    // Assess
    expect(decisions).not.toEqual(['Allowed', 'Allowed', 'Allowed']);
  });

  it('keeps member roles read-only: the AWS tools’ reads, no write, no organization, no content', async () => {
    // Prepare
    const memberRoleArn = `arn:aws:iam::${MEMBER}:role/ExternalToolsPlatformAudit`;
    const call = (action: string, resource = '*') =>
      decide({
        principal: sessionOf(memberRoleArn, 'etp-r1'),
        identityPolicies: identityPoliciesOf(member, memberRoleId),
        action,
        resource,
        resourceAccount: MEMBER,
      });
    const declared = [
      ...new Set(
        toolCatalog
          .functionTools()
          // An organization tool's reads are the organization role's (lib/aws-tool-grants.ts).
          .filter((entry) => entry.spec.tags.includes('aws') && !isOrganizationTool(entry.spec))
          .flatMap((entry) =>
            entry.spec.iam.filter((grant) => !grant.resources).flatMap((grant) => grant.actions),
          ),
      ),
    ];

    // Act
    const reads = await Promise.all(declared.map((action) => call(action)));
    const writes = await Promise.all(
      [
        'ec2:TerminateInstances',
        'ec2:RunInstances',
        'iam:CreateUser',
        'iam:AttachRolePolicy',
        's3:PutObject',
        's3:DeleteBucket',
        'rds:DeleteDBInstance',
        'organizations:ListAccounts',
        'sts:AssumeRole',
      ].map((action) => call(action)),
    );
    const content = await call('s3:GetObject', 'arn:aws:s3:::photos/2026/family.jpg');

    // Assess
    expect(declared.length).toBeGreaterThan(10);
    expect(reads).toEqual(declared.map(() => 'Allowed'));
    expect(writes.every((decision) => decision === 'ImplicitlyDenied')).toBe(true);
    expect(content).toBe('ExplicitlyDenied');
  });
});
