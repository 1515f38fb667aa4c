import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  BedrockApiResponse,
  BedrockFunctionResponse,
} from '../../../functions/dispatcher/adapters/bedrock-agent';
import {
  type DispatcherChain,
  type DispatcherHandler,
  startDispatcherChain,
} from '../../helpers/dispatcher-chain';
import {
  bedrockApiEvent,
  bedrockFunctionEvent,
  gatewayContext,
  startFunctionUrl,
} from '../../helpers/entry-point-events';
import { fakeLambdaContext } from '../../helpers/events';
import type { LocalLambda } from '../../helpers/lambda-server';
import type { ListeningServer } from '../../helpers/loopback-server';
import type { LocalSlack } from '../../helpers/slack-server';

/**
 * The deployed dispatcher's handler (configured as the CDK bundles it, with an
 * access profile bound to a Bedrock agent, a gateway target and the function
 * URL) answering each entry point's documented event, every hop after it real
 * and local: Lambda Invoke API → the slack_post_message function → its secret
 * reference in DynamoDB (dynalite) → a Slack Web API on 127.0.0.1.
 */

const PROFILE_TOOLS = ['aws_s3_inventory', 'slack_post_blocks', 'slack_post_message'];
let lambda: LocalLambda;
let slack: LocalSlack;
let dispatcher: DispatcherHandler;
let chain: DispatcherChain;

beforeAll(async () => {
  chain = await startDispatcherChain({
    tenant: 'acme',
    tools: ['slack_post_message', 'slack_post_blocks'],
    config: {
      scenarios: { aws_pulse: { collect: ['aws_ec2_inventory'], report: ['slack_post_message'] } },
      accessProfiles: { ops: { tenant: 'acme', tools: PROFILE_TOOLS } },
      entryPoints: {
        bedrockAgents: { AGENT12345: 'ops' },
        gatewayTargets: { 'etp-tools': 'ops' },
        mcpFunctionUrl: 'ops',
      },
    },
  });
  ({ lambda, slack, dispatcher } = chain);
});

afterAll(() => chain.stop());

beforeEach(() => {
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

const context = () => fakeLambdaContext({ functionName: 'etp-dispatcher' });
const bodyOf = (text: string | undefined) => JSON.parse(text ?? 'null') as Record<string, unknown>;

describe('Bedrock Agents, function-details form', () => {
  it('calls the tool for the bound profile and answers in the function response format', async () => {
    // Prepare
    const before = lambda.invocations.length;
    const event = bedrockFunctionEvent('slack_post_message', { channel: '#aws-pulse', text: 'deploy done' });

    // Act
    const response = (await dispatcher(event, context())) as BedrockFunctionResponse;

    // Assess: the documented response shape, the session attributes handed back
    expect(Object.keys(response).sort()).toEqual([
      'messageVersion',
      'promptSessionAttributes',
      'response',
      'sessionAttributes',
    ]);
    expect(response).toMatchObject({
      messageVersion: '1.0',
      response: { actionGroup: 'etp_tools', function: 'slack_post_message' },
      sessionAttributes: { team: 'platform' },
    });
    expect(response.response.functionResponse.responseState).toBeUndefined();
    expect(bodyOf(response.response.functionResponse.responseBody.TEXT.body)).toMatchObject({
      ok: true,
      tool: 'slack_post_message',
      callId: 'bedrock_agent/0',
      value: { channel: 'C0AWSPULSE' },
    });
    // …the tool ran for the profile's tenant, with no scenario, under an entry-point run id
    expect(lambda.invocations.slice(before)).toEqual([
      expect.objectContaining({
        event: {
          tenant: 'acme',
          tool: 'slack_post_message',
          args: { channel: '#aws-pulse', text: 'deploy done' },
          runId: expect.stringMatching(/^bedrock-[0-9a-f]{12}-[0-9a-f]{16}$/),
          callId: 'bedrock_agent/0',
        },
      }),
    ]);
    expect(JSON.stringify(response)).not.toContain(slack.botToken);
  });

  it('gives a re-sent event the same call identity and a new turn a new one', async () => {
    // Prepare
    const before = lambda.invocations.length;
    const event = bedrockFunctionEvent('slack_post_message', { channel: '#aws-pulse', text: 'same' });

    // Act
    await dispatcher(event, context());
    await dispatcher(event, context());
    await dispatcher({ ...event, inputText: 'post it again' }, context());

    // Assess
    const runIds = lambda.invocations.slice(before).map((i) => (i.event as { runId: string }).runId);
    expect(runIds[0]).toBe(runIds[1]);
    expect(runIds[2]).not.toBe(runIds[0]);
    expect(runIds[2]?.slice(0, 21)).toBe(runIds[0]?.slice(0, 21));
  });

  it('answers invalid arguments with REPROMPT and the invalid_args result, invoking nothing', async () => {
    // Prepare
    const before = lambda.invocations.length;

    // Act
    const response = (await dispatcher(
      bedrockFunctionEvent('slack_post_message', { channel: '#aws-pulse' }),
      context(),
    )) as BedrockFunctionResponse;

    // Assess
    expect(response.response.functionResponse.responseState).toBe('REPROMPT');
    expect(bodyOf(response.response.functionResponse.responseBody.TEXT.body)).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', message: expect.stringContaining('text') },
    });
    expect(lambda.invocations.length).toBe(before);
  });

  it('refuses a tenant sent as an argument: the tenant comes from the profile only', async () => {
    // Act
    const response = (await dispatcher(
      bedrockFunctionEvent('slack_post_message', { channel: '#aws-pulse', text: 'hi', tenant: 'other' }),
      context(),
    )) as BedrockFunctionResponse;

    // Assess
    expect(bodyOf(response.response.functionResponse.responseBody.TEXT.body)).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', message: expect.stringContaining('tenant') },
    });
  });

  it("answers a tool outside the profile with REPROMPT and tool_not_allowed listing the profile's tools", async () => {
    // Act
    const response = (await dispatcher(
      bedrockFunctionEvent('aws_ec2_inventory', { regions: '["eu-west-1"]' }),
      context(),
    )) as BedrockFunctionResponse;

    // Assess
    expect(response.response.functionResponse.responseState).toBe('REPROMPT');
    expect(bodyOf(response.response.functionResponse.responseBody.TEXT.body)).toMatchObject({
      ok: false,
      error: { code: 'tool_not_allowed', details: { allowed: PROFILE_TOOLS } },
    });
  });

  it('answers an agent bound to no profile with FAILURE and access_denied, invoking nothing', async () => {
    // Prepare
    const before = lambda.invocations.length;
    const event = bedrockFunctionEvent(
      'slack_post_message',
      { channel: '#aws-pulse', text: 'hi' },
      { agent: { name: 'other', id: 'OTHER00001', alias: 'A', version: '1' } },
    );

    // Act
    const response = (await dispatcher(event, context())) as BedrockFunctionResponse;

    // Assess
    expect(response.response.functionResponse.responseState).toBe('FAILURE');
    expect(bodyOf(response.response.functionResponse.responseBody.TEXT.body)).toMatchObject({
      ok: false,
      error: { code: 'access_denied', message: expect.stringContaining('OTHER00001') },
    });
    expect(lambda.invocations.length).toBe(before);
  });
});

describe('Bedrock Agents, API-schema form', () => {
  it('answers POST /tools/<tool> in the API response format with status 200', async () => {
    // Act
    const response = (await dispatcher(
      bedrockApiEvent('slack_post_message', { channel: '#aws-pulse', text: 'via OpenAPI' }),
      context(),
    )) as BedrockApiResponse;

    // Assess
    expect(response).toMatchObject({
      messageVersion: '1.0',
      response: {
        actionGroup: 'etp_tools_api',
        apiPath: '/tools/slack_post_message',
        httpMethod: 'POST',
        httpStatusCode: 200,
      },
    });
    expect(bodyOf(response.response.responseBody['application/json'].body)).toMatchObject({
      ok: true,
      value: { channel: 'C0AWSPULSE' },
    });
  });

  it('answers invalid arguments with status 400 and the invalid_args result', async () => {
    // Act
    const response = (await dispatcher(
      bedrockApiEvent('slack_post_blocks', { channel: '#aws-pulse', text: 'x', blocks: '{"not":"a list"}' }),
      context(),
    )) as BedrockApiResponse;

    // Assess
    expect(response.response.httpStatusCode).toBe(400);
    expect(bodyOf(response.response.responseBody['application/json'].body)).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', message: expect.stringContaining('blocks') },
    });
  });
});

describe('AgentCore Gateway Lambda target', () => {
  it('strips the target prefix, decodes JSON-encoded arguments and returns the ToolResult', async () => {
    // Prepare
    const before = slack.messages.length;
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*deploy* done' } }];

    // Act
    const result = await dispatcher(
      { channel: '#aws-pulse', text: 'deploy done', blocks: JSON.stringify(blocks) },
      gatewayContext('etp-tools___slack_post_blocks', 'gw-request-1'),
    );

    // Assess
    expect(result).toMatchObject({
      ok: true,
      tool: 'slack_post_blocks',
      callId: 'agentcore_gateway/0',
      value: { channel: 'C0AWSPULSE' },
    });
    expect(slack.messages.slice(before)).toEqual([expect.objectContaining({ text: 'deploy done', blocks })]);
    const invocation = lambda.invocations.at(-1)?.event as { tenant: string; runId: string };
    expect(invocation.tenant).toBe('acme');
    expect(invocation.runId).toMatch(/^gateway-[0-9a-f]{12}-[0-9a-f]{16}$/);
  });

  it('answers invalid arguments with an ok false invalid_args result, not an error', async () => {
    // Act
    const result = await dispatcher(
      { channel: '#aws-pulse' },
      gatewayContext('etp-tools___slack_post_message'),
    );

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
  });

  it('refuses a tool outside the profile', async () => {
    // Act
    const result = await dispatcher({}, gatewayContext('etp-tools___aws_iam_audit'));

    // Assess
    expect(result).toMatchObject({ ok: false, tool: 'aws_iam_audit', error: { code: 'tool_not_allowed' } });
  });

  it('refuses a call through a target bound to no profile, invoking nothing', async () => {
    // Prepare
    const before = lambda.invocations.length;

    // Act
    const result = await dispatcher(
      { channel: '#aws-pulse', text: 'hi' },
      gatewayContext('other-target___slack_post_message'),
    );

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'access_denied' } });
    expect(lambda.invocations.length).toBe(before);
  });
});

describe('MCP over Streamable HTTP on the function URL, driven by the MCP SDK client', () => {
  let url: ListeningServer;
  let client: Client;

  beforeAll(async () => {
    url = await startFunctionUrl(dispatcher);
    client = new Client({ name: 'etp-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url.url}/mcp`)));
  });

  afterAll(async () => {
    await client.close();
    await url.stop();
  });

  it('initializes and lists the profile of the function URL', async () => {
    // Act
    const { tools } = await client.listTools();

    // Assess
    expect(client.getServerVersion()).toMatchObject({ name: 'external-tools-platform' });
    expect(tools.map((tool) => tool.name).sort()).toEqual(PROFILE_TOOLS);
    expect(tools.every((tool) => tool.outputSchema?.type === 'object')).toBe(true);
  });

  it('calls a tool for the profile tenant', async () => {
    // Act
    const result = await client.callTool({
      name: 'slack_post_message',
      arguments: { channel: '#aws-pulse', text: 'over HTTP' },
    });

    // Assess
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ ok: true, callId: 'mcp/0' });
    expect(lambda.invocations.at(-1)?.event).toMatchObject({ tenant: 'acme' });
  });

  it('answers invalid arguments and a tool outside the profile with isError results', async () => {
    // Act
    const invalid = await client.callTool({ name: 'slack_post_message', arguments: { text: 'no channel' } });
    const refused = await client.callTool({ name: 'aws_ec2_inventory', arguments: {} });

    // Assess
    expect(invalid).toMatchObject({ isError: true, structuredContent: { error: { code: 'invalid_args' } } });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'tool_not_allowed' } },
    });
  });

  it('answers GET (no SSE stream on a buffered function URL) with 405 and other paths with 404', async () => {
    // Act
    const get = await fetch(`${url.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    const elsewhere = await fetch(`${url.url}/other`, { method: 'POST', body: '{}' });

    // Assess
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(elsewhere.status).toBe(404);
  });
});

describe('exactly once per logical call, at every entry point (docs/entry-points.md, "What identifies a call")', () => {
  it('Bedrock Agents: a repeated event posts once and is answered with the first outcome', async () => {
    // Prepare
    const before = slack.messages.length;
    const event = bedrockFunctionEvent('slack_post_message', { channel: '#aws-pulse', text: 'bedrock once' });

    // Act
    const first = await dispatcher(event, context());
    const repeat = await dispatcher(event, context());

    // Assess
    const posted = slack.messages.slice(before);
    expect(posted.map((m) => m.text)).toEqual(['bedrock once']);
    expect(repeat).toEqual(first);
    expect(JSON.stringify(first)).toContain(posted[0]?.ts);
  });

  it('AgentCore Gateway: a retry without the Gateway request id posts once, with the first outcome', async () => {
    // Prepare: no bedrockAgentCoreAwsRequestId, and a new Lambda request id on every attempt
    const before = slack.messages.length;
    const withoutRequestId = () => {
      const gateway = gatewayContext('etp-tools___slack_post_message');
      const custom = { ...(gateway.clientContext as unknown as { custom: Record<string, string> }).custom };
      delete custom.bedrockAgentCoreAwsRequestId;
      return { ...gateway, clientContext: { custom } } as unknown as typeof gateway;
    };
    const args = { channel: '#aws-pulse', text: 'gateway once' };

    // Act
    const first = await dispatcher(args, withoutRequestId());
    const retry = await dispatcher(args, withoutRequestId());

    // Assess
    expect(slack.messages.slice(before).map((m) => m.text)).toEqual(['gateway once']);
    expect(retry).toEqual(first);
  });

  it('MCP over HTTP: a tools/call retried as a new request with a new JSON-RPC id posts once', async () => {
    // Prepare: two clients, so the retry is a new connection and request as well
    const url = await startFunctionUrl(dispatcher);
    const clients = [0, 1].map(() => new Client({ name: 'etp-retry-test', version: '1.0.0' }));
    try {
      for (const client of clients) {
        await client.connect(new StreamableHTTPClientTransport(new URL(`${url.url}/mcp`)));
      }
      const before = slack.messages.length;
      const call = { name: 'slack_post_message', arguments: { channel: '#aws-pulse', text: 'mcp once' } };

      // Act
      const first = await clients[0]?.callTool(call);
      const retry = await clients[1]?.callTool(call);
      const other = await clients[1]?.callTool({
        ...call,
        arguments: { ...call.arguments, text: 'mcp other' },
      });

      // Assess: one post for the logical call, the retry answered with its outcome; new args are a new call
      expect(slack.messages.slice(before).map((m) => m.text)).toEqual(['mcp once', 'mcp other']);
      expect(retry?.structuredContent).toEqual(first?.structuredContent);
      expect(other?.isError).toBe(false);
    } finally {
      for (const client of clients) await client.close();
      await url.stop();
    }
  });
});
