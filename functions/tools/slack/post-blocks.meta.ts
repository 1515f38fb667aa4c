import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { SLACK_LIMITS } from './limits';
import { blocksArg, postChannelArg, SLACK_POST_SETTINGS, TEXT_DESCRIPTION, textArg } from './schemas';

/** `slack_post_blocks`: Block Kit blocks, checked before sending, split into a thread when too long. */
export const slackPostBlocksSpec = defineToolSpec({
  name: 'slack_post_blocks',
  description:
    'Posts Block Kit blocks to a Slack channel (bot token, else the incoming webhook). Checked before sending: ' +
    `a section's text at most ${SLACK_LIMITS.sectionText} characters and ${SLACK_LIMITS.sectionFields} fields, a header ` +
    `(plain_text) at most ${SLACK_LIMITS.headerText}; violations come back with a JSON pointer. More than ` +
    `${SLACK_LIMITS.blocksPerMessage} blocks or ${SLACK_LIMITS.messageBlocksText} characters of text: split into a ` +
    'first message and replies in its thread. mrkdwn text objects are escaped like text; their text may also be ' +
    'a list of segments for links and mentions. Returns every posted ts. Posts at most once per call.',
  inputSchema: () =>
    z.strictObject({
      channel: postChannelArg(),
      blocks: blocksArg().check(
        z.describe(
          'Block Kit blocks (section, header, divider, context, image…), e.g. [{"type":"section","text":{"type":"mrkdwn","text":"*CPU* 95%"}}].',
        ),
      ),
      text: z
        .optional(textArg())
        .check(
          z.describe(
            `Notification fallback; default: the first block text that is not blank (Message when none). ${TEXT_DESCRIPTION}`,
          ),
        ),
    }),
  ...SLACK_POST_SETTINGS,
});
