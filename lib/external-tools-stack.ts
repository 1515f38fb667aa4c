import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import {
  ExternalToolsPlatform,
  type ExternalToolsPlatformProps,
  pascalCase,
} from './external-tools-platform';

/** Properties of an {@link ExternalToolsStack}: the stack's, and the platform's. */
export interface ExternalToolsStackProps extends StackProps, ExternalToolsPlatformProps {}

/**
 * The platform's own stack: one {@link ExternalToolsPlatform} and its outputs,
 * `SecretReferenceTableName`, `RunRecordsTableName`, `RunEventBusName`, `McpUrl` (with
 * `mcpFunctionUrl`), `ConsoleUrl` and `ConsoleUserPoolId` (with `console`) and `<Scenario>StateMachineArn` per scenario (`AwsPulseStateMachineArn`).
 *
 * @throws what {@link ExternalToolsPlatform} throws.
 */
export class ExternalToolsStack extends Stack {
  /** Everything the stack deploys. */
  public readonly platform: ExternalToolsPlatform;

  constructor(scope: Construct, id: string, props: ExternalToolsStackProps = {}) {
    super(scope, id, props);
    this.platform = new ExternalToolsPlatform(this, 'Platform', props);
    for (const [name, stateMachine] of Object.entries(this.platform.stateMachines)) {
      new CfnOutput(this, `${pascalCase(name)}StateMachineArn`, {
        description: `State machine of the ${name} scenario`,
        value: stateMachine.stateMachineArn,
      });
    }
    new CfnOutput(this, 'SecretReferenceTableName', {
      description: 'DynamoDB table of the tenants’ secret references',
      value: this.platform.secretReferenceTable.tableName,
    });
    new CfnOutput(this, 'InlineSecretKeyArn', {
      description: 'KMS key of inline secret references (etp secrets seed --ref-kind inline --kms-key-id)',
      value: this.platform.inlineSecretKey.keyArn,
    });
    new CfnOutput(this, 'RunRecordsTableName', {
      description: 'DynamoDB table of open ask_user questions and findings pointers (etp run --table)',
      value: this.platform.runRecordsTable.tableName,
    });
    new CfnOutput(this, 'RunEventBusName', {
      description: 'Event bus of the Run Completed events (docs/entry-points.md)',
      value: this.platform.eventBus.eventBusName,
    });
    if (this.platform.console) {
      new CfnOutput(this, 'ConsoleUrl', {
        description: 'The web console (docs/console.md); users sign in through its Cognito user pool',
        value: this.platform.console.url,
      });
      new CfnOutput(this, 'ConsoleUserPoolId', {
        description: 'The console user pool: add users to its tenant-<id> groups',
        value: this.platform.console.userPool.userPoolId,
      });
    }
    const functionUrl = this.platform.entryPoints.functionUrl;
    if (functionUrl) {
      new CfnOutput(this, 'McpUrl', {
        description: 'MCP endpoint (Streamable HTTP, SigV4-signed requests; docs/entry-points.md)',
        value: `${functionUrl.url}mcp`,
      });
    }
  }
}
