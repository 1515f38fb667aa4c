import type { Tool } from '../../../functions/runtime/spec';
import { slackPostMessageTool } from '../../../functions/tools/slack/post-message';
import { ANSWER_AFTER_TIMEOUT, LATE_ANSWER_BUDGET_MS } from '../../helpers/loopback-server';
import { type SilentServer, startSilentServer } from '../../helpers/silent-server';
import { DEFAULT_WEBHOOK_PATH, type LocalSlack } from '../../helpers/slack-server';
import {
  callSlackTool,
  failure,
  type SlackSecrets,
  slackSecrets,
  success,
  useLocalSlack,
} from '../../helpers/slack-tool';

const tool = slackPostMessageTool as unknown as Tool;
const POST = '/api/chat.postMessage';
let slack: LocalSlack;

const botSecret = () => JSON.stringify({ bot_token: slack.botToken });
const webhookSecret = () => JSON.stringify({ webhook_url: slack.webhookUrl });
const MESSAGE = { channel: 'C0AWSPULSE', text: 'AWS pulse: 6 EC2 instances in 2 regions (3 running)' };

function post(args: unknown, secrets: SlackSecrets | string, budgetMs?: number) {
  return callSlackTool(tool, args, typeof secrets === 'string' ? slackSecrets(secrets) : secrets, {
    budgetMs,
  });
}

const localSlack = useLocalSlack({
  channelErrors: { C0ARCHIVED: 'is_archived', C0NOTIN: 'not_in_channel' },
  channels: { C0123ABCD: 'general', C0AWSPULSE: 'aws-pulse', C0ARCHIVED: 'old', C0NOTIN: 'private-ops' },
});
beforeEach(() => {
  slack = localSlack.current();
});

describe('slack_post_message: routing and escaping', () => {
  it('posts with the bot token, the call key in the message metadata', async () => {
    // Act
    const result = success(await post(MESSAGE, botSecret()));

    // Assess
    const [message] = slack.messages;
    expect(slack.messages).toEqual([
      {
        channel: 'C0AWSPULSE',
        text: MESSAGE.text,
        ts: expect.stringMatching(/^\d{10}\.\d{6}$/),
        encoding: 'form',
        metadata: {
          event_type: 'etp_tool_call',
          event_payload: { key: expect.stringMatching(/^[0-9a-f]{32}$/), part: 1, parts: 1 },
        },
      },
    ]);
    expect(result.value).toEqual({
      via: 'bot_token',
      channel: 'C0AWSPULSE',
      ts: message?.ts,
      thread_ts: null,
      messages: 1,
      posted_ts: [message?.ts],
      recovered: 0,
      truncated: false,
    });
    expect(result.summary).toBe('Posted to C0AWSPULSE');
    expect(slack.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      [POST, `Bearer ${slack.botToken}`],
    ]);
  });

  it('escapes &, < and > so text from AWS data notifies nobody', async () => {
    // Act
    success(
      await post({ channel: 'C0AWSPULSE', text: 'tag Owner=<!channel> & <@U0123ABCD> > 5' }, botSecret()),
    );

    // Assess
    expect(slack.messages[0]?.text).toBe('tag Owner=&lt;!channel&gt; &amp; &lt;@U0123ABCD&gt; &gt; 5');
  });

  it('renders links and mentions only from explicit segments', async () => {
    // Act
    success(
      await post(
        {
          channel: 'C0AWSPULSE',
          text: [
            'Disk full on ',
            { link: 'https://console.aws.amazon.com/ec2/home?a=1|b', label: 'i-0abc <prod>' },
            ' cc ',
            { user: 'U0123ABCD' },
            ' ',
            { broadcast: 'here' },
          ],
        },
        botSecret(),
      ),
    );

    // Assess
    expect(slack.messages[0]?.text).toBe(
      'Disk full on <https://console.aws.amazon.com/ec2/home?a=1%7Cb|i-0abc &lt;prod&gt;> cc <@U0123ABCD> <!here>',
    );
  });

  it('posts through the incoming webhook when the secret has only webhook_url, unfurling nothing as bot posts do', async () => {
    // Act
    const result = success(await post(MESSAGE, webhookSecret()));

    // Assess
    expect(result.value).toMatchObject({ via: 'webhook', channel: null, ts: null, messages: 1 });
    expect(slack.webhookDeliveries).toEqual([
      {
        path: DEFAULT_WEBHOOK_PATH,
        payload: { text: MESSAGE.text, unfurl_links: false, unfurl_media: false },
      },
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
    expect(slack.webhookDeliveries).toEqual([]);
    expect(slack.requests.map((r) => r.path)).toEqual([POST]);
  });

  it('accepts a rotating token (xoxe.xoxb-…)', async () => {
    // Prepare
    const rotating = 'xoxe.xoxb-1-MS0yLTIyMjQ0NTY3ODkwLTM0NTY3ODkwMTIzNC01Njc4OTAxMjM0NTYtYWJjZGVmZ2hp';
    slack = await localSlack.restart({ botToken: rotating });

    // Act
    const result = success(await post(MESSAGE, JSON.stringify({ bot_token: rotating })));

    // Assess
    expect(result.value).toMatchObject({ via: 'bot_token', messages: 1 });
    expect(JSON.stringify(result)).not.toContain(rotating);
  });

  it('splits a 45,000-character text into a first message and replies in its thread', async () => {
    // Prepare: 50 paragraphs of 968 characters; four fit in a message of at most 4,000.
    const paragraph = 'EC2 i-0abc running in eu-west-1, t3.large, 14 days old. '.repeat(17).trim();
    const text = Array.from({ length: 50 }, () => paragraph).join('\n\n');
    expect(text.length).toBeGreaterThanOrEqual(45_000);

    // Act
    const result = success(await post({ channel: 'C0AWSPULSE', text }, botSecret()));

    // Assess
    const [parent, ...replies] = slack.messages;
    expect(slack.messages).toHaveLength(13);
    expect(slack.messages.every((m) => (m.text?.length ?? 0) <= 4_000)).toBe(true);
    expect(parent?.thread_ts).toBeUndefined();
    expect(replies.every((m) => m.thread_ts === parent?.ts)).toBe(true);
    expect(slack.messages.map((m) => m.metadata?.event_payload.part)).toEqual(
      Array.from({ length: 13 }, (_, i) => i + 1),
    );
    expect(slack.messages.map((m) => m.text).join('\n\n')).toBe(text);
    expect(result.value).toMatchObject({
      ts: parent?.ts,
      thread_ts: parent?.ts,
      messages: 13,
      posted_ts: slack.messages.map((m) => m.ts),
    });
  }, 30_000);

  it("reports the messages posted when the channel's pace leaves no time for the rest: partial, not 'nothing posted'", async () => {
    // Prepare: 13 messages at about one a second per channel (a burst of 3), in a 5 s budget
    const paragraph = 'EC2 i-0abc running in eu-west-1, t3.large, 14 days old. '.repeat(17).trim();
    const text = Array.from({ length: 50 }, () => paragraph).join('\n\n');

    // Act
    const result = failure(await post({ channel: 'C0AWSPULSE', text }, botSecret(), 5_000));

    // Assess: what was posted is said (effect partial, every ts), so no retry posts it again
    expect(slack.messages.length).toBeGreaterThan(0);
    expect(slack.messages.length).toBeLessThan(13);
    expect(result.error).toMatchObject({
      retryable: false,
      details: { effect: 'partial', posted_ts: slack.messages.map((m) => m.ts) },
    });
    expect(result.error.message).toMatch(
      new RegExp(`^Posted ${slack.messages.length} of 13 messages, then message`),
    );
  }, 30_000);

  it.each([
    ['in warning and response_metadata.warnings', 'both'],
    ['only in a comma-separated warning list', 'warning_list'],
  ] as const)(
    'reports Slack truncating a message (message_truncated %s) as truncated: true',
    async (_label, truncationWarning) => {
      // Prepare: a server that truncates at 100 characters, as Slack does at 40,000.
      slack = await localSlack.restart({ truncateTextAt: 100, truncationWarning });

      // Act
      const result = success(await post({ channel: 'C0AWSPULSE', text: 'x'.repeat(300) }, botSecret()));

      // Assess
      expect(result.truncated).toBe(true);
      expect(result.value.truncated).toBe(true);
    },
  );
});

describe('slack_post_message: errors keep their meaning', () => {
  it.each([
    ['C0NOPE', 'not_found', 'channel_not_found'],
    ['C0NOTIN', 'access_denied', 'not_in_channel'],
    ['C0ARCHIVED', 'access_denied', 'is_archived'],
  ])('maps %s to %s (%s)', async (channel, code, slackError) => {
    // Act
    const result = failure(await post({ channel, text: 'hi' }, botSecret()));

    // Assess
    expect(result.error).toMatchObject({ code, retryable: false, service: 'slack', details: { slackError } });
    expect(result.error.message).toMatch(new RegExp(`^Slack API error: ${slackError}: .+`));
    expect(slack.messages).toEqual([]);
  });

  it('maps invalid_auth to auth_failed, after reading the secret again once, without the token', async () => {
    // Prepare
    const revoked = 'xoxb-000000000001-000000000002-revokedtoken00000001';

    // Act
    const result = failure(await post(MESSAGE, JSON.stringify({ bot_token: revoked })));

    // Assess
    expect(result.error).toMatchObject({
      code: 'auth_failed',
      retryable: false,
      details: { slackError: 'invalid_auth' },
    });
    expect(JSON.stringify(result)).not.toContain(revoked);
    expect(slack.requests).toHaveLength(1);
  });

  it('posts with the rotated token when the cached one is refused: the secret is read again, bypassing the cache', async () => {
    // Prepare: the resolver has cached an expired token; the store now holds a new one.
    const secrets = slackSecrets(
      JSON.stringify({ bot_token: 'xoxb-000000000001-000000000002-expiredtoken0000001' }),
    );
    await secrets.resolver.resolve('default', 'slack_default');
    secrets.set(botSecret());

    // Act
    const result = success(await post(MESSAGE, secrets));

    // Assess
    expect(result.value).toMatchObject({ via: 'bot_token', messages: 1 });
    expect(slack.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer xoxb-000000000001-000000000002-expiredtoken0000001',
      `Bearer ${slack.botToken}`,
    ]);
    expect(slack.messages).toHaveLength(1);
  });

  it('answers a 429 whose Retry-After outlasts the time left at once: throttled, retryable, retryAfterSeconds', async () => {
    // Prepare
    slack.failNext({ status: 429, retryAfterSeconds: 30 });

    // Act
    const result = failure(await post(MESSAGE, botSecret(), 10_000));

    // Assess
    expect(result.error).toEqual({
      code: 'throttled',
      message: 'Slack rate limit reached; retry after 30 s',
      retryable: true,
      service: 'slack',
      details: { retryAfterSeconds: 30 },
    });
    expect(slack.requests).toHaveLength(1);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it.each([
    ['no Retry-After', null],
    ['a Retry-After that is no number of seconds', 'soon'],
  ])(
    'answers a 429 with %s as throttled, retryable, nothing posted (not internal_error)',
    async (_label, retryAfter) => {
      // Prepare: every attempt is answered 429.
      slack.failNext(
        retryAfter === null
          ? { status: 429, retryAfterSeconds: null }
          : { status: 429, retryAfterSeconds: retryAfter as unknown as number },
        Number.POSITIVE_INFINITY,
        { path: POST },
      );

      // Act
      const result = failure(await post(MESSAGE, botSecret(), 10_000));

      // Assess
      expect(result.error).toEqual({
        code: 'throttled',
        message: 'Slack answered HTTP 429 without a usable Retry-After; retry later',
        retryable: true,
        service: 'slack',
        details: { httpStatusCode: 429 },
      });
      expect(slack.messages).toEqual([]);
      expect(JSON.stringify(result)).not.toContain(slack.botToken);
    },
  );

  it('waits out a short Retry-After and posts once (a 429 means Slack did not post)', async () => {
    // Prepare
    slack.failNext({ status: 429, retryAfterSeconds: 1 });

    // Act
    const result = success(await post(MESSAGE, botSecret()));

    // Assess
    expect(result.durationMs).toBeGreaterThanOrEqual(1_000);
    expect(slack.requests.map((r) => r.path)).toEqual([POST, POST]);
    expect(slack.messages).toHaveLength(1);
  });

  it.each([
    ['no_service', 404, 'not_found'],
    ['invalid_payload', 400, 'invalid_args'],
    ['action_prohibited', 403, 'access_denied'],
    ['channel_is_archived', 410, 'access_denied'],
  ])('maps the webhook plain-text error %s (HTTP %i) to %s, without the URL', async (body, status, code) => {
    // Prepare
    slack.failNext({ status, body });

    // Act
    const result = failure(await post(MESSAGE, webhookSecret()));

    // Assess
    expect(result.error).toMatchObject({
      code,
      retryable: false,
      service: 'slack',
      details: { slackError: body, httpStatusCode: status },
    });
    expect(JSON.stringify(result)).not.toContain('localwebhooksecret0001');
    expect(slack.webhookDeliveries).toEqual([]);
  });

  it('maps a webhook answering HTTP 410 (gone) to not_found, and does not repeat the post', async () => {
    // Prepare
    slack.failNext({ status: 410, body: 'gone' }, 3);

    // Act
    const result = failure(await post(MESSAGE, webhookSecret()));

    // Assess
    expect(result.error).toMatchObject({
      code: 'not_found',
      retryable: false,
      details: { httpStatusCode: 410 },
    });
    expect(result.error.message).toMatch(/the webhook is gone/);
    expect(slack.requests).toHaveLength(1);
  });

  it('does not repeat a webhook post answered HTTP 500: Slack may have posted it', async () => {
    // Prepare
    slack.failNext({ status: 500 }, 3);

    // Act
    const result = failure(await post(MESSAGE, webhookSecret()));

    // Assess
    expect(result.error).toMatchObject({ code: 'upstream_error', retryable: true, service: 'slack' });
    expect(slack.requests).toHaveLength(1);
  });

  it.each([
    [
      'a URL under bot_token',
      { bot_token: 'https://hooks.slack.com/services/T0/B0/xyzsecret0001' },
      'bot_token (a token, not a URL (a webhook URL goes under webhook_url))',
    ],
    [
      'no usable field',
      { token: 'xoxb-000000000001-000000000002-wrongkeytoken0001' },
      '(value) (bot_token or webhook_url is required), token (unknown field)',
    ],
    [
      'a malformed webhook URL',
      { webhook_url: 'ftp://example.com/hook0001' },
      'webhook_url (an http(s) URL: the incoming webhook URL Slack gives)',
    ],
  ])('answers secret_invalid for %s, naming fields but not values', async (_label, secret, fields) => {
    // Act
    const result = failure(await post(MESSAGE, JSON.stringify(secret)));

    // Assess
    expect(result.error).toEqual({
      code: 'secret_invalid',
      message: `Slack secret slack_default is invalid in: ${fields}. Accepted: { "bot_token": "xoxb-…" } and/or { "webhook_url": "https://hooks.slack.com/…" }`,
      retryable: false,
      service: 'slack',
    });
    for (const value of Object.values(secret)) expect(JSON.stringify(result)).not.toContain(value);
    expect(slack.requests).toEqual([]);
  });

  it.each([
    [
      'a truncated JSON object',
      '{"bot_token":"xoxb-000000000001-000000000002-truncatedtoken01"',
      'it starts with { but does not parse as JSON',
    ],
    ['a bare token', 'xoxb-000000000001-000000000002-baretokenvalue001', 'plain text'],
  ])('says a secret that is %s is not a JSON object, without showing it', async (_label, raw, problem) => {
    // Act
    const result = failure(await post(MESSAGE, raw));

    // Assess
    expect(result.error).toEqual({
      code: 'secret_invalid',
      message: `Slack secret slack_default is invalid: it is not a JSON object${problem.startsWith('it') ? `: ${problem}` : ` but ${problem}`}. Accepted: { "bot_token": "xoxb-…" } and/or { "webhook_url": "https://hooks.slack.com/…" }`,
      retryable: false,
      service: 'slack',
    });
    expect(JSON.stringify(result)).not.toContain(raw.slice(raw.indexOf('xoxb-')));
    expect(slack.requests).toEqual([]);
  });

  it.each([
    ['only white space', '   \n\t '],
    ['only empty segments', ['', '']],
  ])('refuses text of %s before any call: Slack would answer no_text', async (_label, text) => {
    // Act
    const result = failure(await post({ channel: 'C0AWSPULSE', text }, botSecret()));

    // Assess
    expect(result.error).toMatchObject({
      code: 'invalid_args',
      retryable: false,
      details: {
        violations: [{ path: '/text', message: expect.stringMatching(/^text has nothing to show/) }],
      },
    });
    expect(slack.requests).toEqual([]);
  });

  it('rejects invalid args before any call', async () => {
    // Act
    const result = failure(await post({ channel: 'C0AWSPULSE', text: [{ user: 'not-an-id' }] }, botSecret()));

    // Assess
    expect(result.error.code).toBe('invalid_args');
    expect(slack.requests).toEqual([]);
  });
});

describe('slack_post_message: one message when the answer is lost', () => {
  it('finds a post Slack accepted but answered after the client timeout, instead of sending it again', async () => {
    // Prepare: each attempt may wait 5 s; Slack answers after 20 s.
    slack.failNext(ANSWER_AFTER_TIMEOUT, 1, { path: POST });

    // Act
    const result = success(await post(MESSAGE, botSecret(), LATE_ANSWER_BUDGET_MS));

    // Assess
    expect(slack.messages).toHaveLength(1);
    expect(result.value).toMatchObject({ ts: slack.messages[0]?.ts, messages: 1, recovered: 1 });
    expect(slack.requests.map((r) => r.path)).toEqual([POST, '/api/conversations.history']);
  });

  it('finds a post recorded before the connection was reset, instead of sending it again', async () => {
    // Prepare
    slack.failNext({ reset: true }, 1, { path: POST });

    // Act
    const result = success(await post(MESSAGE, botSecret()));

    // Assess
    expect(slack.messages).toHaveLength(1);
    expect(result.value).toMatchObject({ ts: slack.messages[0]?.ts, recovered: 1 });
    expect(result.summary).toBe('Posted to C0AWSPULSE; 1 found already posted, not sent again');
  });

  it('gives up without sending again when the channel cannot be read to check (missing_scope)', async () => {
    // Prepare
    slack.failNext({ reset: true }, 1, { path: POST });
    slack.failNext(
      { error: 'missing_scope', extra: { needed: 'channels:history', provided: 'chat:write' } },
      1,
      { path: '/api/conversations.history' },
    );

    // Act
    const result = failure(await post(MESSAGE, botSecret()));

    // Assess
    expect(slack.messages).toHaveLength(1);
    expect(result.error).toMatchObject({
      code: 'network_error',
      retryable: false,
      service: 'slack',
      details: { effect: 'unknown', posted_ts: [] },
    });
    expect(result.error.message).toMatch(/may have reached Slack .*missing_scope.*; it is not sent again$/);
  });

  it('does not repeat a webhook post whose connection was reset: one delivery, outcome unknown', async () => {
    // Prepare
    slack.failNext({ reset: true }, 1, { path: DEFAULT_WEBHOOK_PATH });

    // Act
    const result = failure(await post(MESSAGE, webhookSecret()));

    // Assess
    expect(slack.webhookDeliveries).toHaveLength(1);
    expect(result.error).toMatchObject({
      code: 'network_error',
      retryable: false,
      details: { effect: 'unknown' },
    });
  });

  it('posts again when the lookup shows the lost post never arrived', async () => {
    // Prepare: Slack answers 503 before recording anything (a failure of its own).
    slack.failNext({ status: 503 }, 1, { path: POST });

    // Act
    const result = failure(await post(MESSAGE, botSecret()));

    // Assess: nothing was posted, the lookup proved it: safe for a later retry.
    expect(slack.messages).toEqual([]);
    expect(result.error).toMatchObject({
      code: 'upstream_error',
      retryable: true,
      details: { effect: 'none' },
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

  it('answers timeout from the Web API within the deadline, the post not repeated', async () => {
    // Prepare: history lookups go unanswered too.
    process.env.SLACK_API_URL = `${silent.url}/api/`;
    const warnings = jest.spyOn(console, 'warn').mockImplementation(() => undefined);

    // Act
    const result = failure(await post(MESSAGE, botSecret(), 4_000));

    // Assess
    expect(result.error).toMatchObject({ code: 'timeout', retryable: false, details: { effect: 'unknown' } });
    expect(result.durationMs).toBeLessThan(4_000);
    // One post, never repeated; then the lookup (a read, which may be retried).
    expect(silent.connections()).toBeLessThanOrEqual(4);
    expect(warnings).not.toHaveBeenCalled();
  });
});
