/**
 * The CDK app (`cdk.json`: `npx tsx bin/app.ts`), checked by cdk-nag's AWS
 * Solutions rules at synthesis (an unacknowledged finding fails `cdk synth` and
 * `cdk deploy`). Two stacks:
 *
 * - `ExternalToolsPlatform`, the platform, deployed in the platform's account;
 * - `ExternalToolsCustomerAccess`, the read-only audit role, deployed in each
 *   customer's account (`cdk deploy ExternalToolsCustomerAccess --parameters …`,
 *   README "Onboarding a customer account").
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CustomerAccessStack } from '../lib/customer-access-stack';
import { ExternalToolsStack } from '../lib/external-tools-stack';

const app = new App();
// The CLI sets these from the current credentials; without them (offline synth)
// the templates are environment-agnostic.
const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
new ExternalToolsStack(app, 'ExternalToolsPlatform', {
  description: 'External Tools Platform: tool dispatcher, tool functions, secret references, scenarios',
  env,
});
new CustomerAccessStack(app, 'ExternalToolsCustomerAccess', { env });
// cdk-nag 3 is a validation plugin (the older `Aspects.of(app).add(...)` form fails).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
