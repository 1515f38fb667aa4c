import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { messageTsArg, postChannelArg, SLACK_POST_SETTINGS, TEXT_DESCRIPTION, textArg } from './schemas';

/** `slack_post_threaded`: a reply in a message's thread (bot token only). */
export const slackPostThreadedSpec = defineToolSpec({
  name: 'slack_post_threaded',
  description:
    "Replies in the thread of a Slack message with the tenant's bot token (an incoming webhook cannot: clear " +
    'secret_invalid error). thread_ts is the parent message ts exactly as Slack returned it, a string like ' +
    '"1712345678.000100". Returns ts and thread_ts so replies can be chained. Text is escaped; links and mentions ' +
    'only as segments; long text becomes several replies. Posts at most once per call.',
  inputSchema: () =>
    z.strictObject({
      channel: postChannelArg(),
      thread_ts: messageTsArg().check(
        z.describe('ts of the parent message, a string such as "1712345678.000100".'),
      ),
      text: textArg().check(z.describe(TEXT_DESCRIPTION)),
      broadcast: z
        .optional(z.boolean())
        .check(z.describe('Also show the reply in the channel (reply_broadcast). Default false.')),
    }),
  ...SLACK_POST_SETTINGS,
});
