import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { type App, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CustomerAccessStack } from '../../lib/customer-access-stack';
import { ExternalToolsStack } from '../../lib/external-tools-stack';
import { newApp } from '../helpers/cdk';

/**
 * The app as bin/app.ts builds it: the platform stack and the customer-access
 * stack, checked at synthesis by cdk-nag's AWS Solutions pack and CDK's built-in
 * CloudFormation template validation.
 */
function checkedApp(): { app: App; stack: ExternalToolsStack; customer: CustomerAccessStack } {
  const app = newApp({ cloudFormationValidation: true });
  const stack = new ExternalToolsStack(app, 'ExternalToolsPlatform');
  const customer = new CustomerAccessStack(app, 'ExternalToolsCustomerAccess');
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, customer };
}

/** Every acknowledgment recorded under `scope`: rule id → reason. */
function acknowledgments(scope: Stack): { path: string; id: string; reason: string }[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id,
          reason,
        })),
      ),
  );
}

describe('synthesis checks: cdk-nag (AWS Solutions) and CloudFormation template validation', () => {
  it('synthesizes both stacks with no unacknowledged finding and an empty validation report', () => {
    // Prepare
    const { app } = checkedApp();

    // Act
    const assembly = app.synth();

    // Assess
    const report = JSON.parse(readFileSync(path.join(assembly.directory, 'validation-report.json'), 'utf8'));
    expect(report.pluginReports).toEqual([]);
    expect(new AwsSolutionsChecks().validateScope(app).violations).toEqual([]);
    expect(assembly.stacks.map((stack) => stack.stackName).sort()).toEqual([
      'ExternalToolsCustomerAccess',
      'ExternalToolsPlatform',
    ]);
  });

  it('acknowledges only wildcard resources of IAM policies on roles, each with its reason', () => {
    // Prepare
    const { stack, customer } = checkedApp();

    // Act
    const acknowledged = [...acknowledgments(stack), ...acknowledgments(customer)];

    // Assess
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { id, reason } of acknowledged) {
      expect(id).toMatch(/^Annotation::AwsSolutions-IAM5\[Resource::[^\]]*\*[^\]]*\]$/);
      expect(reason.length).toBeGreaterThan(60);
    }
    const roles = /\/Role$|\/TenantSecretReaders\/Reader[a-z0-9_]+$|^ExternalToolsCustomerAccess\/AuditRole$/;
    expect(acknowledged.filter(({ path: where }) => !roles.test(where))).toEqual([]);
  });

  it('fails synthesis on a finding nobody acknowledged (the check is live)', () => {
    // Prepare
    const { app } = checkedApp();
    const other = new Stack(app, 'Careless');
    new Role(other, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }).addToPolicy(
      new PolicyStatement({ actions: ['s3:*'], resources: ['*'] }),
    );

    // Act
    const synth = () => app.synth();

    // Assess
    expect(synth).toThrow(/AwsSolutions-IAM5\[Action::s3:\*\]/);
    expect(existsSync(path.join(app.outdir, 'validation-report.json'))).toBe(true);
  });
});
