/**
 * Compacting a conversation the model refused as too long
 * (`model_context_window_exceeded`, or a ValidationException saying the input is
 * too long): claim-checked results replaced by their summaries and reference,
 * other large results by their summary, and the oldest turns folded, keeping the
 * prompt and the latest exchanges, so the conversation still follows the
 * Converse rules (converse-rules.ts). The engine retries once with it.
 */
import { jsonByteLength } from '../runtime/bound';
import type { StoredConversation } from './conversation';
import type { ContentBlock, Message } from './model-client';

/** A toolResult's JSON kept whole up to this many bytes when compacting; larger ones keep their summary. */
export const COMPACT_RESULT_MAX_BYTES = 2048;

/** Messages kept after the prompt when compacting: the last two exchanges. */
export const COMPACT_KEEP_MESSAGES = 4;

/** What a compaction did. */
export interface Compaction {
  readonly conversation: StoredConversation;
  /** toolResults replaced by their summaries. */
  readonly shortened: number;
  /** Messages folded away. */
  readonly folded: number;
}

function shortenBlock(block: ContentBlock): { block: ContentBlock; shortened: boolean } {
  if (!('toolResult' in block)) return { block, shortened: false };
  const result = block.toolResult;
  let shortened = false;
  const content = result.content.map((item) => {
    if (!('json' in item) || jsonByteLength(item.json) <= COMPACT_RESULT_MAX_BYTES) return item;
    const json = (item.json ?? {}) as Record<string, unknown>;
    shortened = true;
    return {
      json: {
        ok: json.ok,
        summary: json.summary ?? 'a large result',
        ...(json.resultRef ? { resultRef: json.resultRef } : {}),
        note: json.resultRef
          ? 'Shortened to fit the model’s context window: the full value is in the run’s workspace (read it in slices with read_file).'
          : 'Shortened to fit the model’s context window: call the tool again if you need its value.',
      },
    };
  });
  return { block: { toolResult: { ...result, content } }, shortened };
}

/** The conversation compacted (see the module's header). */
export function compactConversation(
  conversation: StoredConversation,
  keep: number = COMPACT_KEEP_MESSAGES,
): Compaction {
  let shortened = 0;
  const messages: Message[] = conversation.messages.map((message) => ({
    role: message.role,
    content: message.content.map((block) => {
      const out = shortenBlock(block);
      if (out.shortened) shortened++;
      return out.block;
    }),
  }));
  const [first, ...rest] = messages;
  if (!first || rest.length <= keep)
    return { conversation: { ...conversation, messages }, shortened, folded: 0 };
  // The kept tail starts with an assistant message, right after the prompt: roles still alternate
  // and every toolResult kept answers a toolUse kept.
  let cut = rest.length - keep;
  while (cut < rest.length && rest[cut]?.role !== 'assistant') cut++;
  const tail = rest.slice(cut);
  const note: ContentBlock = {
    text: `(The platform removed the ${cut} earlier messages of this conversation to fit the model's context window; every call's result is kept in the run's workspace.)`,
  };
  return {
    conversation: {
      ...conversation,
      messages: [{ role: 'user', content: [...first.content, note] }, ...tail],
    },
    shortened,
    folded: cut,
  };
}
