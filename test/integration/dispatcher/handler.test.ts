import type { Context } from 'aws-lambda';
import type { ToolResult } from '../../../functions/runtime/result';
import { DynamoDbSecretReferenceStore } from '../../../functions/runtime/secrets/dynamodb-store';
import {
  createIdempotencyTable,
  createSecretReferenceTable,
  type LocalDynamoDb,
  startDynalite,
} from '../../helpers/dynalite';
import { bundleDispatcherConfig, fakeLambdaContext, nativeEnvelope } from '../../helpers/events';
import { type LocalLambda, startLambdaServer } from '../../helpers/lambda-server';
import { FAKE_AWS_CREDENTIALS } from '../../helpers/loopback-server';
import { type LocalSlack, startSlackServer } from '../../helpers/slack-server';

/**
 * The deployed chain, every hop real and local: the dispatcher Lambda handler
 * (configured as the CDK bundles it) → Lambda Invoke API →
 * the slack_post_message function handler → its secret reference in DynamoDB
 * (dynalite) → the Slack Web API. Only the endpoints differ from AWS, through the
 * SDK's standard `AWS_ENDPOINT_URL_<SERVICE>` variables.
 */
type Handler = (event: unknown, context: Context) => Promise<ToolResult>;

let dynamo: LocalDynamoDb;
let lambda: LocalLambda;
let slack: LocalSlack;
let dispatcher: Handler;

beforeAll(async () => {
  [dynamo, lambda, slack] = await Promise.all([startDynalite(), startLambdaServer(), startSlackServer()]);
  const table = await createSecretReferenceTable(dynamo.client);
  // slack_post_message is a write tool: its function records each call once.
  const idempotencyTable = await createIdempotencyTable(dynamo.client);
  await new DynamoDbSecretReferenceStore(table, dynamo.client).put({
    tenant_id: 'default',
    secret_name: 'slack_default',
    ref_kind: 'env',
    ref_value: 'ETP_TEST_SLACK_DEFAULT',
  });
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: FAKE_AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_AWS_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    SECRET_REFS_TABLE: table,
    IDEMPOTENCY_TABLE: idempotencyTable,
    SLACK_API_URL: slack.apiUrl,
    ETP_TEST_SLACK_DEFAULT: JSON.stringify({ bot_token: slack.botToken }),
  });
  bundleDispatcherConfig({
    scenarios: { aws_pulse: { collect: ['aws_ec2_inventory'], report: ['slack_post_message'] } },
    toolFunctionNamePrefix: 'etp-',
  });
  // Both handlers read their configuration when loaded: load them now that it is set
  // (with require: Jest runs CommonJS, and `import()` needs its experimental VM modules).
  const tool = jest.requireActual<typeof import('../../../functions/tools/slack/post-message')>(
    '../../../functions/tools/slack/post-message',
  );
  lambda.setFunction('etp-slack_post_message', tool.handler);
  // A native envelope is answered with a ToolResult (the other entry points' responses are not sent here).
  dispatcher = jest.requireActual<typeof import('../../../functions/dispatcher/handler')>(
    '../../../functions/dispatcher/handler',
  ).handler as Handler;
});

afterAll(async () => {
  await Promise.all([dynamo.stop(), lambda.stop(), slack.stop()]);
});

beforeEach(() => {
  // Both handlers log each call: keep the output to the test results.
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('dispatcher Lambda → tool Lambda → DynamoDB secret → Slack, all local', () => {
  it('posts the report message and returns the tool result; no secret travels in the call', async () => {
    // Prepare
    const envelope = nativeEnvelope({
      level: 'report',
      callId: 'report/0',
      tool: 'slack_post_message',
      args: JSON.stringify({ channel: '#aws-pulse', text: 'AWS pulse: 6 EC2 instances (3 running)' }),
    });

    // Act
    const result = await dispatcher(envelope, fakeLambdaContext({ functionName: 'etp-dispatcher' }));

    // Assess
    expect(result).toMatchObject({
      ok: true,
      tool: 'slack_post_message',
      callId: 'report/0',
      value: { via: 'bot_token', channel: 'C0AWSPULSE', ts: slack.messages[0]?.ts },
    });
    expect(slack.messages).toEqual([
      expect.objectContaining({ channel: 'C0AWSPULSE', text: 'AWS pulse: 6 EC2 instances (3 running)' }),
    ]);
    expect(lambda.invocations).toEqual([
      {
        functionName: 'etp-slack_post_message',
        invocationType: 'RequestResponse',
        event: {
          tenant: 'default',
          scenario: 'aws_pulse',
          level: 'report',
          tool: 'slack_post_message',
          args: { channel: '#aws-pulse', text: 'AWS pulse: 6 EC2 instances (3 running)' },
          runId: 'run-2024-05-01T00-00-00Z',
          callId: 'report/0',
        },
      },
    ]);
    expect(JSON.stringify(lambda.invocations)).not.toContain(slack.botToken);
    expect(JSON.stringify(result)).not.toContain(slack.botToken);
  });

  it('refuses the tool at a level that does not list it, invoking nothing', async () => {
    // Prepare
    const before = lambda.invocations.length;
    const envelope = nativeEnvelope({
      level: 'collect',
      tool: 'slack_post_message',
      args: { channel: '#aws-pulse', text: 'out of place' },
    });

    // Act
    const result = await dispatcher(envelope, fakeLambdaContext({ functionName: 'etp-dispatcher' }));

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'tool_not_allowed' } });
    expect(lambda.invocations).toHaveLength(before);
  });
});
