import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { postChannelArg, SLACK_POST_SETTINGS, TEXT_DESCRIPTION, textArg } from './schemas';

/** `slack_post_message`: text to a channel, by bot token or incoming webhook, at most once per call. */
export const slackPostMessageSpec = defineToolSpec({
  name: 'slack_post_message',
  description:
    "Posts text to a Slack channel with the tenant's slack_default secret: the bot token (chat.postMessage) " +
    'when present, else the incoming webhook (which posts to its own channel). Text is escaped; links and ' +
    'mentions only as explicit segments. Text over 4,000 characters becomes a first message and replies in its ' +
    'thread (webhook: consecutive messages). Returns channel, ts, thread_ts and every posted ts. Posts at most ' +
    'once per call, whatever retries happen. Slack allows about one message per second per channel.',
  inputSchema: () =>
    z.strictObject({
      channel: postChannelArg(),
      text: textArg().check(z.describe(TEXT_DESCRIPTION)),
    }),
  ...SLACK_POST_SETTINGS,
});
