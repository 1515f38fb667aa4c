/**
 * The CDK app (`cdk.json`: `npx tsx bin/app.ts`): the External Tools Platform
 * stack, checked by cdk-nag's AWS Solutions rules at synthesis. An unacknowledged
 * finding fails `cdk synth` and `cdk deploy`.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ExternalToolsStack } from '../lib/external-tools-stack';

const app = new App();
new ExternalToolsStack(app, 'ExternalToolsPlatform', {
  description: 'External Tools Platform: tool dispatcher, tool functions, secret references, scenarios',
  // The CLI sets these from the current credentials; without them (offline synth)
  // the template is environment-agnostic.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
// cdk-nag 3 is a validation plugin (the older `Aspects.of(app).add(...)` form fails).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
