import { type App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { contentSecurityPolicy } from '../../functions/console/headers';
import { ExternalToolsStack } from '../../lib/external-tools-stack';
import { logicalIdOf, newApp } from '../helpers/cdk';
import {
  arnIn,
  decide,
  identityPoliciesOf,
  type NamedPolicy,
  resolveTemplate,
  sessionOf,
  trustPolicyOf,
} from '../helpers/iam-simulation';
import { shippedScenarioNames } from '../helpers/scenarios';

const TENANTS = ['acme', 'globex'];
const ACCOUNT = '111122223333';
const REGION = 'eu-west-1';

function consoleStack() {
  const app = newApp();
  const stack = new ExternalToolsStack(app, 'ExternalToolsPlatform', { console: { tenants: TENANTS } });
  return { app, stack, template: Template.fromStack(stack) };
}

/** Every statement of the console API function's role policies. */
function apiStatements(
  template: Template,
): { Effect: string; Action: string | string[]; Resource: unknown }[] {
  const roles = template.findResources('AWS::IAM::Role');
  const apiRole = Object.keys(roles).find((id) => id.startsWith('PlatformConsoleApiRole'));
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.values(policies)
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === apiRole))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

/** Every acknowledgment under the console construct and the stack's BucketDeployment function. */
function acknowledgedReasons(app: App): { id: string; reason: string }[] {
  return app.node
    .findAll()
    .filter((c) => /\/(Console|Custom::CDKBucketDeployment[^/]*)(\/|$)/.test(c.node.path))
    .flatMap((c) =>
      c.node.metadata
        .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) =>
          Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
            id: id.replace(/^Annotation::/, ''),
            reason,
          })),
        ),
    );
}

describe('the console construct', () => {
  it('synthesizes with cdk-nag clean, every acknowledgment with its reason', () => {
    // Prepare
    const { app } = consoleStack();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    // Act: synthesis fails on any finding nobody acknowledged (cdk-nag.test.ts proves the check is live)
    const assembly = app.synth();

    // Assess
    expect(assembly.getStackByName('ExternalToolsPlatform').template.Resources).toBeDefined();
    expect(new AwsSolutionsChecks().validateScope(app).violations).toEqual([]);
    const reasons = acknowledgedReasons(app);
    expect(reasons.map(({ id }) => id)).toEqual(
      expect.arrayContaining(['AwsSolutions-CFR1', 'AwsSolutions-CFR3']),
    );
    for (const { reason } of reasons) expect(reason.length).toBeGreaterThan(40);
  });

  it('serves the page from a private bucket through origin access control, with the strict CSP', () => {
    // Act
    const { template } = consoleStack();

    // Assess
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    const headers = Object.values(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0];
    const security = headers?.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = JSON.stringify(security.ContentSecurityPolicy.ContentSecurityPolicy);
    for (const directive of contentSecurityPolicy()
      .split('; ')
      .filter((d) => !d.startsWith('connect-src'))) {
      expect(csp).toContain(directive);
    }
    expect(csp).toContain("connect-src 'self' https://");
    expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(security.StrictTransportSecurity.AccessControlMaxAgeSec).toBeGreaterThanOrEqual(31_536_000);
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: { LogFilePrefix: 'console-assets/' },
    });
  });

  it('signs in through Cognito with MFA, no self sign-up, and one group per tenant', () => {
    // Act
    const { template } = consoleStack();

    // Assess
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      MfaConfiguration: 'ON',
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
    });
    const groups = Object.values(template.findResources('AWS::Cognito::UserPoolGroup')).map(
      (group) => group.Properties.GroupName,
    );
    expect(groups.sort()).toEqual(TENANTS.map((tenant) => `tenant-${tenant}`));
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      AllowedOAuthFlows: ['code'],
      GenerateSecret: false,
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', { AuthorizerType: 'JWT' });
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) expect(route.Properties.AuthorizationType).toBe('JWT');
  });

  it('gives the API no secret value and only the console’s rights', () => {
    // Act
    const statements = apiStatements(consoleStack().template);

    // Assess
    const actions = (effect: string) =>
      statements.filter((s) => s.Effect === effect).flatMap((s) => [s.Action].flat());
    expect(actions('Deny').sort()).toEqual([
      'secretsmanager:BatchGetSecretValue',
      'secretsmanager:GetSecretValue',
    ]);
    // Tenant data only through the tenant role's sessions: nothing of the tables, bucket or secrets.
    const own = actions('Allow').filter((action) => /^(secretsmanager|s3|dynamodb):/.test(action));
    expect(own).toEqual([]);
    expect(
      statements
        .filter((s) => [s.Action].flat().includes('sts:AssumeRole'))
        .map((s) => [[s.Action].flat().sort(), s.Resource]),
    ).toEqual([[['sts:AssumeRole', 'sts:SetSourceIdentity', 'sts:TagSession'], expect.anything()]]);
    expect(actions('Allow').some((action) => action.includes('*'))).toBe(false);
  });

  it("lets the API start and read the history of the scenarios' own executions only (IAM simulator)", async () => {
    // Prepare
    const resolved = resolveTemplate(consoleStack().template, { account: ACCOUNT, region: REGION });
    const roleId = Object.keys(resolved.resources).find(
      (id) => id.startsWith('PlatformConsoleApiRole') && resolved.resources[id]?.Type === 'AWS::IAM::Role',
    );
    const policies = identityPoliciesOf(resolved, roleId ?? '');
    const machines = Object.values(resolved.arns).filter((arn) => arn.includes(':stateMachine:'));
    const ask = (action: string, resource: string) =>
      decide({
        principal: sessionOf(arnIn(resolved, roleId ?? ''), 'console'),
        identityPolicies: policies,
        action,
        resource,
        resourceAccount: ACCOUNT,
      });
    const another = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:SomeoneElses`;

    // Assess: every scenario state machine, and nothing else
    expect(machines.length).toBe(shippedScenarioNames().length);
    for (const machine of machines) {
      const execution = `${machine.replace(':stateMachine:', ':execution:')}:run-20261201T000000Z-abcdef`;
      expect(await ask('states:StartExecution', machine)).toBe('Allowed');
      expect(await ask('states:GetExecutionHistory', execution)).toBe('Allowed');
      expect(await ask('states:StopExecution', execution)).toBe('ImplicitlyDenied');
      expect(await ask('states:DescribeExecution', execution)).toBe('ImplicitlyDenied');
      expect(await ask('states:StartSyncExecution', machine)).toBe('ImplicitlyDenied');
    }
    expect(await ask('states:StartExecution', another)).toBe('ImplicitlyDenied');
    expect(
      await ask('states:GetExecutionHistory', `${another.replace(':stateMachine:', ':execution:')}:run-1`),
    ).toBe('ImplicitlyDenied');
  });

  describe('tenant isolation by IAM (IAM simulator)', () => {
    const { stack, template } = consoleStack();
    const resolved = resolveTemplate(template, { account: ACCOUNT, region: REGION });
    const platformConsole = stack.platform.console;
    if (!platformConsole) throw new Error('the stack has no console');
    const tenantRoleId = logicalIdOf(platformConsole.tenantRole);
    const apiRoleId = logicalIdOf(platformConsole.api.role);
    const tenantRoleArn = arnIn(resolved, tenantRoleId);
    const apiRoleArn = arnIn(resolved, apiRoleId);
    const references = arnIn(resolved, logicalIdOf(stack.platform.secretReferenceTable));
    const records = arnIn(resolved, logicalIdOf(stack.platform.runRecordsTable));
    const bucket = arnIn(resolved, logicalIdOf(stack.platform.runWorkspace.bucket));
    const secret = (tenant: string) =>
      `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:etp/${tenant}/slack_default-AbCdEf`;

    /** What a caller may do, given its identity policies and its session's tags. */
    const askAs =
      (principal: string, policies: readonly NamedPolicy[], tags: Record<string, string>) =>
      (action: string, resource: string, context: Record<string, string | string[]> = {}) =>
        decide({
          principal,
          identityPolicies: policies,
          action,
          resource,
          resourceAccount: ACCOUNT,
          context: { ...tags, ...context },
        });
    const tenantSession = (tenant: string) =>
      askAs(sessionOf(tenantRoleArn, 'etp-console'), identityPoliciesOf(resolved, tenantRoleId), {
        'aws:PrincipalTag/etp-tenant': tenant,
      });
    const apiRole = askAs(sessionOf(apiRoleArn, 'console'), identityPoliciesOf(resolved, apiRoleId), {});

    /** Every read and write the console makes of one tenant's data, with that tenant's keys. */
    const tenantRequests = (tenant: string): [string, string, Record<string, string | string[]>][] => [
      ...['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'].map(
        (action): [string, string, Record<string, string | string[]>] => [
          action,
          references,
          { 'dynamodb:LeadingKeys': [tenant] },
        ],
      ),
      ['dynamodb:Query', records, { 'dynamodb:LeadingKeys': [tenant] }],
      ['dynamodb:UpdateItem', records, { 'dynamodb:LeadingKeys': [tenant] }],
      ['s3:GetObject', `${bucket}/runs/${tenant}/aws_pulse/run-1/summary.json`, {}],
      ['s3:ListBucket', bucket, { 's3:prefix': `runs/${tenant}/` }],
      ['s3:ListBucket', bucket, { 's3:prefix': `runs/${tenant}/aws_pulse/` }],
      ['secretsmanager:DescribeSecret', secret(tenant), { 'aws:ResourceTag/etp-tenant': tenant }],
    ];

    it("lets a session tagged acme read and change acme's references, runs and questions", async () => {
      const acme = tenantSession('acme');
      for (const [action, resource, context] of tenantRequests('acme'))
        expect([action, resource, await acme(action, resource, context)]).toEqual([
          action,
          resource,
          'Allowed',
        ]);
      // An untagged secret can be described, so the page can say it lacks the tag.
      expect(await acme('secretsmanager:DescribeSecret', secret('acme'))).toBe('Allowed');
    });

    it("refuses a session tagged acme every one of globex's references, runs, workspace files and secrets", async () => {
      const acme = tenantSession('acme');
      for (const [action, resource, context] of tenantRequests('globex'))
        expect([action, resource, await acme(action, resource, context)]).toEqual([
          action,
          resource,
          'ImplicitlyDenied',
        ]);
      // Nor both tenants' keys at once, nor the whole table, nor a listing above the tenant's prefix.
      expect(await acme('dynamodb:Query', references, { 'dynamodb:LeadingKeys': ['acme', 'globex'] })).toBe(
        'ImplicitlyDenied',
      );
      expect(await acme('dynamodb:Scan', references)).toBe('ImplicitlyDenied');
      expect(await acme('dynamodb:Scan', records)).toBe('ImplicitlyDenied');
      expect(await acme('s3:ListBucket', bucket, { 's3:prefix': 'runs/' })).toBe('ImplicitlyDenied');
      expect(await acme('s3:ListBucket', bucket)).toBe('ImplicitlyDenied');
      expect(await acme('s3:GetObject', `${bucket}/scratch/acme/run-1/x.json`)).toBe('ImplicitlyDenied');
      expect(await acme('s3:PutObject', `${bucket}/runs/acme/aws_pulse/run-1/x.json`)).toBe(
        'ImplicitlyDenied',
      );
      expect(await acme('dynamodb:PutItem', references, { 'dynamodb:LeadingKeys': ['acme'] })).toBe(
        'ImplicitlyDenied',
      );
      expect(
        await acme('secretsmanager:GetSecretValue', secret('acme'), { 'aws:ResourceTag/etp-tenant': 'acme' }),
      ).toBe('ExplicitlyDenied');
    });

    it('refuses an untagged session of the tenant role everything', async () => {
      const untagged = askAs(
        sessionOf(tenantRoleArn, 'etp-console'),
        identityPoliciesOf(resolved, tenantRoleId),
        {},
      );
      for (const [action, resource, context] of tenantRequests('acme'))
        expect([action, await untagged(action, resource, context)]).toEqual([action, 'ImplicitlyDenied']);
    });

    it("gives the console function's own role no read of any tenant's data", async () => {
      for (const tenant of TENANTS)
        for (const [action, resource, context] of tenantRequests(tenant))
          expect([action, resource, await apiRole(action, resource, context)]).toEqual([
            action,
            resource,
            'ImplicitlyDenied',
          ]);
      expect(await apiRole('dynamodb:Scan', references)).toBe('ImplicitlyDenied');
      expect(await apiRole('s3:ListBucket', bucket, { 's3:prefix': 'runs/' })).toBe('ImplicitlyDenied');
    });

    it('lets the console function, and no other role, open a session of the tenant role tagged with one tenant', async () => {
      const trust = trustPolicyOf(resolved, tenantRoleId);
      const assume = (
        principal: string,
        arn: string,
        policies: readonly NamedPolicy[],
        tags: Record<string, string | string[]>,
      ) =>
        Promise.all(
          ['sts:AssumeRole', 'sts:TagSession', 'sts:SetSourceIdentity'].map((action) =>
            decide({
              principal,
              identityPolicies: policies,
              action,
              resource: tenantRoleArn,
              resourceAccount: ACCOUNT,
              resourcePolicy: trust,
              context: { 'aws:PrincipalArn': arn, 'aws:PrincipalAccount': ACCOUNT, ...tags },
            }),
          ),
        );
      const tagged = {
        'aws:RequestTag/etp-tenant': 'acme',
        'aws:TagKeys': ['etp-tenant'],
        'sts:SourceIdentity': 'etp.acme',
      };
      const apiPolicies = identityPoliciesOf(resolved, apiRoleId);
      const anything: NamedPolicy = {
        name: 'sts-anything',
        policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'sts:*', Resource: '*' }] },
      };
      const dispatcherArn = arnIn(resolved, logicalIdOf(stack.platform.dispatcher.role));

      expect(await assume(sessionOf(apiRoleArn, 'console'), apiRoleArn, apiPolicies, tagged)).toEqual([
        'Allowed',
        'Allowed',
        'Allowed',
      ]);
      // Another tag besides the tenant, or none: refused by the trust policy.
      expect(
        (
          await assume(sessionOf(apiRoleArn, 'console'), apiRoleArn, apiPolicies, {
            ...tagged,
            'aws:TagKeys': ['etp-tenant', 'etp-admin'],
          })
        )[1],
      ).toBe('ImplicitlyDenied');
      expect(
        (
          await assume(sessionOf(apiRoleArn, 'console'), apiRoleArn, apiPolicies, {
            'sts:SourceIdentity': 'etp.acme',
          })
        )[0],
      ).toBe('ImplicitlyDenied');
      // The dispatcher, even with every STS right, is not trusted.
      expect(await assume(sessionOf(dispatcherArn, 'dispatcher'), dispatcherArn, [anything], tagged)).toEqual(
        ['ImplicitlyDenied', 'ImplicitlyDenied', 'ImplicitlyDenied'],
      );
    });
  });

  it('is absent without the console prop', () => {
    // Act
    const template = Template.fromStack(new ExternalToolsStack(newApp(), 'ExternalToolsPlatform'));

    // Assess
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.resourceCountIs('AWS::CloudFront::Distribution', 0);
  });
});
