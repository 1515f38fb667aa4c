import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { localModelClient } from '../../../bin/local/local-run';
import { loadModelScript, type ScriptedModel, startScriptedModel } from '../../../bin/local/scripted-model';
import { BedrockModelClient, normalizeModelError } from '../../../functions/engine/model-client';
import { FAKE_AWS_CREDENTIALS } from '../../helpers/loopback-server';

const request = {
  modelId: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
  system: 'You help.',
  messages: [{ role: 'user' as const, content: [{ text: 'Hello' }] }],
  tools: [{ name: 'finish', description: 'Ends.', inputSchema: { type: 'object' } }],
  maxTokens: 100,
};

let model: ScriptedModel | undefined;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'etp-script-'));
});

afterEach(async () => {
  await model?.stop();
  model = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('the scripted model', () => {
  it('answers the Bedrock Runtime client over its default cleartext HTTP/2 and over HTTP/1.1', async () => {
    // Prepare
    model = await startScriptedModel([
      {
        text: 'Done.',
        tool_use: [{ name: 'finish', input: { summary: 'ok' } }],
        usage: { input_tokens: 42, output_tokens: 7 },
      },
      { text: 'Again.' },
    ]);
    const client = new BedrockRuntimeClient({
      endpoint: model.url,
      region: 'us-east-1',
      credentials: FAKE_AWS_CREDENTIALS,
    });

    // Act
    const h2 = await new BedrockModelClient(client).converse(request);
    const h1 = await localModelClient(model.url).converse(request);
    client.destroy();

    // Assess
    expect(h2).toEqual({
      message: {
        role: 'assistant',
        content: [
          { text: 'Done.' },
          { toolUse: { toolUseId: 'tooluse_0_0', name: 'finish', input: { summary: 'ok' } } },
        ],
      },
      stopReason: 'tool_use',
      inputTokens: 42,
      outputTokens: 7,
      latencyMs: 0,
    });
    expect(h1.message.content).toEqual([{ text: 'Again.' }]);
    expect(model.requests.map((r) => [r.protocol, r.modelId])).toEqual([
      ['h2', request.modelId],
      ['http/1.1', request.modelId],
    ]);
    expect(model.requests[0]?.body.toolConfig?.tools?.[0]?.toolSpec?.name).toBe('finish');
  });

  it('answers with Bedrock errors the client reads, and says when its script is used up', async () => {
    // Prepare
    model = await startScriptedModel([
      { error: { status: 403, type: 'AccessDeniedException', message: 'No access' } },
    ]);
    const client = localModelClient(model.url);

    // Act
    const denied = await client
      .converse(request)
      .catch((err: unknown) => normalizeModelError(err, request.modelId));
    const usedUp = await client
      .converse(request)
      .catch((err: unknown) => normalizeModelError(err, request.modelId));

    // Assess
    expect(denied).toMatchObject({ code: 'access_denied', retryable: false, service: 'bedrock' });
    expect(usedUp).toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('The scripted model has no response left: its script has 1'),
    });
  });

  it('refuses, as Bedrock does, a request that breaks the Converse rules, and records it', async () => {
    // Prepare
    model = await startScriptedModel([{ text: 'never sent' }]);
    const client = localModelClient(model.url);

    // Act: a blank text block after an assistant turn whose toolUse is never answered
    const refused = await client
      .converse({
        ...request,
        messages: [
          { role: 'user', content: [{ text: 'Hello' }] },
          { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'finish', input: {} } }] },
          { role: 'user', content: [{ text: '  ' }] },
        ],
      })
      .catch((err: unknown) => normalizeModelError(err, request.modelId));

    // Assess
    expect(refused).toMatchObject({ code: 'invalid_args' });
    expect((refused as { message: string }).message).toContain(
      'messages[2].content[0]: the text field is blank: a text block needs text',
    );
    expect(model.refused).toEqual([
      {
        index: 0,
        problems: [
          { at: 'messages[2].content[0]', problem: 'the text field is blank: a text block needs text' },
          { at: 'messages[2]', problem: "expected toolResult blocks for the previous turn's toolUse t1" },
        ],
      },
    ]);
  });

  it('reads a script file and refuses one that is not a list of responses', () => {
    // Prepare
    const good = path.join(dir, 'good.yaml');
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(good, '- text: Hi\n- tool_use: [{ name: finish, input: { summary: Done } }]\n');
    writeFileSync(bad, 'responses: [{ say: hi }]\n');

    // Act
    const script = loadModelScript(good);

    // Assess
    expect(script).toEqual([{ text: 'Hi' }, { tool_use: [{ name: 'finish', input: { summary: 'Done' } }] }]);
    expect(() => loadModelScript(bad)).toThrow(
      `--script ${bad}: expected a list of responses, each with text, tool_use ([{ name, input }]), error ({ status, type, message }) or hang: true`,
    );
  });

  it('replays the shipped example script', () => {
    // Act
    const script = loadModelScript(path.join(__dirname, '../../../bin/local/scripts/aws-pulse.yaml'));

    // Assess
    expect(script.at(-1)?.tool_use?.[0]?.name).toBe('finish');
  });
});
