import * as z from 'zod/mini';
import { isoTimeArg } from '../../runtime/arg-schemas';
import { defineToolSpec } from '../../runtime/spec';
import { channelIdArg, messageTsArg } from './schemas';

/** Most messages one call returns ("Pagination": Slack recommends pages of at most 200). */
export const HISTORY_MAX_LIMIT = 200;

/** `slack_channel_history`: a channel's (or a thread's) messages, newest first, bounded and redacted. */
export const slackChannelHistorySpec = defineToolSpec({
  name: 'slack_channel_history',
  description:
    "Reads a Slack channel's messages, newest first (or a thread's replies, oldest first, with thread_ts), with " +
    "the tenant's bot token (scopes channels:history, groups:history for private channels; an incoming webhook " +
    'cannot read). Each message: ts, user or bot_id, text (cut at 1,500 characters), thread_ts, reply_count. ' +
    `At most ${HISTORY_MAX_LIMIT} messages and about 48 KB per call; continue with next_cursor, or resume_latest / ` +
    'resume_oldest when the output was cut. Credentials in message text are redacted.',
  inputSchema: () =>
    z.strictObject({
      channel: channelIdArg(),
      limit: z
        ._default(z.int().check(z.minimum(1), z.maximum(HISTORY_MAX_LIMIT)), 50)
        .check(z.describe(`Messages to return, 1-${HISTORY_MAX_LIMIT} (default 50).`)),
      oldest: z.optional(isoTimeArg('Only messages after this time (ISO 8601 with time zone).')),
      latest: z.optional(isoTimeArg('Only messages before this time (ISO 8601 with time zone).')),
      cursor: z
        .optional(z.string().check(z.minLength(1), z.maxLength(500)))
        .check(z.describe('next_cursor of a previous call, to read the next page.')),
      thread_ts: z
        .optional(messageTsArg())
        .check(
          z.describe(
            'Read the replies of this message instead (its ts, a string such as "1712345678.000100").',
          ),
        ),
    }),
  tags: ['slack', 'read_only'],
  service: 'slack',
  requiresSecrets: ['slack_default'],
  sideEffects: 'none',
  iam: [],
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
});
