import { PassThrough } from 'node:stream';
import { serveMcp } from '../../../bin/cli/mcp';

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
