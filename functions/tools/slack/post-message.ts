import { createToolHandler } from '../../runtime/tool-handler';
import { readSlackSecret } from './client';
import { defineSlackTool } from './define';
import { postMessages } from './post';
import { slackPostMessageSpec } from './post-message.meta';
import { postSummary, textParts } from './post-parts';

/** `slack_post_message` with its handler. */
export const slackPostMessageTool = defineSlackTool(slackPostMessageSpec, async (ctx, args) => {
  const parts = textParts(args.text);
  const secret = await readSlackSecret(ctx);
  const result = await postMessages(ctx, secret, { channel: args.channel, parts });
  return { value: result, truncated: result.truncated, summary: postSummary(result, args.channel) };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(slackPostMessageTool);
