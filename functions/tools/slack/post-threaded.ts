import { createToolHandler } from '../../runtime/tool-handler';
import { readSlackSecret, requireBotToken } from './client';
import { defineSlackTool } from './define';
import { postMessages } from './post';
import { postSummary, textParts } from './post-parts';
import { slackPostThreadedSpec } from './post-threaded.meta';

/** `slack_post_threaded` with its handler. */
export const slackPostThreadedTool = defineSlackTool(slackPostThreadedSpec, async (ctx, args) => {
  const parts = textParts(args.text);
  const secret = await readSlackSecret(ctx);
  requireBotToken(secret, 'slack_post_threaded', 'the chat:write scope');
  const result = await postMessages(ctx, secret, {
    channel: args.channel,
    parts,
    threadTs: args.thread_ts,
    broadcast: args.broadcast ?? false,
  });
  return { value: result, truncated: result.truncated, summary: postSummary(result, args.channel) };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(slackPostThreadedTool);
