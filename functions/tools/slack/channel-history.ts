import type { ConversationsHistoryResponse } from '@slack/web-api';
import { InvalidArgsError } from '../../runtime/errors';
import { createToolHandler } from '../../runtime/tool-handler';
import { HISTORY_MAX_LIMIT, slackChannelHistorySpec } from './channel-history.meta';
import { readSlackSecret, requireBotToken, SlackSession } from './client';
import { defineSlackTool } from './define';
import { mapSlackError } from './errors';

/** Longest message text returned, characters: a long message is cut, marked `text_truncated`. */
const MESSAGE_TEXT_CHARS = 1_500;

/** Output budget, bytes of JSON: below the 64 KiB result bound with room for the envelope. */
const OUTPUT_BUDGET_BYTES = 48 * 1024;

/** Time left at which no further page is asked for, ms. */
const PAGE_RESERVE_MS = 1_500;

/** One message as returned. */
export interface HistoryMessage {
  readonly ts: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly subtype?: string;
  readonly text: string;
  readonly text_truncated?: true;
  readonly thread_ts?: string;
  readonly reply_count?: number;
  readonly latest_reply?: string;
}

type SlackHistoryMessage = NonNullable<ConversationsHistoryResponse['messages']>[number];

/** An ISO 8601 time as a Slack ts bound (seconds, 6 decimals). */
function slackTime(iso: string | undefined): string | undefined {
  return iso === undefined ? undefined : (Date.parse(iso) / 1000).toFixed(6);
}

function summarize(message: SlackHistoryMessage): HistoryMessage {
  const text = message.text ?? '';
  const cut = text.length > MESSAGE_TEXT_CHARS;
  return {
    ts: message.ts as string,
    ...(message.user ? { user: message.user } : {}),
    ...(message.bot_id ? { bot_id: message.bot_id } : {}),
    ...(message.subtype ? { subtype: message.subtype } : {}),
    text: cut ? `${text.slice(0, MESSAGE_TEXT_CHARS)}…` : text,
    ...(cut ? { text_truncated: true as const } : {}),
    ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
    ...(typeof message.reply_count === 'number' ? { reply_count: message.reply_count } : {}),
    ...(message.latest_reply ? { latest_reply: message.latest_reply } : {}),
  };
}

/** `slack_channel_history` with its handler. */
export const slackChannelHistoryTool = defineSlackTool(slackChannelHistorySpec, async (ctx, args) => {
  const oldest = slackTime(args.oldest);
  const latest = slackTime(args.latest);
  if (oldest !== undefined && latest !== undefined && Number(oldest) >= Number(latest)) {
    throw new InvalidArgsError(`oldest (${args.oldest}) must be before latest (${args.latest})`);
  }
  const secret = await readSlackSecret(ctx);
  const session = new SlackSession(
    ctx,
    requireBotToken(
      secret,
      'slack_channel_history',
      'the channels:history scope (groups:history for private channels)',
    ),
  );
  const messages: HistoryMessage[] = [];
  let bytes = 0;
  let cursor = args.cursor;
  let hasMore = false;
  let cutShort = false;
  let rateLimited: { retryAfterSeconds: unknown } | undefined;
  do {
    if (ctx.deadline.remainingMs() < PAGE_RESERVE_MS) {
      cutShort = true;
      break;
    }
    const request = {
      channel: args.channel,
      limit: Math.min(HISTORY_MAX_LIMIT, args.limit - messages.length),
      ...(oldest ? { oldest } : {}),
      ...(latest ? { latest } : {}),
      ...(cursor ? { cursor } : {}),
    };
    let page: ConversationsHistoryResponse;
    try {
      page = args.thread_ts
        ? ((await session.api((c) =>
            c.conversations.replies({ ...request, ts: args.thread_ts as string }),
          )) as ConversationsHistoryResponse)
        : await session.api((c) => c.conversations.history(request));
    } catch (err) {
      // Rate limited after some pages (Slack's 2025 limits for apps outside the Marketplace: one
      // request a minute): the pages read are returned with the cursor of the next, never thrown away.
      const mapped = mapSlackError(err);
      if (mapped?.code !== 'throttled' || messages.length === 0) throw err;
      rateLimited = { retryAfterSeconds: mapped.details?.retryAfterSeconds ?? null };
      hasMore = true;
      break;
    }
    const pageMessages = (page.messages ?? []) as SlackHistoryMessage[];
    let taken = 0;
    for (const message of pageMessages) {
      if (messages.length >= args.limit) break;
      const summary = summarize(message);
      const size = Buffer.byteLength(JSON.stringify(summary));
      if (bytes + size > OUTPUT_BUDGET_BYTES) {
        cutShort = true;
        break;
      }
      messages.push(summary);
      bytes += size;
      taken++;
    }
    cursor = page.response_metadata?.next_cursor || undefined;
    hasMore = Boolean(page.has_more) || cursor !== undefined || taken < pageMessages.length;
    if (cutShort || taken < pageMessages.length) break;
  } while (cursor && messages.length < args.limit);
  const last = messages.at(-1)?.ts ?? null;
  // Cut inside a page: Slack's cursor would skip the rest of it, so resume from the last ts instead.
  const resumable = cutShort || (hasMore && cursor === undefined);
  return {
    value: {
      channel: args.channel,
      ...(args.thread_ts ? { thread_ts: args.thread_ts } : {}),
      messages,
      has_more: hasMore || cutShort,
      next_cursor: resumable ? null : (cursor ?? null),
      // History is newest first (continue before the last ts); replies oldest first (after it).
      resume_latest: resumable && !args.thread_ts ? last : null,
      resume_oldest: resumable && args.thread_ts ? last : null,
      // Set when Slack rate limited the next page: continue from next_cursor after retryAfterSeconds.
      ...(rateLimited ? { rate_limited: rateLimited } : {}),
    },
    truncated: cutShort || rateLimited !== undefined,
    summary: `${messages.length} message${messages.length === 1 ? '' : 's'} from ${args.channel}${hasMore || cutShort ? ', more available' : ''}${rateLimited ? ' (rate limited: continue from next_cursor later)' : ''}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(slackChannelHistoryTool);
