import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { PlatformFunction } from '../../lib/platform-function';
import { logicalIdOf, newApp, rolePermissions, TRACE_WRITES } from '../helpers/cdk';

const ENTRY = path.join(__dirname, '../../functions/dispatcher/handler.ts');

/** A stack holding one PlatformFunction built with `props`, and its template. */
function synthesizeFunction(props: Partial<ConstructorParameters<typeof PlatformFunction>[2]> = {}) {
  const stack = new Stack(newApp(), 'Functions');
  const platformFunction = new PlatformFunction(stack, 'Example', { entry: ENTRY, ...props });
  const template = Template.fromStack(stack);
  const properties = template.toJSON().Resources[logicalIdOf(platformFunction.lambdaFunction)].Properties;
  return { platformFunction, template, properties };
}

describe('PlatformFunction', () => {
  it('runs nodejs24.x on arm64 with 256 MB and 60 s unless told otherwise', () => {
    // Prepare, Act
    const { properties } = synthesizeFunction();

    // Assess
    expect(properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 256,
      Timeout: 60,
      Handler: 'index.handler',
    });
  });

  it('takes memory and timeout from a tool spec’s runtime settings', () => {
    // Prepare, Act
    const { properties } = synthesizeFunction({ memorySizeMb: 1024, timeoutSeconds: 300 });

    // Assess
    expect(properties).toMatchObject({ MemorySize: 1024, Timeout: 300 });
  });

  it('sets exactly the given environment', () => {
    // Prepare, Act
    const { properties } = synthesizeFunction({
      environment: { POWERTOOLS_SERVICE_NAME: 'example', NODE_OPTIONS: '--max-old-space-size=200' },
    });

    // Assess
    expect(properties.Environment.Variables).toEqual({
      POWERTOOLS_SERVICE_NAME: 'example',
      NODE_OPTIONS: '--max-old-space-size=200',
    });
  });

  it('sets no NODE_OPTIONS of its own: stacks are mapped by the injected module, not --enable-source-maps', () => {
    // Prepare, Act
    const { properties } = synthesizeFunction();

    // Assess
    expect(properties.Environment?.Variables ?? {}).toEqual({});
  });

  it('logs to its own log group, kept one month', () => {
    // Prepare, Act
    const { platformFunction, template, properties } = synthesizeFunction();
    const logGroupId = logicalIdOf(platformFunction.logGroup);

    // Assess
    expect(properties.LoggingConfig).toEqual({ LogGroup: { Ref: logGroupId } });
    expect(template.toJSON().Resources[logGroupId]).toMatchObject({
      Type: 'AWS::Logs::LogGroup',
      Properties: { RetentionInDays: 30 },
      DeletionPolicy: 'Retain',
    });
  });

  it('has its own role with no managed policy, allowed only to write to its log group and send traces', () => {
    // Prepare, Act
    const { platformFunction, template, properties } = synthesizeFunction();
    const roleId = logicalIdOf(platformFunction.role);
    const logGroup = `<${logicalIdOf(platformFunction.logGroup)}.Arn>`;

    // Assess
    expect(properties.Role).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    expect(template.toJSON().Resources[roleId].Properties.ManagedPolicyArns).toBeUndefined();
    expect(rolePermissions(template, roleId)).toEqual([
      { action: 'logs:CreateLogStream', resource: logGroup },
      { action: 'logs:PutLogEvents', resource: logGroup },
      ...TRACE_WRITES,
    ]);
  });
});
