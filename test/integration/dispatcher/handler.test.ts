import type { Context } from 'aws-lambda';
import type { ToolResult } from '../../../functions/runtime/result';
import { type DispatcherChain, startDispatcherChain } from '../../helpers/dispatcher-chain';
import { fakeLambdaContext, nativeEnvelope } from '../../helpers/events';
import type { LocalLambda } from '../../helpers/lambda-server';
import type { LocalSlack } from '../../helpers/slack-server';

/**
 * The deployed chain, every hop real and local: the dispatcher Lambda handler
 * (configured as the CDK bundles it) → Lambda Invoke API →
 * the slack_post_message function handler → its secret reference in DynamoDB
 * (dynalite) → the Slack Web API. Only the endpoints differ from AWS, through the
 * SDK's standard `AWS_ENDPOINT_URL_<SERVICE>` variables.
 */
type Handler = (event: unknown, context: Context) => Promise<ToolResult>;

let lambda: LocalLambda;
let slack: LocalSlack;
let dispatcher: Handler;
let chain: DispatcherChain;

beforeAll(async () => {
  chain = await startDispatcherChain({
    tenant: 'default',
    tools: ['slack_post_message'],
    config: { scenarios: { aws_pulse: { collect: ['aws_ec2_inventory'], report: ['slack_post_message'] } } },
  });
  ({ lambda, slack } = chain);
  // A native envelope is answered with a ToolResult (the other entry points' responses are not sent here).
  dispatcher = chain.dispatcher as Handler;
});

afterAll(() => chain.stop());

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

  it.each([
    ['a number', 42, 'a number'],
    ['empty', '', 'an empty string'],
    ['too long', 'A'.repeat(2049), 'a string of 2049 characters'],
  ])(
    'answers a taskToken that is %s with invalid_args saying what is accepted, invoking nothing',
    async (_, taskToken, given) => {
      // Prepare
      const before = lambda.invocations.length;
      const envelope = {
        ...nativeEnvelope({
          level: 'report',
          tool: 'slack_post_message',
          args: { channel: '#c', text: 'x' },
        }),
        taskToken,
      };

      // Act
      const result = await dispatcher(envelope, fakeLambdaContext({ functionName: 'etp-dispatcher' }));

      // Assess: a result, not a Lambda error.
      expect(result).toMatchObject({
        ok: false,
        tool: 'slack_post_message',
        callId: 'collect/0',
        error: {
          code: 'invalid_args',
          message: `taskToken must be a Step Functions task token: a string of 1 to 2048 characters ($$.Task.Token), got ${given}`,
        },
      });
      expect(lambda.invocations).toHaveLength(before);
    },
  );
});
