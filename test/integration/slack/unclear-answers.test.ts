import { deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import { logger } from '../../../functions/runtime/logger';
import type { ToolResult } from '../../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { EnvSecretProvider } from '../../../functions/runtime/secrets/providers';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import type { Tool } from '../../../functions/runtime/spec';
import { slackPostMessageTool } from '../../../functions/tools/slack/post-message';
import { toolInvocation } from '../../helpers/events';
import { type ListeningServer, listenOnLoopback } from '../../helpers/loopback-server';

/**
 * A write that is not clearly acknowledged is not reported as done: Slack's
 * webhook and Web API on 127.0.0.1 answer HTTP 200 with an HTML page, an empty
 * body or no acknowledgement, and `slack_post_message` reports `upstream_error`
 * with `details.effect: 'unknown'`, never "Posted".
 */
let server: ListeningServer;
let answer = { contentType: 'text/plain', body: 'ok' };

beforeAll(async () => {
  server = await listenOnLoopback((_request, response) => {
    response.writeHead(200, { 'content-type': answer.contentType });
    response.end(answer.body);
  });
});

afterAll(async () => {
  await server.stop();
});

beforeEach(() => {
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
  delete process.env.SLACK_API_URL;
});

function post(secret: Record<string, string>): Promise<ToolResult> {
  const store = new InMemorySecretReferenceStore([
    { tenant_id: 'default', secret_name: 'slack_default', ref_kind: 'env', ref_value: 'TEST_SLACK' },
  ]);
  const env = new EnvSecretProvider({ TEST_SLACK: JSON.stringify(secret) });
  const secrets = new SecretResolver(store, { providers: { env, secrets_manager: env } });
  return runTool(
    slackPostMessageTool as unknown as Tool,
    toolInvocation({
      tool: 'slack_post_message',
      level: 'report',
      callId: 'report/0',
      args: { channel: 'C0TEST', text: 'hi' },
    }),
    deadlineIn(10_000),
    { logger, secrets },
  );
}

const unclear = {
  ok: false,
  error: { code: 'upstream_error', retryable: false, service: 'slack', details: { effect: 'unknown' } },
};

describe('incoming webhook', () => {
  it.each([
    ['an HTML page', 'text/html', '<!DOCTYPE html><html><body>Sign in to the proxy</body></html>'],
    ['an empty body', 'text/plain', ''],
    ['a JSON body', 'application/json', '{}'],
    ['another word', 'text/plain', 'accepted'],
  ])('is not reported as posted when answered 200 with %s', async (_kind, contentType, body) => {
    // Prepare
    answer = { contentType, body };

    // Act
    const result = await post({ webhook_url: `${server.url}/services/T0/B0/X` });

    // Assess
    expect(result).toMatchObject(unclear);
  });

  it('says what it was answered with, once', async () => {
    // Prepare
    answer = { contentType: 'text/plain', body: 'accepted' };

    // Act
    const result = await post({ webhook_url: `${server.url}/services/T0/B0/X` });

    // Assess
    expect(!result.ok && result.error.message).toBe(
      'The slack post to the incoming webhook was answered with another body, not the body "ok": ' +
        'whether it took effect is unknown, so it is not reported as done',
    );
  });

  it('is reported as posted when answered 200 "ok", as Slack does', async () => {
    // Prepare
    answer = { contentType: 'text/html', body: 'ok' };

    // Act
    const result = await post({ webhook_url: `${server.url}/services/T0/B0/X` });

    // Assess
    expect(result).toMatchObject({ ok: true, value: { via: 'webhook' } });
  });
});

describe('chat.postMessage', () => {
  it('is not reported as posted when answered ok: true without the message ts', async () => {
    // Prepare
    process.env.SLACK_API_URL = `${server.url}/api/`;
    answer = { contentType: 'application/json', body: '{"ok":true}' };

    // Act
    const result = await post({ bot_token: 'xoxb-fake-test-token' });

    // Assess
    expect(result).toMatchObject(unclear);
  });

  it.each([
    ['an HTML page', 'text/html', '<!DOCTYPE html><html><body>Sign in to the proxy</body></html>'],
    ['an empty body', 'text/plain', ''],
    ['plain words', 'text/plain', 'Service temporarily unavailable'],
    // A word looks like an error string once @slack/web-api makes the body one: not a refusal.
    ['one word', 'text/plain', 'ok'],
    ['JSON without ok', 'application/json', '{}'],
    ['ok: false without an error', 'application/json', '{"ok":false}'],
    ['a JSON array', 'application/json', '[]'],
    // The SDK failed on these with a TypeError (internal_error, effect none).
    ['JSON null', 'application/json', 'null'],
    ['a JSON string', 'application/json', '"ok"'],
  ])(
    'is not reported as posted, nor as refused, when answered 200 with %s',
    async (_kind, contentType, body) => {
      // Prepare: not a Web API answer (a proxy or captive portal): whether Slack posted is unknown.
      process.env.SLACK_API_URL = `${server.url}/api/`;
      answer = { contentType, body };

      // Act
      const result = await post({ bot_token: 'xoxb-fake-test-token' });

      // Assess
      expect(result).toMatchObject(unclear);
      if (!result.ok) expect(result.error.message).not.toContain('<!DOCTYPE');
    },
  );

  it("is a refusal, Slack's error quoted, when answered ok: false with an error that is no code", async () => {
    // Prepare: a Web API answer all the same (Slack refused, nothing posted).
    process.env.SLACK_API_URL = `${server.url}/api/`;
    answer = { contentType: 'application/json', body: '{"ok":false,"error":"invalid_arguments at /text"}' };

    // Act
    const result = await post({ bot_token: 'xoxb-fake-test-token' });

    // Assess
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'upstream_error',
        message: expect.stringContaining('invalid_arguments at /text'),
        details: expect.objectContaining({ effect: 'none' }),
      },
    });
  });

  it('is reported as posted with ok: true and the ts', async () => {
    // Prepare
    process.env.SLACK_API_URL = `${server.url}/api/`;
    answer = {
      contentType: 'application/json',
      body: '{"ok":true,"channel":"C0TEST","ts":"1714550400.000100"}',
    };

    // Act
    const result = await post({ bot_token: 'xoxb-fake-test-token' });

    // Assess
    expect(result).toMatchObject({ ok: true, value: { via: 'bot_token', ts: '1714550400.000100' } });
  });
});
