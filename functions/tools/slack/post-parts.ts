/**
 * What a post tool posts and answers: the messages of one call (text split at
 * Slack's limits, or blocks), checked against the per-call message cap before
 * anything is sent, the result's shape, and its one-line summary.
 */
import { InvalidArgsError } from '../../runtime/errors';
import { failureResult, type ToolErrorInfo } from '../../runtime/result';
import type { Block } from './blocks';
import { renderText, type SlackText, splitText } from './escape';
import { SLACK_LIMITS } from './limits';

/**
 * Text as the messages it takes: escaped and rendered, split at
 * `SLACK_LIMITS.textChunkChars`.
 *
 * @throws InvalidArgsError when it would take more than `SLACK_LIMITS.messagesPerCall` messages.
 */
export function textParts(text: SlackText): PostPart[] {
  return checkedParts(
    splitText(visibleText(text), SLACK_LIMITS.textChunkChars).map((part) => ({ text: part })),
  );
}

/**
 * Text rendered for sending, refused when it shows nothing: only white space, or
 * segments that are all empty strings. chat.postMessage answers `no_text` to an
 * empty text (its "Errors": "No message text provided"); a blank message says nothing.
 *
 * @throws InvalidArgsError with `details.violations: [{ path: '/text', message }]`, before any call.
 */
export function visibleText(text: SlackText): string {
  const rendered = renderText(text);
  if (rendered.trim() !== '') return rendered;
  const message =
    'text has nothing to show (only white space or empty segments): give a string with visible characters, or segments such as {"link"} or {"user"}';
  throw new InvalidArgsError(`Invalid text: ${message}`, {
    details: { violations: [{ path: '/text', message }] },
  });
}

/**
 * Checks a call's messages against `SLACK_LIMITS.messagesPerCall` before anything is read or sent.
 *
 * @throws InvalidArgsError naming the count and the limit.
 */
export function checkedParts(parts: PostPart[]): PostPart[] {
  if (parts.length > SLACK_LIMITS.messagesPerCall) {
    throw new InvalidArgsError(
      `The content would take ${parts.length} messages; one call posts at most ${SLACK_LIMITS.messagesPerCall} (about ${SLACK_LIMITS.messagesPerCall * SLACK_LIMITS.textChunkChars} characters of text, or ${SLACK_LIMITS.messagesPerCall} messages of blocks): shorten it or post it in several calls`,
    );
  }
  return parts;
}

/** `event_type` of the metadata every message a tool posts carries ("Using message metadata"). */
export const SLACK_METADATA_EVENT_TYPE = 'etp_tool_call';

/** One message to post. */
export interface PostPart {
  /** mrkdwn, already escaped (or the notification fallback of `blocks`). */
  readonly text: string;
  readonly blocks?: readonly Block[];
}

/** What to post where: the first part is the parent, the rest follow in its thread. */
export interface PostRequest {
  readonly channel: string;
  readonly parts: readonly PostPart[];
  /** Reply in this existing thread (every part). */
  readonly threadTs?: string;
  /** Also show the first reply in the channel (`reply_broadcast`). */
  readonly broadcast?: boolean;
}

/** The result of a post tool. */
export interface PostResult {
  readonly via: 'bot_token' | 'webhook';
  /** The channel's ID (`null` through a webhook, which does not say). */
  readonly channel: string | null;
  /** The first message's ts (`null` through a webhook). */
  readonly ts: string | null;
  /** The thread the messages are in: the given one, or the first message's when split; `null` for one message. */
  readonly thread_ts: string | null;
  /** How many messages this call's content took. */
  readonly messages: number;
  /** Each message's ts, in order (empty through a webhook). */
  readonly posted_ts: readonly string[];
  /** Messages found already posted (by an earlier attempt, or before a lost answer) instead of sent again. */
  readonly recovered: number;
  /** Slack warned `message_truncated` for at least one message. */
  readonly truncated: boolean;
}

/**
 * One line for a post: where, how many messages, recovered ones.
 *
 * @example postSummary({ via: 'bot_token', channel: 'C0AWSPULSE', messages: 1, … }, '#aws-pulse') // 'Posted to C0AWSPULSE'
 */
export function postSummary(result: PostResult, channel: string): string {
  const where = result.via === 'webhook' ? 'through the incoming webhook' : `to ${result.channel ?? channel}`;
  const count =
    result.messages > 1
      ? ` (${result.messages} messages${result.via === 'bot_token' ? ', in a thread' : ''})`
      : '';
  const recovered = result.recovered > 0 ? `; ${result.recovered} found already posted, not sent again` : '';
  return `Posted ${where}${count}${recovered}`;
}

/**
 * Whether a failure of a post that certainly posted nothing must say so
 * (`details.effect: 'none'`): it declares no effect of its own, and its code
 * alone would be read as a possible effect by the call's record (`effectOf`,
 * runtime/idempotency.ts: `upstream_error`, `network_error`…). Idempotency is
 * loaded on this failure path only, as tool-handler.ts loads it.
 */
export function needsEffectNone(tool: string, callId: string, info: ToolErrorInfo): boolean {
  if (info.details?.effect !== undefined) return false;
  const { effectOf } = require('../../runtime/idempotency') as typeof import('../../runtime/idempotency');
  return effectOf(failureResult(tool, callId, info, 0)) !== 'none';
}
