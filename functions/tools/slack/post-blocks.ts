import { createToolHandler } from '../../runtime/tool-handler';
import { chunkBlocks, fallbackText, prepareBlocks } from './blocks';
import { readSlackSecret } from './client';
import { defineSlackTool } from './define';
import { splitText } from './escape';
import { postMessages } from './post';
import { slackPostBlocksSpec } from './post-blocks.meta';
import { checkedParts, postSummary, visibleText } from './post-parts';

/** Longest notification fallback kept, characters: it is shown in notifications, not in the message. */
const FALLBACK_CHARS = 3_000;

/** `slack_post_blocks` with its handler. */
export const slackPostBlocksTool = defineSlackTool(slackPostBlocksSpec, async (ctx, args) => {
  // Checked (and escaped) before the secret is read or anything is sent.
  const blocks = prepareBlocks(args.blocks);
  const chunks = chunkBlocks(blocks);
  const fallback = splitText(
    args.text ? visibleText(args.text) : fallbackText(blocks),
    FALLBACK_CHARS,
  )[0] as string;
  const parts = checkedParts(
    chunks.map((chunk, i) => ({
      text: i === 0 ? fallback : `${fallback} (${i + 1}/${chunks.length})`,
      blocks: chunk,
    })),
  );
  const secret = await readSlackSecret(ctx);
  const result = await postMessages(ctx, secret, { channel: args.channel, parts });
  return { value: result, truncated: result.truncated, summary: postSummary(result, args.channel) };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(slackPostBlocksTool);
