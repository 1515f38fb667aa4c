import { LogLevel, type RetryOptions, WebClient } from '@slack/web-api';
import { IncomingWebhook } from '@slack/webhook';
import * as z from 'zod/mini';
import { SecretInvalidError } from '../../runtime/errors';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { assertClearWrite, type WriteSuccess } from '../../runtime/write-answer';
import { slackPostMessageSpec } from './post-message.meta';

/** Slack's Web API base URL (api.slack.com, "Web API basics"). */
const SLACK_DEFAULT_API_URL = 'https://slack.com/api/';

/**
 * The Web API base URL: `SLACK_API_URL` when set (GovSlack, the local Web API
 * server of the tests and the CLI), else slack.com. Read per call, not at load:
 * the client is built per call anyway (the token is the tenant's), and an
 * already-loaded tool can then be pointed at a server started later.
 */
function slackApiUrl(): string {
  return process.env.SLACK_API_URL || SLACK_DEFAULT_API_URL;
}

/** Per-request timeout, ms, at most: a Lambda has little time, so no call may hang. */
const SLACK_TIMEOUT_MS = 10_000;

/**
 * Explicit retry policy (the SDK default retries for ~30 minutes): two retries,
 * 0.5-2 s apart. Rate-limited calls are rejected at once as `throttled` with the
 * Retry-After value rather than sleeping inside the function.
 */
const SLACK_RETRY = { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2_000, randomize: true };

/** Below this per attempt a retry is not worth it: the one attempt gets all the time left. */
const SLACK_MIN_ATTEMPT_MS = 2_000;

/**
 * Time kept back from the deadline, ms, so that Slack's own timeout error
 * ("Slack request failed: …", service `slack`) is reported before the harness
 * cuts the call at the deadline.
 */
const SLACK_DEADLINE_RESERVE_MS = 500;

/** How a Web API call is bounded: each attempt's timeout, and the retries. */
export interface SlackRequestPolicy {
  /** Per-attempt timeout, ms. */
  readonly timeoutMs: number;
  readonly retryConfig: RetryOptions;
}

/**
 * The Web API call's timeout and retries for the time left, so that every
 * attempt timing out plus the longest waits between them (`retries` ×
 * `maxTimeout`) still ends {@link SLACK_DEADLINE_RESERVE_MS} before the
 * deadline: with the 30 s tool's deadline (28 s left), three attempts of 7.8 s.
 * When less than {@link SLACK_MIN_ATTEMPT_MS} per attempt would be left, one
 * attempt gets all the time and none is retried.
 *
 * @param remainingMs - the deadline's remaining time.
 * @example slackRequestPolicy(28_000) // { timeoutMs: 7_833, retryConfig: { retries: 2, … } }
 */
export function slackRequestPolicy(remainingMs: number): SlackRequestPolicy {
  const usable = remainingMs - SLACK_DEADLINE_RESERVE_MS;
  const attempts = SLACK_RETRY.retries + 1;
  const perAttempt = Math.floor((usable - SLACK_RETRY.retries * SLACK_RETRY.maxTimeout) / attempts);
  if (perAttempt >= SLACK_MIN_ATTEMPT_MS) {
    return { timeoutMs: Math.min(SLACK_TIMEOUT_MS, perAttempt), retryConfig: SLACK_RETRY };
  }
  return { timeoutMs: Math.max(1, Math.floor(usable)), retryConfig: { retries: 0 } };
}

const slackSecret = z
  .object({
    bot_token: z.optional(z.string().check(z.regex(/^xox[bpa]-/, 'a bot token (xoxb-…)'))),
    webhook_url: z.optional(z.url({ protocol: /^https?$/ })),
  })
  .check(
    z.refine((s) => s.bot_token !== undefined || s.webhook_url !== undefined, {
      message: 'bot_token or webhook_url is required',
    }),
  );

/** An incoming webhook acknowledges a post with the body `ok` ("Sending messages using incoming webhooks"). */
const WEBHOOK_POSTED: WriteSuccess = {
  service: 'slack',
  write: 'post to the incoming webhook',
  expected: 'the body "ok"',
  acknowledges: (body) => body.trim() === 'ok',
};

/** chat.postMessage acknowledges a post with `ok: true` and the message's `ts` (its "Response" section). */
const MESSAGE_POSTED: WriteSuccess = {
  service: 'slack',
  write: 'chat.postMessage',
  expected: 'ok: true with the message ts',
  acknowledges: (body) => {
    const answer = JSON.parse(body) as { ok?: unknown; ts?: unknown };
    return answer.ok === true && typeof answer.ts === 'string' && answer.ts !== '';
  },
};

/** `slack_post_message` with its handler. */
export const slackPostMessageTool = defineTool(slackPostMessageSpec, async (ctx, args) => {
  const parsed = slackSecret.safeParse(await ctx.secret('slack_default'));
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(value)'))];
    throw new SecretInvalidError(
      `Slack secret is invalid in: ${fields.join(', ')}. Accepted: { "bot_token": "xoxb-…" } and/or { "webhook_url": "https://hooks.slack.com/…" }`,
      { service: 'slack' },
    );
  }
  const secret = parsed.data;
  if (secret.bot_token) {
    const policy = slackRequestPolicy(ctx.deadline.remainingMs());
    const client = new WebClient(secret.bot_token, {
      slackApiUrl: slackApiUrl(),
      timeout: policy.timeoutMs,
      retryConfig: policy.retryConfig,
      rejectRateLimitedCalls: true,
      // A failed attempt is reported once, in the result; the client's own WARN lines
      // ("http request failed fetch failed") would only add noise to stderr and the logs.
      logLevel: LogLevel.ERROR,
    });
    const response = await client.chat.postMessage({
      channel: args.channel,
      text: args.text,
      ...(args.blocks ? { blocks: args.blocks } : {}),
      ...(args.thread_ts ? { thread_ts: args.thread_ts } : {}),
    });
    assertClearWrite({ body: JSON.stringify(response) }, MESSAGE_POSTED);
    return {
      value: { via: 'bot_token', channel: response.channel ?? args.channel, ts: response.ts ?? null },
      summary: `Posted to ${response.channel ?? args.channel}`,
    };
  }
  // One attempt (the webhook client's default retry policy), bounded by the deadline.
  const webhook = new IncomingWebhook(secret.webhook_url as string, {
    timeout: Math.min(SLACK_TIMEOUT_MS, slackRequestPolicy(ctx.deadline.remainingMs()).timeoutMs),
  });
  const answer = await webhook.send({ text: args.text, ...(args.blocks ? { blocks: args.blocks } : {}) });
  assertClearWrite({ body: answer.text ?? '' }, WEBHOOK_POSTED);
  return {
    value: { via: 'webhook', channel: null, ts: null },
    summary: 'Posted through the incoming webhook',
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(slackPostMessageTool);
