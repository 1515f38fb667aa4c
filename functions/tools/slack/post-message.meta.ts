import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';

/**
 * Slack limits (api.slack.com, "chat.postMessage" and "Block Kit: blocks"):
 * 50 blocks per message; `text` is truncated by Slack past 40,000 characters
 * (4,000 recommended).
 */
export const SLACK_MAX_BLOCKS = 50;
export const SLACK_MAX_TEXT_CHARS = 40_000;

/** `slack_post_message`: one message to a channel, by bot token or incoming webhook. */
export const slackPostMessageSpec = defineToolSpec({
  name: 'slack_post_message',
  description:
    "Posts one message to a Slack channel with the tenant's slack_default secret: the bot token " +
    '(chat.postMessage) when present, else the incoming webhook (which posts to its own channel). ' +
    'Returns the channel and message ts (ts is null through a webhook). Text up to 40,000 chars, ' +
    'optional Block Kit blocks (at most 50) and thread_ts. Slack allows about one message per second per channel.',
  inputSchema: () =>
    z.strictObject({
      channel: z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(80),
          z.regex(/^[#@]?[\w.-]+$/, 'a channel ID (C0123ABCD) or #name'),
          z.describe('Channel ID (C0123ABCD) or #channel-name; ignored by webhooks.'),
        ),
      text: z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(SLACK_MAX_TEXT_CHARS),
          z.describe('Message text (mrkdwn); the notification fallback when blocks are given.'),
        ),
      blocks: z
        .optional(z.array(z.looseObject({ type: z.string() })).check(z.maxLength(SLACK_MAX_BLOCKS)))
        .check(z.describe('Block Kit blocks, at most 50.')),
      thread_ts: z
        .optional(z.string().check(z.regex(/^\d+\.\d+$/, 'a message ts such as 1712345678.000100')))
        .check(z.describe('Reply in the thread of this message ts.')),
    }),
  tags: ['slack', 'write'],
  service: 'slack',
  requiresSecrets: ['slack_default'],
  sideEffects: 'write',
  iam: [],
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
});
