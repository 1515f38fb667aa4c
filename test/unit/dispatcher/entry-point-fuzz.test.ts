import { PassThrough } from 'node:stream';
import { serveMcp } from '../../../bin/cli/mcp';
import { handleGatewayCall } from '../../../functions/dispatcher/adapters/agentcore-gateway';
import {
  type BedrockAgentEvent,
  type BedrockFunctionResponse,
  handleBedrockAgentEvent,
} from '../../../functions/dispatcher/adapters/bedrock-agent';
import { handleMcpFunctionUrl } from '../../../functions/dispatcher/adapters/mcp-function-url';
import { createDispatcher } from '../../../functions/dispatcher/dispatch';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { logger } from '../../../functions/runtime/logger';
import { toolCatalog } from '../../../functions/tools/catalog';
import { bedrockFunctionEvent, EXAMPLE_AGENT } from '../../helpers/entry-point-events';

/**
 * Malformed input at each entry point, each case with the exact code it must get
 * (issue 18): MCP over HTTP the JSON-RPC codes, Bedrock Agents and AgentCore
 * Gateway `invalid_args` for input too deep, too large or wrong, before any
 * recursive work and without a stack overflow. No tool function is ever invoked.
 */

const PROFILE_TOOLS = toolCatalog.functionTools().map((entry) => entry.spec.name);
let invoked = 0;
const dispatch = createDispatcher({
  catalog: toolCatalog,
  whitelists: {},
  invoker: {
    invoke: () => {
      invoked++;
      return Promise.reject(new Error('no tool function may be invoked for malformed input'));
    },
  },
  services: { logger },
  logger,
  maxResultBytes: 64 * 1024,
  requireLevel: false,
});
const deps = {
  catalog: toolCatalog,
  dispatch,
  profiles: { ops: { tenant: 'acme', tools: PROFILE_TOOLS } },
  bindings: {
    bedrockAgents: { [EXAMPLE_AGENT.id]: 'ops' },
    gatewayTargets: { 'etp-tools': 'ops' },
    mcpFunctionUrl: 'ops',
  },
  version: '0.0.0-test',
};

beforeEach(() => {
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
  expect(invoked).toBe(0);
});

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const request = (method: string, params?: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const call = (args: unknown) => request('tools/call', { name: 'slack_post_message', arguments: args });
/**
 * Malformed MCP messages, each with the JSON-RPC code it must get on either transport and
 * the id its answer carries: the request's id when it could be read (JSON-RPC 2.0,
 * "Response object"), else null.
 */
const MCP_CASES: readonly (readonly [string, string, number, 1 | null])[] = [
  // -32700: not JSON at all
  ['an empty body', '', -32700, null],
  ['a lone brace', '{', -32700, null],
  ['plain text', 'not json', -32700, null],
  ['a cut message', '{"jsonrpc":"2.0","id":1,"method":', -32700, null],
  ['a NUL byte', '\u0000', -32700, null],
  ['an open bracket', '[', -32700, null],
  ['single quotes', "{'jsonrpc':'2.0'}", -32700, null],
  ['NaN', 'NaN', -32700, null],
  ['undefined', 'undefined', -32700, null],
  ['a trailing comma', '{"jsonrpc":"2.0","id":1,}', -32700, null],
  ['XML', '<rpc/>', -32700, null],
  ['two messages glued', '{"jsonrpc":"2.0"}{"jsonrpc":"2.0"}', -32700, null],
  ['a BOM and garbage', '\ufeff}{', -32700, null],
  ['unbalanced deep brackets', '['.repeat(10_000), -32700, null],
  // -32600: JSON, but not one JSON-RPC 2.0 message
  ['an empty batch', '[]', -32600, null],
  ['a batch of one', `[${request('tools/list')}]`, -32600, null],
  ['a batch holding one id twice', `[${request('tools/list')},${request('tools/list')}]`, -32600, null],
  ['null', 'null', -32600, null],
  ['a number', '1', -32600, null],
  ['a string', '"tools/list"', -32600, null],
  ['true', 'true', -32600, null],
  ['an empty object', '{}', -32600, null],
  ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', -32600, 1],
  ['jsonrpc as a number', '{"jsonrpc":2,"id":1,"method":"tools/list"}', -32600, 1],
  ['no jsonrpc', '{"id":1,"method":"tools/list"}', -32600, 1],
  ['a numeric method', '{"jsonrpc":"2.0","id":1,"method":5}', -32600, 1],
  ['a null method', '{"jsonrpc":"2.0","id":1,"method":null}', -32600, 1],
  ['an object id', '{"jsonrpc":"2.0","id":{},"method":"tools/list"}', -32600, null],
  ['an array id', '{"jsonrpc":"2.0","id":[1],"method":"ping"}', -32600, null],
  ['a boolean id', '{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, null],
  ['a null id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, null],
  ['string params', request('tools/list', 'all'), -32600, 1],
  ['numeric params', request('tools/list', 5), -32600, 1],
  ['boolean params', request('tools/call', true), -32600, 1],
  ['neither request nor response', '{"jsonrpc":"2.0","id":1}', -32600, 1],
  ['a result without an id', '{"jsonrpc":"2.0","result":{}}', -32600, null],
  ['a deep array (valid JSON)', nested(5_000), -32600, null],
  // -32602: a readable request with params the method does not take
  ['tools/call arguments as a string', call('{"channel":"C1"}'), -32602, 1],
  ['tools/call arguments as a number', call(5), -32602, 1],
  ['tools/call arguments as true', call(true), -32602, 1],
  ['tools/call arguments as an array', call([{ channel: 'C1' }]), -32602, 1],
  ['tools/call arguments as an empty array', call([]), -32602, 1],
  ['tools/call without a name', request('tools/call', { arguments: {} }), -32602, 1],
  ['tools/call with a numeric name', request('tools/call', { name: 5 }), -32602, 1],
  ['tools/call with a null name', request('tools/call', { name: null }), -32602, 1],
  ['tools/call with an object name', request('tools/call', { name: {} }), -32602, 1],
  ['tools/call with array params', request('tools/call', ['slack_post_message', {}]), -32602, 1],
  ['tools/call with no params', request('tools/call'), -32602, 1],
  [
    'tools/call with _meta as a string',
    request('tools/call', { name: 'slack_post_message', _meta: 'k' }),
    -32602,
    1,
  ],
  [
    'tools/call with a numeric idempotency key',
    request('tools/call', { name: 'slack_post_message', _meta: { 'dev.etp/idempotency-key': 7 } }),
    -32602,
    1,
  ],
  [
    'tools/call with an empty idempotency key',
    request('tools/call', { name: 'slack_post_message', _meta: { 'dev.etp/idempotency-key': '' } }),
    -32602,
    1,
  ],
  [
    'tools/call with a 256-character idempotency key',
    request('tools/call', {
      name: 'slack_post_message',
      _meta: { 'dev.etp/idempotency-key': 'k'.repeat(256) },
    }),
    -32602,
    1,
  ],
  [
    'tools/call with a control character in its idempotency key',
    request('tools/call', { name: 'slack_post_message', _meta: { 'dev.etp/idempotency-key': 'a\nb' } }),
    -32602,
    1,
  ],
  ['tools/list with an unknown cursor', request('tools/list', { cursor: 'page-2' }), -32602, 1],
  ['tools/list with an empty cursor', request('tools/list', { cursor: '' }), -32602, 1],
  ['tools/list with a numeric cursor', request('tools/list', { cursor: 2 }), -32602, 1],
  ['tools/list with an object cursor', request('tools/list', { cursor: {} }), -32602, 1],
  ['tools/list with array params', request('tools/list', []), -32602, 1],
];

describe('MCP over HTTP (function URL): malformed messages get the JSON-RPC code the specification defines', () => {
  it('holds at least 50 cases', () => {
    expect(MCP_CASES.length).toBeGreaterThanOrEqual(50);
  });

  it.each(MCP_CASES)('answers %s with %#', async (_name, body, code, id) => {
    // Act
    const response = (await handleMcpFunctionUrl(
      {
        version: '2.0',
        rawPath: '/mcp',
        rawQueryString: '',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        isBase64Encoded: false,
        requestContext: {
          http: { method: 'POST' },
          requestId: 'req-1',
          domainName: 'example.lambda-url.eu-west-1.on.aws',
          authorizer: { iam: { userArn: 'arn:aws:iam::123456789012:user/fuzzer' } },
        },
      } as never,
      deadlineIn(10_000),
      deps,
    )) as { statusCode: number; body?: string };

    // Assess: the exact code, and the HTTP status that goes with it
    const answer = JSON.parse(response.body ?? 'null') as { error?: { code: number }; id: unknown };
    expect(answer).toEqual({ jsonrpc: '2.0', id, error: { code, message: expect.any(String) } });
    expect(response.statusCode).toBe(code === -32602 ? 200 : 400);
  });

  it('refuses a notification with wrong params with 400 and an error without id (it has none to echo)', async () => {
    // Act
    const response = (await handleMcpFunctionUrl(
      {
        version: '2.0',
        rawPath: '/mcp',
        rawQueryString: '',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'tools/list', params: { cursor: 'page-2' } }),
        isBase64Encoded: false,
        requestContext: {
          http: { method: 'POST' },
          requestId: 'req-3',
          domainName: 'example.lambda-url.eu-west-1.on.aws',
          authorizer: { iam: { userArn: 'arn:aws:iam::123456789012:user/fuzzer' } },
        },
      } as never,
      deadlineIn(10_000),
      deps,
    )) as { statusCode: number; body?: string };

    // Assess: MCP "Transports", Streamable HTTP: input the server cannot accept is an HTTP error
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body ?? 'null')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32602, message: expect.stringContaining('unknown cursor') },
    });
  });

  it('serves a client that accepts application/json only, and lists only its own tools for an unknown one', async () => {
    // Prepare
    const post = async (body: string) =>
      (await handleMcpFunctionUrl(
        {
          version: '2.0',
          rawPath: '/mcp',
          rawQueryString: '',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body,
          isBase64Encoded: false,
          requestContext: {
            http: { method: 'POST' },
            requestId: 'req-2',
            domainName: 'example.lambda-url.eu-west-1.on.aws',
            authorizer: { iam: { userArn: 'arn:aws:iam::123456789012:user/fuzzer' } },
          },
        } as never,
        deadlineIn(10_000),
        { ...deps, profiles: { ops: { tenant: 'acme', tools: ['slack_post_message'] } } },
      )) as { statusCode: number; body?: string };

    // Act
    const listed = await post(request('tools/list'));
    const nullCursor = await post(request('tools/list', { cursor: null }, 2));
    const unknown = await post(request('tools/call', { name: 'aws_made_up', arguments: {} }));

    // Assess: a null cursor is "not given" (the first and only page), not an unknown cursor
    expect(listed.statusCode).toBe(200);
    expect({ status: nullCursor.statusCode, answer: JSON.parse(nullCursor.body ?? '{}') }).toEqual({
      status: 200,
      answer: { ...JSON.parse(listed.body ?? '{}'), id: 2 },
    });
    const tools = (JSON.parse(listed.body ?? '{}') as { result: { tools: { name: string }[] } }).result.tools;
    expect(tools.map((tool) => tool.name)).toEqual(['slack_post_message']);
    const result = (
      JSON.parse(unknown.body ?? '{}') as { result: { isError: boolean; structuredContent: unknown } }
    ).result;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      ok: false,
      error: {
        code: 'unknown_tool',
        message: 'Unknown tool "aws_made_up". This server offers: slack_post_message',
      },
    });
  });
});

/** The JSON-RPC lines `etp mcp` writes to `output`, parsed, once `count` have come. */
function stdioAnswers(output: PassThrough, count: number): Promise<Record<string, unknown>[]> {
  return new Promise((resolve) => {
    let text = '';
    output.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const lines = text.split('\n').filter((line) => line !== '');
      if (lines.length >= count) resolve(lines.map((line) => JSON.parse(line) as Record<string, unknown>));
    });
  });
}

describe('MCP over stdio (etp mcp): the same checks and codes as over HTTP', () => {
  // One message per line (MCP "Transports", stdio): a blank line is no message, see below.
  const LINE_CASES = MCP_CASES.filter(([, body]) => body.trim() !== '');

  it('holds at least 50 cases', () => {
    expect(LINE_CASES.length).toBeGreaterThanOrEqual(50);
  });

  it.each(LINE_CASES)('answers %s with %#', async (_name, line, code, id) => {
    // Prepare
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveMcp(
      { profile: 'ops', tenant: 'acme', tools: PROFILE_TOOLS },
      { input, output },
      undefined,
    );
    const answers = stdioAnswers(output, 1);

    // Act
    input.write(`${line}\n`);

    // Assess: one answer, with the exact code and the request's id when it was readable
    const [answer] = await answers;
    expect(answer).toEqual({ jsonrpc: '2.0', id, error: { code, message: expect.any(String) } });
    input.end();
    await served;
  });

  /**
   * Each case whose message carries an id, sent without it: a malformed notification
   * (-32602: a well-formed message whose params are wrong) gets no answer at all
   * (JSON-RPC 2.0, "Notification": the server MUST NOT reply), while a message that is no
   * valid request (-32600) is still answered, with id null ("Response object").
   */
  const WITHOUT_ID = LINE_CASES.flatMap(([name, line, code, id]) => {
    if (id === null) return [];
    const { id: _dropped, ...message } = JSON.parse(line) as Record<string, unknown>;
    return [[name, JSON.stringify(message), code] as const];
  });

  it('holds every case with an id, sent without it too', () => {
    expect(WITHOUT_ID).toHaveLength(LINE_CASES.filter(([, , , id]) => id !== null).length);
    expect(WITHOUT_ID.filter(([, line]) => line.includes('"id"'))).toEqual([]);
  });

  it.each(WITHOUT_ID)('answers %s without an id as JSON-RPC says (%#)', async (_name, line, code) => {
    // Prepare
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveMcp(
      { profile: 'ops', tenant: 'acme', tools: PROFILE_TOOLS },
      { input, output },
      undefined,
    );
    const answers = stdioAnswers(output, code === -32602 ? 1 : 2);

    // Act: the message, then a ping whose answer comes after anything the message gets
    input.write(`${line}\n`);
    input.write(`${request('ping', undefined, 99)}\n`);

    // Assess
    const ping = { jsonrpc: '2.0', id: 99, result: {} };
    expect(await answers).toEqual(
      code === -32602
        ? [ping]
        : [{ jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } }, ping],
    );
    input.end();
    await served;
  });

  it('reads a null cursor as none: tools/list answers the one page, as without a cursor', async () => {
    // Prepare
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveMcp(
      { profile: 'ops', tenant: 'acme', tools: ['slack_post_message'] },
      { input, output },
      undefined,
    );
    const answers = stdioAnswers(output, 2);

    // Act
    input.write(`${request('tools/list', undefined, 1)}\n`);
    input.write(`${request('tools/list', { cursor: null }, 2)}\n`);

    // Assess
    const [first, second] = await answers;
    expect(second).toEqual({ ...first, id: 2 });
    expect(
      (first as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name),
    ).toEqual(['slack_post_message']);
    input.end();
    await served;
  });

  it('skips blank lines and answers the message after them, a message split across writes included', async () => {
    // Prepare
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveMcp(
      { profile: 'ops', tenant: 'acme', tools: PROFILE_TOOLS },
      { input, output },
      undefined,
    );
    const answers = stdioAnswers(output, 2);
    const cursor = request('tools/list', { cursor: 'é' }, 7);

    // Act: blank lines, then a request cut inside a two-byte character, then a ping
    input.write('\n  \r\n\t\n');
    const bytes = Buffer.from(`${cursor}\n`);
    const cut = bytes.indexOf(Buffer.from('é')) + 1;
    input.write(bytes.subarray(0, cut));
    input.write(bytes.subarray(cut));
    input.write(`${request('ping', undefined, 8)}\r\n`);

    // Assess
    expect(await answers).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringContaining('unknown cursor') } },
      { jsonrpc: '2.0', id: 8, result: {} },
    ]);
    input.end();
    await served;
  });
});

/**
 * Too deep, too many, too large, wrong: what must be invalid_args at both AWS entry
 * points, before recursion. Each argument as the services send it: a string, JSON-encoded
 * where the tool takes JSON (Bedrock parameter values; the Gateway's JSON-encoded arguments).
 */
function malformedArguments(): readonly (readonly [string, Record<string, string>])[] {
  const cases: [string, Record<string, string>][] = [];
  const depths = [
    33, 34, 40, 48, 50, 64, 100, 128, 200, 256, 500, 750, 1_000, 1_500, 2_000, 2_500, 3_000, 4_000, 5_000,
    6_000, 8_000, 10_000, 20_000,
  ];
  for (const depth of depths) {
    cases.push([`blocks nested ${depth} arrays deep`, { blocks: nested(depth) }]);
    cases.push([`blocks nested ${depth} objects deep`, { blocks: `[${nestedObject(depth)}]` }]);
  }
  for (const count of [10_001, 20_000, 50_000]) {
    cases.push([`${count} blocks`, { blocks: JSON.stringify(Array.from({ length: count }, () => ({}))) }]);
  }
  for (const kib of [257, 512, 1_024]) {
    cases.push([`${kib} KiB of text`, { text: 'x'.repeat(kib * 1024) }]);
  }
  cases.push(['an unknown member', { text: 'x', tenant: 'globex' }]);
  cases.push(['no text', {}]);
  cases.push(['blocks that are not JSON', { blocks: '[{"type":' }]);
  cases.push(['blocks as a JSON string', { blocks: '"section"' }]);
  return cases;
}

const toolOf = (args: Record<string, string>) =>
  'blocks' in args ? 'slack_post_blocks' : 'slack_post_message';

describe('Bedrock Agents: malformed parameters are invalid_args, never a stack overflow', () => {
  const CASES = malformedArguments();

  it('holds at least 50 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(50);
  });

  it.each(CASES)('%s', async (_name, args) => {
    // Prepare
    const event = bedrockFunctionEvent(toolOf(args), {
      channel: 'C1',
      ...args,
    }) as unknown as BedrockAgentEvent;

    // Act
    const response = (await handleBedrockAgentEvent(
      event,
      deadlineIn(10_000),
      deps,
    )) as BedrockFunctionResponse;

    // Assess
    const body = JSON.parse(response.response.functionResponse.responseBody.TEXT.body) as {
      error: { code: string };
    };
    expect(body.error.code).toBe('invalid_args');
    expect(response.response.functionResponse.responseState).toBe('REPROMPT');
  });
});

describe('AgentCore Gateway: malformed arguments are invalid_args, never a stack overflow', () => {
  const CASES = malformedArguments();

  it('holds at least 50 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(50);
  });

  it.each(CASES)('%s', async (_name, args) => {
    // Act: no Gateway request id, so the logical call key walks the arguments
    const result = await handleGatewayCall(
      { channel: 'C1', ...args },
      { qualifiedToolName: `etp-tools___${toolOf(args)}`, gatewayId: 'etp-gateway-abcdefghij' } as never,
      deadlineIn(10_000),
      deps,
    );

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
  });

  it('refuses decoded arguments nested 5,000 levels deep before any recursive work', async () => {
    // Act: the Lambda runtime hands the Gateway's JSON over parsed
    const result = await handleGatewayCall(
      { channel: 'C1', blocks: JSON.parse(nested(5_000)) },
      { qualifiedToolName: 'etp-tools___slack_post_blocks', gatewayId: 'etp-gateway-abcdefghij' } as never,
      deadlineIn(10_000),
      deps,
    );

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
  });
});
