import { App, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { toolCatalog } from '../../functions/tools/catalog';
import { modelResourceArns } from '../../lib/engine-function';
import { loadScenarios } from '../../lib/scenarios/loader';
import {
  flattenIntrinsics,
  logicalIdOf,
  roleOf,
  rolePermissions,
  sortPermissions,
  stateMachineId,
  synthesizePlatform,
  TRACE_WRITES,
} from '../helpers/cdk';
import { shippedScenarioNames } from '../helpers/scenarios';

describe('the scenario engine function', () => {
  function synthesize() {
    const { stack, template } = synthesizePlatform();
    const engineId = logicalIdOf(stack.platform.engine.lambdaFunction);
    const engine = template.toJSON().Resources[engineId] as {
      Properties: { Timeout: number; Environment: { Variables: Record<string, unknown> } };
    };
    return { stack, template, engineId, engine };
  }

  it('may invoke only the scenarios’ models and the dispatcher (to list an organization), open run-data sessions (its only way to run files and records), and write its logs', () => {
    // Prepare
    const { stack, template, engineId } = synthesize();
    const runData = logicalIdOf(stack.platform.runData.role);
    const dispatcher = logicalIdOf(stack.platform.dispatcher.lambdaFunction);
    const logGroup = logicalIdOf(stack.platform.engine.logGroup);

    // Act
    const permissions = rolePermissions(template, roleOf(template, engineId));

    // Assess
    expect(permissions).toEqual(
      sortPermissions([
        {
          action: 'bedrock:InvokeModel',
          resource:
            'arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0',
        },
        {
          action: 'bedrock:InvokeModel',
          resource:
            'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0',
        },
        // aws_pulse_org's accounts are listed through the dispatcher (functions/engine/account-directory.ts)
        { action: 'lambda:InvokeFunction', resource: `<${dispatcher}.Arn>` },
        { action: 'lambda:InvokeFunction', resource: `<${dispatcher}.Arn>:*` },
        { action: 'logs:CreateLogStream', resource: `<${logGroup}.Arn>` },
        { action: 'logs:PutLogEvents', resource: `<${logGroup}.Arn>` },
        { action: 'sts:AssumeRole', resource: `<${runData}.Arn>` },
        { action: 'sts:SetSourceIdentity', resource: `<${runData}.Arn>` },
        { action: 'sts:TagSession', resource: `<${runData}.Arn>` },
        ...TRACE_WRITES,
      ]),
    );
  });

  it('is bundled with every scenario, knows its bucket and table, and outlives a long model answer', () => {
    // Prepare
    const { stack, engine } = synthesize();

    // Act
    const { Timeout, Environment } = engine.Properties;

    // Assess
    expect(Object.keys(stack.platform.engine.config.scenarios)).toEqual(
      loadScenarios(toolCatalog).map((s) => s.name),
    );
    expect(stack.platform.engine.config.functions.toolMb.aws_s3_inventory).toBe(
      toolCatalog.get('aws_s3_inventory').runtime?.memorySizeMb ?? 256,
    );
    expect(Timeout).toBe(300);
    expect(Environment.Variables).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'engine',
      WORKSPACE_BUCKET: { Ref: logicalIdOf(stack.platform.runWorkspace.bucket) },
      RUN_RECORDS_TABLE: { Ref: logicalIdOf(stack.platform.runRecordsTable) },
      RUN_DATA_ROLE: { 'Fn::GetAtt': [logicalIdOf(stack.platform.runData.role), 'Arn'] },
      DISPATCHER_FUNCTION: { Ref: logicalIdOf(stack.platform.dispatcher.lambdaFunction) },
    });
  });
});

describe('modelResourceArns', () => {
  const stack = new Stack(new App(), 'S', { env: { account: '123456789012', region: 'eu-west-1' } });

  it.each([
    [
      'anthropic.claude-3-5-haiku-20241022-v1:0',
      ['arn:<AWS::Partition>:bedrock:eu-west-1::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0'],
    ],
    [
      'eu.amazon.nova-lite-v1:0',
      [
        'arn:<AWS::Partition>:bedrock:eu-west-1:123456789012:inference-profile/eu.amazon.nova-lite-v1:0',
        'arn:<AWS::Partition>:bedrock:*::foundation-model/amazon.nova-lite-v1:0',
      ],
    ],
    [
      'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/abc123',
      ['arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/abc123'],
    ],
  ])('%s', (model, arns) => {
    // Act
    const resolved = modelResourceArns(stack, model).map((arn) => flattenIntrinsics(stack.resolve(arn)));

    // Assess
    expect(resolved).toEqual(arns);
  });
});

describe('the run-records table', () => {
  it('is keyed by tenant_id and record_id, expires items by TTL, with point-in-time recovery', () => {
    // Prepare
    const { template } = synthesizePlatform();

    // Act / Assess
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'tenant_id', KeyType: 'HASH' },
        { AttributeName: 'record_id', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expires_ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });
});

describe('scheduled runs', () => {
  it('start the scenario for the tenant with its checked input, through a role allowed that one state machine', () => {
    // Act
    const { stack, template } = synthesizePlatform({
      schedules: [
        {
          scenario: 'aws_pulse',
          tenant: 'acme',
          expression: 'cron(0 7 ? * MON-FRI *)',
          timeZone: 'Europe/Paris',
          input: { regions: ['eu-west-1'] },
        },
      ],
    });

    // Assess
    const machine = stateMachineId(stack, 'aws_pulse');
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule'));
    expect(schedules).toHaveLength(1);
    const properties = schedules[0]?.Properties as {
      ScheduleExpression: string;
      ScheduleExpressionTimezone: string;
      Target: { Arn: unknown; Input: string; RoleArn: unknown; RetryPolicy: unknown };
    };
    expect(properties.ScheduleExpression).toBe('cron(0 7 ? * MON-FRI *)');
    expect(properties.ScheduleExpressionTimezone).toBe('Europe/Paris');
    expect(properties.Target.Arn).toEqual({ Ref: machine });
    expect(JSON.parse(properties.Target.Input)).toEqual({
      tenant: 'acme',
      regions: ['eu-west-1'],
      slack_channel: '#aws-pulse',
    });
    expect(properties.Target.RetryPolicy).toEqual({
      MaximumEventAgeInSeconds: 3600,
      MaximumRetryAttempts: 2,
    });
    const role = flattenIntrinsics(properties.Target.RoleArn).slice(1, -'.Arn>'.length);
    expect(rolePermissions(template, role)).toEqual([
      { action: 'states:StartExecution', resource: `<${machine}>` },
    ]);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' } })],
      },
    });
  });

  it.each([
    [
      { scenario: 'aws_plus', tenant: 'acme', expression: 'rate(1 day)' },
      `no scenario "aws_plus". Scenarios: ${shippedScenarioNames().join(', ')}`,
    ],
    [
      { scenario: 'aws_pulse', tenant: 'acme', expression: 'every day' },
      '"every day" is not a Scheduler expression',
    ],
    [
      { scenario: 'aws_pulse', tenant: 'acme', expression: 'rate(1 day)', input: { regions: 5 } },
      'regions: expected "all" or a list of 1-40 AWS region names',
    ],
    [{ scenario: 'aws_pulse', tenant: 'a b', expression: 'rate(1 day)' }, 'tenant "a b" is not a tenant id'],
  ])('fail the synth on a wrong schedule: %j', (schedule, message) => {
    // Act
    const build = () => synthesizePlatform({ schedules: [schedule] });

    // Assess
    expect(build).toThrow(message);
  });
});
