/**
 * The CDK app (`cdk.json`: `npx tsx bin/app.ts`), checked by cdk-nag's AWS
 * Solutions rules at synthesis (an unacknowledged finding fails `cdk synth` and
 * `cdk deploy`). Two stacks (a third when the context names an organization), each deployed by name:
 *
 * - `ExternalToolsPlatform`, the platform, deployed in the platform's account
 *   (`npx cdk deploy ExternalToolsPlatform`); its entry points and schedules come
 *   from the CDK context (`bin/app-config.ts`: `platform` in cdk.json or `-c`, or a
 *   file named by `-c platformConfig=…`);
 * - `ExternalToolsCustomerAccess`, the read-only audit role, deployed in each
 *   customer's account without CDK bootstrap (README, "Onboarding a customer account");
 * - when the context names an organization (`-c organization='{"organizationalUnitIds":["r-ab12"]}'`),
 *   `ExternalToolsOrganizationAccess`, deployed in its management account: the
 *   organization role and the StackSet of the audit role (docs/organizations.md).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CustomerAccessStack } from '../lib/customer-access-stack';
import { ExternalToolsStack } from '../lib/external-tools-stack';
import { OrganizationAccessStack } from '../lib/organization-access-stack';
import { configuredProps, organizationConfig, platformConfig } from './app-config';
import { DEFAULT_STACK_NAME } from './stack-name';

/**
 * Builds the app's stacks. A bad configuration (the context, a prop the constructs
 * refuse) is one line on stderr and exit 1, not Node's uncaught-error stack trace:
 * each message already names the key, its value and what is accepted. `CDK_DEBUG=true`
 * (the CDK's own debug switch) prints the stack too.
 */
function buildApp(): void {
  const app = new App();
  // The CLI sets these from the current credentials; without them (offline synth)
  // the templates are environment-agnostic.
  const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  const configured = configuredProps(platformConfig((key) => app.node.tryGetContext(key)));
  new ExternalToolsStack(app, DEFAULT_STACK_NAME, {
    description: 'External Tools Platform: tool dispatcher, tool functions, secret references, scenarios',
    env,
    ...configured,
  });
  // The customer accounts' Athena workgroup and database bear the names the platform's tools use.
  new CustomerAccessStack(app, 'ExternalToolsCustomerAccess', {
    env,
    ...(configured.snapshotAthena ? { snapshotAthena: configured.snapshotAthena } : {}),
  });
  const organization = organizationConfig((key) => app.node.tryGetContext(key));
  if (organization)
    new OrganizationAccessStack(app, 'ExternalToolsOrganizationAccess', { env, ...organization });
  // cdk-nag 3 is a validation plugin (the older `Aspects.of(app).add(...)` form fails).
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}

try {
  buildApp();
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
  if (process.env.CDK_DEBUG === 'true' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
}
