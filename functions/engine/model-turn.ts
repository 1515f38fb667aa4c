/**
 * One model call of an agent level, by the Converse contract: the request
 * checked against the Converse rules before it is sent, the call bounded in
 * time (per call, and by what is left of the level's model time), a context
 * window overflow compacted and retried once, and the answer classified by its
 * stop reason (docs/scenarios.md, "Stop reasons"). What the engine then does
 * with each kind is the turn action's (actions/turn.ts).
 */
import { PlatformError } from '../runtime/errors';
import type { ToolErrorInfo } from '../runtime/result';
import { compactConversation } from './compaction';
import type { StoredConversation } from './conversation';
import { messageProblems } from './converse-rules';
import type { AgentLevel } from './definition';
import {
  type ConverseResponse,
  type ModelClient,
  ModelRetryableError,
  type ModelTool,
  normalizeModelError,
} from './model-client';

/** The stop reasons the Converse API documents (API reference, "Converse", `stopReason`; "MessageStopEvent"). */
export const CONVERSE_STOP_REASONS = [
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'guardrail_intervened',
  'content_filtered',
  'malformed_model_output',
  'malformed_tool_use',
  'model_context_window_exceeded',
] as const;

/** A documented stop reason. */
export type StopReason = (typeof CONVERSE_STOP_REASONS)[number];

/** What kind of answer a stop reason makes: used, cut, malformed, blocked, too long, or unknown. */
export type AnswerKind = 'answer' | 'cut' | 'malformed' | 'blocked' | 'overflow' | 'unknown';

/** The kind of answer of each stop reason. */
export function answerKindOf(stopReason: string): AnswerKind {
  switch (stopReason as StopReason) {
    case 'end_turn':
    case 'tool_use':
    case 'stop_sequence':
      return 'answer';
    case 'max_tokens':
      return 'cut';
    case 'malformed_model_output':
    case 'malformed_tool_use':
      return 'malformed';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'blocked';
    case 'model_context_window_exceeded':
      return 'overflow';
    default:
      return 'unknown';
  }
}

/** A refusal of the request as too long for the model (Bedrock's ValidationException texts for it). */
const TOO_LONG =
  /too long|context (window|length)|input is too large|exceeds? the (maximum|max)[^.]*tokens|prompt is too long/i;

/** What one model call came to. */
export type ModelCallOutcome =
  | {
      readonly kind: 'response';
      readonly response: ConverseResponse;
      /** The conversation as sent (compacted when the first attempt overflowed). */
      readonly conversation: StoredConversation;
      readonly compacted: boolean;
    }
  | { readonly kind: 'overflow'; readonly conversation: StoredConversation }
  | { readonly kind: 'error'; readonly error: ToolErrorInfo };

/** The time bounds of one call. */
export interface CallTime {
  /** Ms this call may take (the per-call timeout, or what is left of the level's time). */
  readonly timeoutMs: number;
  /** Whether a retry of a timed-out call would still fit the level's time. */
  readonly retryFits: boolean;
}

/**
 * Calls the model. A retryable failure throws {@link ModelRetryableError} when
 * another attempt fits the level's time (the state machine retries it with
 * backoff); otherwise it is returned as the level's error.
 *
 * @throws PlatformError (`internal_error`) when the conversation breaks a Converse rule: an engine bug, never sent.
 */
export async function callModel(
  model: ModelClient,
  level: AgentLevel,
  conversation: StoredConversation,
  tools: readonly ModelTool[],
  maxTokens: number,
  time: CallTime,
  signal?: AbortSignal,
): Promise<ModelCallOutcome> {
  let sent = conversation;
  for (let attempt = 0; ; attempt++) {
    const problems = messageProblems(sent.messages);
    if (problems.length > 0) {
      throw new PlatformError(
        'internal_error',
        `The engine built a conversation the Converse API refuses: ${problems.map((p) => `${p.at}: ${p.problem}`).join('; ')}`,
      );
    }
    const timer = AbortSignal.timeout(Math.max(1, time.timeoutMs));
    try {
      const response = await model.converse(
        {
          modelId: level.model,
          system: sent.system,
          messages: sent.messages,
          tools,
          maxTokens,
          ...(level.temperature !== undefined ? { temperature: level.temperature } : {}),
        },
        signal ? AbortSignal.any([signal, timer]) : timer,
      );
      if (answerKindOf(response.stopReason) !== 'overflow')
        return { kind: 'response', response, conversation: sent, compacted: attempt > 0 };
    } catch (err) {
      const timedOut = timer.aborted || signal?.aborted === true;
      const error: ToolErrorInfo = timedOut
        ? {
            code: 'timeout',
            message: `Model ${level.model} did not answer within ${Math.round(time.timeoutMs / 1000)} s`,
            retryable: true,
            service: 'bedrock',
          }
        : normalizeModelError(err, level.model);
      const tooLong = error.code === 'invalid_args' && TOO_LONG.test(error.message);
      if (!tooLong) {
        if (error.retryable && (timedOut ? time.retryFits : true)) throw new ModelRetryableError(error);
        return { kind: 'error', error };
      }
    }
    // The model refused the conversation as too long: compact it and try once more.
    if (attempt > 0) return { kind: 'overflow', conversation: sent };
    sent = compactConversation(sent).conversation;
  }
}
