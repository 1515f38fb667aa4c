import { type App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { contentSecurityPolicy } from '../../functions/console/headers';
import { ExternalToolsStack } from '../../lib/external-tools-stack';
import { newApp } from '../helpers/cdk';
import { arnIn, decide, identityPoliciesOf, resolveTemplate, sessionOf } from '../helpers/iam-simulation';
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
    expect(actions('Allow').filter((action) => action.startsWith('secretsmanager:'))).toEqual([
      'secretsmanager:DescribeSecret',
    ]);
    expect(
      actions('Allow')
        .filter((action) => action.startsWith('s3:'))
        .sort(),
    ).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(actions('Allow').some((action) => action.includes('*'))).toBe(false);
    expect(actions('Allow')).not.toContain('dynamodb:PutItem');
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

  it('is absent without the console prop', () => {
    // Act
    const template = Template.fromStack(new ExternalToolsStack(newApp(), 'ExternalToolsPlatform'));

    // Assess
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.resourceCountIs('AWS::CloudFront::Distribution', 0);
  });
});
