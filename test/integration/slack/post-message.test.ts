import { deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import { logger } from '../../../functions/runtime/logger';
import type { ToolFailure, ToolResult, ToolSuccess } from '../../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { defaultProviders, EnvSecretProvider } from '../../../functions/runtime/secrets/providers';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import type { Tool } from '../../../functions/runtime/spec';
import { slackPostMessageTool } from '../../../functions/tools/slack/post-message';
import { toolInvocation } from '../../helpers/events';
import { type SilentServer, startSilentServer } from '../../helpers/silent-server';
import { DEFAULT_WEBHOOK_PATH, type LocalSlack, startSlackServer } from '../../helpers/slack-server';

let slack: LocalSlack;

/** Runs slack_post_message for tenant `default` whose `slack_default` holds `secretValue` (raw, as stored). */
function post(args: unknown, secretValue: string | undefined, budgetMs = 30_000): Promise<ToolResult> {
  const store = new InMemorySecretReferenceStore(
    secretValue === undefined
      ? []
      : [
          {
            tenant_id: 'default',
            secret_name: 'slack_default',
            ref_kind: 'env',
            ref_value: 'TEST_SLACK_DEFAULT',
          },
        ],
  );
  const env = new EnvSecretProvider({ TEST_SLACK_DEFAULT: secretValue });
  const secrets = new SecretResolver(store, { providers: { ...defaultProviders(), env } });
  return runTool(
    slackPostMessageTool as unknown as Tool,
    toolInvocation({ tool: 'slack_post_message', level: 'report', callId: 'report/0', args }),
    deadlineIn(budgetMs),
    { logger, secrets },
  );
}

const botSecret = () => JSON.stringify({ bot_token: slack.botToken });
const webhookSecret = () => JSON.stringify({ webhook_url: slack.webhookUrl });

const MESSAGE = { channel: '#aws-pulse', text: 'AWS pulse: 6 EC2 instances in 2 regions (3 running)' };

function success(result: ToolResult): ToolSuccess {
  if (!result.ok) throw new Error(`expected a success, got ${JSON.stringify(result.error)}`);
  return result;
}

function failure(result: ToolResult): ToolFailure {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

beforeEach(async () => {
  slack = await startSlackServer();
  // Read by the tool on each call.
  process.env.SLACK_API_URL = slack.apiUrl;
  // The harness logs each failure (stderr): keep the output to the test results.
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(async () => {
  jest.restoreAllMocks();
  delete process.env.SLACK_API_URL;
  await slack.stop();
});

describe('slack_post_message against the local Slack Web API', () => {
  it('posts with the bot token: channel, text, blocks and thread_ts reach chat.postMessage', async () => {
    // Prepare
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'AWS pulse' } },
      { type: 'section', text: { type: 'mrkdwn', text: '*6* instances, *3* running' } },
    ];

    // Act
    const result = success(await post({ ...MESSAGE, blocks, thread_ts: '1712345678.000100' }, botSecret()));

    // Assess
    const [message] = slack.messages;
    expect(slack.messages).toEqual([
      {
        channel: 'C0AWSPULSE',
        text: MESSAGE.text,
        blocks,
        thread_ts: '1712345678.000100',
        ts: expect.stringMatching(/^\d+\.\d{6}$/),
        encoding: 'form',
      },
    ]);
    expect(result.value).toEqual({ via: 'bot_token', channel: 'C0AWSPULSE', ts: message?.ts });
    expect(result.summary).toBe('Posted to C0AWSPULSE');
    expect(slack.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/api/chat.postMessage', `Bearer ${slack.botToken}`],
    ]);
  });

  it('posts through the incoming webhook when the secret has only webhook_url', async () => {
    // Act
    const result = success(await post(MESSAGE, webhookSecret()));

    // Assess
    expect(result.value).toEqual({ via: 'webhook', channel: null, ts: null });
    expect(slack.webhookDeliveries).toEqual([
      { path: DEFAULT_WEBHOOK_PATH, payload: { text: MESSAGE.text } },
    ]);
    expect(slack.messages).toEqual([]);
  });

  it('prefers the bot token when the secret has both: the webhook receives nothing', async () => {
    // Act
    const result = success(
      await post(MESSAGE, JSON.stringify({ bot_token: slack.botToken, webhook_url: slack.webhookUrl })),
    );

    // Assess
    expect(result.value).toMatchObject({ via: 'bot_token', channel: 'C0AWSPULSE' });
    expect(slack.messages).toHaveLength(1);
    expect(slack.webhookDeliveries).toEqual([]);
    expect(slack.requests.map((r) => r.path)).toEqual(['/api/chat.postMessage']);
  });

  it('maps invalid_auth to auth_failed without the token in the result', async () => {
    // Prepare
    const revoked = 'xoxb-000000000001-000000000002-revokedtoken00000001';

    // Act
    const result = failure(await post(MESSAGE, JSON.stringify({ bot_token: revoked })));

    // Assess
    expect(result.error).toEqual({
      code: 'auth_failed',
      message: 'Slack API error: invalid_auth',
      retryable: false,
      service: 'slack',
      details: { slackError: 'invalid_auth' },
    });
    expect(JSON.stringify(result)).not.toContain(revoked);
    expect(slack.messages).toEqual([]);
  });

  it('maps channel_not_found to not_found', async () => {
    // Act
    const result = failure(await post({ ...MESSAGE, channel: '#no-such-channel' }, botSecret()));

    // Assess
    expect(result.error).toEqual({
      code: 'not_found',
      message: 'Slack API error: channel_not_found',
      retryable: false,
      service: 'slack',
      details: { slackError: 'channel_not_found' },
    });
  });

  it('answers an HTTP 429 at once as throttled, retryable, with Retry-After in seconds', async () => {
    // Prepare
    slack.failNext({ status: 429, retryAfterSeconds: 30 });

    // Act
    const result = failure(await post(MESSAGE, botSecret()));

    // Assess
    expect(result.error).toEqual({
      code: 'throttled',
      message: 'Slack rate limit reached; retry after 30 s',
      retryable: true,
      service: 'slack',
      details: { retryAfterSeconds: 30 },
    });
    // Rejected, not slept on inside the function.
    expect(slack.requests).toHaveLength(1);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('retries an HTTP 500 twice, then answers upstream_error, retryable', async () => {
    // Prepare
    slack.failNext({ status: 500 }, Number.POSITIVE_INFINITY);

    // Act
    const result = failure(await post(MESSAGE, botSecret()));

    // Assess
    expect(result.error).toEqual({
      code: 'upstream_error',
      message: 'Slack answered HTTP 500',
      retryable: true,
      service: 'slack',
      details: { httpStatusCode: 500 },
    });
    expect(slack.requests).toHaveLength(3);
  });

  it('posts after a transient HTTP 500 through the explicit retry policy', async () => {
    // Prepare
    slack.failNext({ status: 500 });

    // Act
    const result = success(await post(MESSAGE, botSecret()));

    // Assess
    expect(result.value).toMatchObject({ via: 'bot_token', channel: 'C0AWSPULSE' });
    expect(slack.requests).toHaveLength(2);
    expect(slack.messages).toHaveLength(1);
  });

  it('maps an unknown webhook (Slack answers 404 no_service) to not_found', async () => {
    // Prepare
    const removed = `${slack.url}/services/T00000001/B00000009/removedwebhooksecret`;

    // Act
    const result = failure(await post(MESSAGE, JSON.stringify({ webhook_url: removed })));

    // Assess
    expect(result.error).toEqual({
      code: 'not_found',
      message: 'Slack error: no_service',
      retryable: false,
      service: 'slack',
      details: { slackError: 'no_service', httpStatusCode: 404 },
    });
    expect(JSON.stringify(result)).not.toContain('removedwebhooksecret');
    expect(slack.webhookDeliveries).toEqual([]);
  });

  it.each([
    ['a token under the wrong key', { token: 'xoxb-000000000001-000000000002-wrongkeytoken0001' }, '(value)'],
    [
      'malformed fields',
      { bot_token: 'slack-token-000000000001-secretvalue', webhook_url: 'ftp://example.com/hook' },
      'bot_token, webhook_url',
    ],
  ])(
    'answers secret_invalid for %s, naming the fields but not their values',
    async (_label, secret, fields) => {
      // Act
      const result = failure(await post(MESSAGE, JSON.stringify(secret)));

      // Assess
      expect(result.error).toEqual({
        code: 'secret_invalid',
        message: `Slack secret is invalid in: ${fields}. Accepted: { "bot_token": "xoxb-…" } and/or { "webhook_url": "https://hooks.slack.com/…" }`,
        retryable: false,
        service: 'slack',
      });
      for (const value of Object.values(secret)) expect(JSON.stringify(result)).not.toContain(value);
      expect(slack.requests).toEqual([]);
    },
  );

  it('answers secret_invalid for a plain-string secret (read as { value })', async () => {
    // Prepare
    const plain = 'xoxb-000000000001-000000000002-plainstringtoken01';

    // Act
    const result = failure(await post(MESSAGE, plain));

    // Assess
    expect(result.error.code).toBe('secret_invalid');
    expect(result.error.message).toMatch(/^Slack secret is invalid in: \(value\)\./);
    expect(JSON.stringify(result)).not.toContain(plain);
    expect(slack.requests).toEqual([]);
  });

  it('answers secret_not_found when the tenant has no slack_default reference', async () => {
    // Act
    const result = failure(await post(MESSAGE, undefined));

    // Assess
    expect(result.error).toEqual({
      code: 'secret_not_found',
      message:
        'Tenant "default" has no secret reference named "slack_default" and environment variable ' +
        'ETP_SECRET_DEFAULT__SLACK_DEFAULT is not set',
      retryable: false,
      service: 'slack',
    });
  });
});

describe('slack_post_message against a Slack that never answers', () => {
  let silent: SilentServer;

  beforeAll(async () => {
    silent = await startSilentServer();
  });

  afterAll(async () => {
    await silent.stop();
  });

  it.each([
    ['the Web API', () => JSON.stringify({ bot_token: slack.botToken })],
    [
      'the incoming webhook',
      () => JSON.stringify({ webhook_url: `${silent.url}/services/T0001/B0001/silent` }),
    ],
  ])('answers timeout from %s, 0.5 s before its deadline, without client warnings', async (_via, secret) => {
    // Prepare: a 2 s call gives the tool 1.5 s (a quarter kept for a request in flight), which leaves one attempt of 1 s.
    process.env.SLACK_API_URL = `${silent.url}/api/`;
    const warnings = jest.spyOn(console, 'warn').mockImplementation(() => undefined);

    // Act
    const result = failure(await post(MESSAGE, secret(), 2_000));

    // Assess
    // (Under Jest, fetch's DOMException comes from another realm and the client rewraps it
    // as "TimeoutError: …"; in a plain process the message has no prefix.)
    expect(result.error).toEqual({
      code: 'timeout',
      message: expect.stringMatching(
        /^Slack request failed: (TimeoutError: )?The operation was aborted due to timeout$/,
      ),
      retryable: true,
      service: 'slack',
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(950);
    expect(result.durationMs).toBeLessThan(1_500);
    expect(warnings).not.toHaveBeenCalled();
  });
});
