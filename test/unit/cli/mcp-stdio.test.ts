import { PassThrough } from 'node:stream';
import { MAX_LINE_BYTES, serveMcp } from '../../../bin/cli/mcp';
import { type ListeningServer, listenOnLoopback, sendJson } from '../../helpers/loopback-server';

/** One JSON-RPC line the server writes, read from its output. */
function nextLine(output: PassThrough): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end >= 0) {
        output.off('data', onData);
        resolve(JSON.parse(text.slice(0, end)) as Record<string, unknown>);
      }
    };
    output.on('data', onData);
  });
}

describe('etp mcp over stdio: a line the server cannot read', () => {
  it.each([
    ['garbage', 'this is not json', -32700],
    ['a cut message', '{"jsonrpc":"2.0","id":1,', -32700],
    ['valid JSON that is no JSON-RPC message', '{"hello":"world"}', -32600],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600],
  ])('answers %s with a JSON-RPC error %#', async (_name, line, code) => {
    // Prepare
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveMcp(
      { profile: 'test', tenant: 'default', tools: ['aws_s3_inventory'] },
      { input, output },
      undefined,
    );
    const answer = nextLine(output);

    // Act
    input.write(`${line}\n`);

    // Assess
    expect(await answer).toEqual({ jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } });
    input.end();
    await served;
  });
});

describe('etp mcp over stdio: the input ends while a call runs', () => {
  const env = { url: process.env.GITHUB_API_URL, secret: process.env.ETP_SECRET_DEFAULT__GITHUB_DEFAULT };
  let github: ListeningServer;

  beforeAll(async () => {
    // A GitHub that takes 400 ms to refuse the token: the call is still running when the input ends.
    github = await listenOnLoopback((_request, response) => {
      setTimeout(() => sendJson(response, 401, { message: 'Bad credentials' }), 400);
    });
    process.env.GITHUB_API_URL = github.url;
    process.env.ETP_SECRET_DEFAULT__GITHUB_DEFAULT = JSON.stringify({
      token: `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`,
    });
  });

  afterAll(async () => {
    for (const [name, value] of [
      ['GITHUB_API_URL', env.url],
      ['ETP_SECRET_DEFAULT__GITHUB_DEFAULT', env.secret],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await github.stop();
  });

  it('answers the call before it closes (a client that writes its last request and closes stdin)', async () => {
    // Prepare
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    const served = serveMcp(
      { profile: 'test', tenant: 'default', tools: ['github_merged_pulls'] },
      { input, output },
      undefined,
    );
    const message = (id: number, method: string, params: Record<string, unknown>) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;

    // Act: initialize, then a tools/call, then the end of the input at once (`printf … | etp mcp`)
    input.write(
      message(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'printf', version: '1' },
      }),
    );
    input.write(
      message(11, 'tools/call', {
        name: 'github_merged_pulls',
        arguments: { repo: 'octo/hello', lookback_hours: 24 },
      }),
    );
    input.end();
    await served;

    // Assess: both requests answered, the call with its own id and GitHub's refusal
    const answers = written
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { id: number; result?: { isError?: boolean; content?: { text: string }[] } },
      );
    expect(answers.map((answer) => answer.id)).toEqual([1, 11]);
    expect(answers[1]?.result?.isError).toBe(true);
    expect(answers[1]?.result?.content?.[0]?.text).toContain('auth_failed');
  });
});

describe('etp mcp over stdio: a line over the size limit', () => {
  it('is refused with -32600 naming the limit, and the server goes on answering', async () => {
    // Prepare
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveMcp(
      { profile: 'test', tenant: 'default', tools: ['aws_s3_inventory'] },
      { input, output },
      undefined,
    );
    const refused = nextLine(output);
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'aws_s3_inventory', arguments: { pad: 'x'.repeat(MAX_LINE_BYTES) } },
    });

    // Act: the long line in 1 MiB chunks, as a pipe delivers it
    for (let at = 0; at < big.length; at += 1024 * 1024) input.write(big.slice(at, at + 1024 * 1024));
    input.write('\n');

    // Assess
    expect(await refused).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining(`at most ${MAX_LINE_BYTES} bytes`) },
    });
    const pong = nextLine(output);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`);
    expect(await pong).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    input.end();
    await served;
  });
});
