import { WebClient } from '@slack/web-api';
import { IncomingWebhook } from '@slack/webhook';
import * as z from 'zod/mini';
import type { ToolContext } from '../../runtime/context';
import { SecretInvalidError } from '../../runtime/errors';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { slackPostMessageSpec } from './post-message.spec';

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

/** Per-request timeout, ms: a Lambda has little time, so no call may hang. */
const SLACK_TIMEOUT_MS = 10_000;

/** The request timeout left for this call: at most {@link SLACK_TIMEOUT_MS}, never past the deadline. */
function requestTimeoutMs(ctx: ToolContext): number {
  return Math.min(SLACK_TIMEOUT_MS, Math.max(1, ctx.deadline.remainingMs()));
}

/**
 * Explicit retry policy (the SDK default retries for ~30 minutes): two retries,
 * 0.5-2 s apart. Rate-limited calls are rejected at once as `throttled` with the
 * Retry-After value rather than sleeping inside the function.
 */
const SLACK_RETRY = { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2_000, randomize: true };

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
    const client = new WebClient(secret.bot_token, {
      slackApiUrl: slackApiUrl(),
      timeout: requestTimeoutMs(ctx),
      retryConfig: SLACK_RETRY,
      rejectRateLimitedCalls: true,
    });
    const response = await client.chat.postMessage({
      channel: args.channel,
      text: args.text,
      ...(args.blocks ? { blocks: args.blocks } : {}),
      ...(args.thread_ts ? { thread_ts: args.thread_ts } : {}),
    });
    return {
      value: { via: 'bot_token', channel: response.channel ?? args.channel, ts: response.ts ?? null },
      summary: `Posted to ${response.channel ?? args.channel}`,
    };
  }
  const webhook = new IncomingWebhook(secret.webhook_url as string, { timeout: requestTimeoutMs(ctx) });
  await webhook.send({ text: args.text, ...(args.blocks ? { blocks: args.blocks } : {}) });
  return {
    value: { via: 'webhook', channel: null, ts: null },
    summary: 'Posted through the incoming webhook',
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(slackPostMessageTool);
