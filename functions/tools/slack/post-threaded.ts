import { createToolHandler } from '../../runtime/tool-handler';
import { readSlackSecret, requireBotToken } from './client';
import { defineSlackTool } from './define';
import { renderText, splitText } from './escape';
import { SLACK_LIMITS } from './limits';
import { postMessages, postSummary } from './post';
import { slackPostThreadedSpec } from './post-threaded.meta';

/** `slack_post_threaded` with its handler. */
export const slackPostThreadedTool = defineSlackTool(slackPostThreadedSpec, async (ctx, args) => {
  const secret = await readSlackSecret(ctx);
  requireBotToken(secret, 'slack_post_threaded', 'the chat:write scope');
  const parts = splitText(renderText(args.text), SLACK_LIMITS.textChunkChars).map((text) => ({ text }));
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
