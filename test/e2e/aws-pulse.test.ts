import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { executeLocally } from '../../bin/local/local-execution';
import { type DispatcherConfig, toolFunctionName } from '../../functions/dispatcher/config';
import type { ToolResult } from '../../functions/runtime/result';
import { DynamoDbSecretReferenceStore } from '../../functions/runtime/secrets/dynamodb-store';
import { DISPATCHER_ARN_PLACEHOLDER } from '../../lib/scenarios/asl';
import { flattenIntrinsics, synthesizePlatform } from '../helpers/cdk';
import { createSecretReferenceTable, type LocalDynamoDb, startDynalite } from '../helpers/dynalite';
import { mockedClientRegion } from '../helpers/ec2-pages';
import { bundleDispatcherConfig, fakeLambdaContext } from '../helpers/events';
import { type LocalLambda, startLambdaServer } from '../helpers/lambda-server';
import { type LocalSlack, startSlackServer } from '../helpers/slack-server';

/**
 * The aws_pulse state machine AS SYNTHESIZED BY CDK, run by a local Amazon States
 * Language interpreter (aws-local-stepfunctions). Its Task states go to the real
 * dispatcher handler in this process, configured as the CDK bundles it; the dispatcher invokes the real tool handlers through a Lambda Invoke
 * API on 127.0.0.1; secret references are read from dynalite; EC2 answers with
 * DescribeInstances shapes from the EC2 API reference; Slack is a Web API server on
 * 127.0.0.1.
 */
type Handler = (event: unknown, context: Context) => Promise<ToolResult>;

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const ec2 = mockClient(EC2Client);

let dynamo: LocalDynamoDb;
let lambda: LocalLambda;
let slack: LocalSlack;
let definition: Record<string, unknown>;
let dispatcher: Handler;

function synthesizedPulse(): {
  definition: Record<string, unknown>;
  environment: Record<string, unknown>;
  config: DispatcherConfig;
} {
  const { stack, template } = synthesizePlatform();
  const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
  const properties = machine?.Properties as {
    DefinitionString: unknown;
    DefinitionSubstitutions: { DispatcherArn: { 'Fn::GetAtt': [string, string] } };
  };
  const dispatcherId = properties.DefinitionSubstitutions.DispatcherArn['Fn::GetAtt'][0];
  const dispatcherArn = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${dispatcherId}`;
  const text = flattenIntrinsics(properties.DefinitionString).replaceAll(
    DISPATCHER_ARN_PLACEHOLDER,
    dispatcherArn,
  );
  const dispatcherFunction = template.findResources('AWS::Lambda::Function')[dispatcherId];
  if (!dispatcherFunction) throw new Error(`No dispatcher function ${dispatcherId} in the template`);
  const functionProperties = dispatcherFunction.Properties as {
    Environment: { Variables: Record<string, unknown> };
  };
  const environment = functionProperties.Environment.Variables;
  return {
    definition: JSON.parse(text) as Record<string, unknown>,
    environment,
    config: stack.platform.dispatcherConfig,
  };
}

/** A DescribeInstances page as the EC2 API reference shows it. */
function reservation(
  instances: { id: string; state: 'running' | 'stopped'; type: string; launched: string }[],
) {
  return {
    Reservations: [
      {
        ReservationId: 'r-0123456789abcdef0',
        OwnerId: ACCOUNT,
        Instances: instances.map((i) => ({
          InstanceId: i.id,
          InstanceType: i.type,
          State: { Code: i.state === 'running' ? 16 : 80, Name: i.state },
          LaunchTime: new Date(i.launched),
          PrivateIpAddress: '10.0.0.12',
          PlatformDetails: 'Linux/UNIX',
          Tags: [{ Key: 'Name', Value: `web-${i.id.slice(-2)}` }],
        })),
      },
    ],
  };
}

beforeAll(async () => {
  [dynamo, lambda, slack] = await Promise.all([startDynalite(), startLambdaServer(), startSlackServer()]);
  const table = await createSecretReferenceTable(dynamo.client);
  const store = new DynamoDbSecretReferenceStore(table, dynamo.client);
  await store.put({
    tenant_id: 'default',
    secret_name: 'aws_default',
    ref_kind: 'env',
    ref_value: 'ETP_E2E_AWS',
  });
  await store.put({
    tenant_id: 'default',
    secret_name: 'slack_default',
    ref_kind: 'env',
    ref_value: 'ETP_E2E_SLACK',
  });
  await store.put({
    tenant_id: 'acme',
    secret_name: 'slack_default',
    ref_kind: 'env',
    ref_value: 'ETP_E2E_SLACK',
  });

  const synthesized = synthesizedPulse();
  definition = synthesized.definition;
  const functionName = (tool: string) => toolFunctionName(synthesized.config.toolFunctionNamePrefix, tool);
  bundleDispatcherConfig(synthesized.config);
  Object.assign(process.env, {
    AWS_REGION: REGION,
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    SECRET_REFS_TABLE: table,
    SLACK_API_URL: slack.apiUrl,
    RESULT_MAX_BYTES: flattenIntrinsics(synthesized.environment.RESULT_MAX_BYTES),
    ETP_E2E_AWS: JSON.stringify({ region: REGION }),
    ETP_E2E_SLACK: JSON.stringify({ bot_token: slack.botToken }),
  });
  // The handlers read their configuration when loaded: require them now that it is set.
  const ec2Tool = jest.requireActual<typeof import('../../functions/tools/aws/ec2-inventory')>(
    '../../functions/tools/aws/ec2-inventory',
  );
  const slackTool = jest.requireActual<typeof import('../../functions/tools/slack/post-message')>(
    '../../functions/tools/slack/post-message',
  );
  lambda.setFunction(functionName('aws_ec2_inventory'), ec2Tool.handler);
  lambda.setFunction(functionName('slack_post_message'), slackTool.handler);
  // A native envelope is answered with a ToolResult (the other entry points' responses are not sent here).
  dispatcher = jest.requireActual<typeof import('../../functions/dispatcher/handler')>(
    '../../functions/dispatcher/handler',
  ).handler as Handler;
}, 60_000);

afterAll(async () => {
  await Promise.all([dynamo.stop(), lambda.stop(), slack.stop()]);
});

beforeEach(() => {
  ec2.reset();
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

async function runPulse(input: Record<string, unknown>, runId: string): Promise<Record<string, unknown>> {
  const dispatch = (payload: unknown) =>
    dispatcher(payload, fakeLambdaContext({ functionName: 'etp-dispatcher' }));
  return (await executeLocally(definition, input, dispatch, { runId, checkArns: true })) as Record<
    string,
    unknown
  >;
}

describe('aws_pulse, the synthesized state machine, run locally end to end', () => {
  it('inventories EC2 in two regions and posts the summary to Slack', async () => {
    // Prepare: eu-west-1 has two instances over two pages, us-east-1 one.
    ec2
      .on(DescribeInstancesCommand)
      .callsFake(async (input: { NextToken?: string }, getClient: () => unknown) => {
        const region = await mockedClientRegion(getClient);
        if (region === 'us-east-1') {
          return reservation([
            { id: 'i-0aaaaaaaaaaaaaa03', state: 'stopped', type: 't3.small', launched: '2024-01-03' },
          ]);
        }
        return input.NextToken === undefined
          ? {
              ...reservation([
                { id: 'i-0aaaaaaaaaaaaaa01', state: 'running', type: 'm5.large', launched: '2023-06-01' },
              ]),
              NextToken: 'page-2',
            }
          : reservation([
              { id: 'i-0aaaaaaaaaaaaaa02', state: 'running', type: 't3.small', launched: '2024-02-01' },
            ]);
      });

    // Act
    const output = await runPulse(
      { regions: ['eu-west-1', 'us-east-1'], slack_channel: 'C0AWSPULSE' },
      'e2e-run-1',
    );

    // Assess: the message Slack received
    expect(slack.messages).toHaveLength(1);
    expect(slack.messages[0]).toMatchObject({
      channel: 'C0AWSPULSE',
      text: 'AWS pulse for tenant default (run e2e-run-1): 3 EC2 instances in 2 regions (2 running)',
    });
    // …the tool functions the dispatcher invoked, in order, with no secret in any payload
    expect(lambda.invocations.map((i) => (i.event as { tool: string }).tool)).toEqual([
      'aws_ec2_inventory',
      'slack_post_message',
    ]);
    expect(JSON.stringify(lambda.invocations)).not.toContain(slack.botToken);
    // …and the execution's output
    const results = output.results as Record<string, ToolResult>;
    expect(results.collect_0).toMatchObject({
      ok: true,
      callId: 'collect/0',
      value: {
        totalInstances: 3,
        byState: { running: 2, stopped: 1 },
        byInstanceType: { 'm5.large': 1, 't3.small': 2 },
      },
    });
    expect(results.report_0).toMatchObject({ ok: true, value: { via: 'bot_token', channel: 'C0AWSPULSE' } });
    expect(JSON.stringify(output)).not.toContain(slack.botToken);
  });

  it('reports a failed collect level in the Slack message instead of aborting the run', async () => {
    // Prepare: tenant acme has a Slack secret but no aws_default reference.
    const before = slack.messages.length;

    // Act
    const output = await runPulse(
      { tenant: 'acme', regions: ['eu-west-1'], slack_channel: 'C0AWSPULSE' },
      'e2e-run-2',
    );

    // Assess
    expect(slack.messages.slice(before).map((m) => m.text)).toEqual([
      'AWS pulse for tenant acme (run e2e-run-2): secret_not_found: Tenant "acme" has no secret reference named "aws_default"',
    ]);
    const results = output.results as Record<string, ToolResult>;
    expect(results.collect_0).toMatchObject({
      ok: false,
      error: { code: 'secret_not_found', retryable: false },
    });
    expect(results.report_0).toMatchObject({ ok: true });
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(0);
  });
});
