/**
 * What a model answer's stop reason means for its turn (docs/scenarios.md, "Stop reasons: what each answer of the model leads to"):
 * the level ends (a blocked answer, an undocumented stop reason, a cut at the output ceiling,
 * malformed too many times in a row), the turn is retried with none of the answer's calls run
 * (a cut or malformed answer), or the answer is used.
 */
import type { AgentLevel } from '../definition';
import type { RejectedCall } from '../events';
import { MAX_MALFORMED_RETRIES, maxTokensCeilingOf } from '../limits';
import { answerKindOf } from '../model-turn';
import type { AgentOutcome } from '../records';
import type { LevelEnd } from './level-end';

/** The answer as the stop reason handling reads it. */
export interface StoppedAnswer {
  readonly stopReason: string;
  /** What the model said (bounded to the summary's length). */
  readonly said: string;
  /** The answer's tool calls, after cleaning. */
  readonly uses: readonly { readonly toolUseId: string; readonly name: string }[];
}

/** The turn's output budget (tokens) and how many malformed answers came before this one in a row. */
export interface TurnRetries {
  readonly maxTokens: number;
  readonly malformed: number;
}

/** What the turn does with the answer. */
export type StopHandling =
  /** The level ends; the answer is kept in the conversation. */
  | { readonly kind: 'end'; readonly end: LevelEnd }
  /**
   * The turn is retried: each call is answered by `rejected`, `notice` stands in for them when the
   * answer had none, and the answer is kept in the conversation only when `keep`.
   */
  | {
      readonly kind: 'retry';
      readonly keep: boolean;
      readonly rejected: RejectedCall[];
      readonly notice: string | undefined;
      readonly maxTokens: number;
      readonly malformed: number;
    }
  /** A documented end of answer (`end_turn`, `tool_use`...): its calls are run. */
  | { readonly kind: 'use' };

/** A level that fails on an answer the turn cannot use: `upstream_error` from Bedrock, not retryable. */
function upstreamEnd(stopReason: string, message: string): LevelEnd {
  return {
    outcome: 'model_error',
    stopReason,
    error: { code: 'upstream_error', message, retryable: false, service: 'bedrock' },
  };
}

/** How the turn of `level` handles `answer`, given its `retries` so far. */
export function stopHandling(level: AgentLevel, answer: StoppedAnswer, retries: TurnRetries): StopHandling {
  const { stopReason, said, uses } = answer;
  const { maxTokens, malformed } = retries;
  const kind = answerKindOf(stopReason);
  if (kind === 'blocked')
    return { kind: 'end', end: { outcome: stopReason as AgentOutcome, text: said, stopReason } };
  if (kind === 'unknown') {
    return {
      kind: 'end',
      end: upstreamEnd(
        stopReason,
        `Model ${level.model} ended its answer with stop reason "${stopReason.slice(0, 80)}", which the Converse API does not document: the turn failed`,
      ),
    };
  }
  if (kind !== 'cut' && kind !== 'malformed') return { kind: 'use' };
  const ceiling = maxTokensCeilingOf(level);
  if (kind === 'cut' && maxTokens >= ceiling)
    return { kind: 'end', end: { outcome: 'truncated', text: said, stopReason } };
  if (kind === 'malformed' && malformed >= MAX_MALFORMED_RETRIES) {
    return {
      kind: 'end',
      end: upstreamEnd(
        stopReason,
        `Model ${level.model} answered malformed (${stopReason}) ${malformed + 1} times in a row`,
      ),
    };
  }
  // None of the answer's calls is run: each is answered with an error saying why, and the turn is
  // retried (a cut one with a larger output budget).
  const next = kind === 'cut' ? Math.min(maxTokens * 2, ceiling) : maxTokens;
  const why =
    kind === 'cut'
      ? `Your answer was cut at its output limit (${maxTokens} tokens) before this call was complete, so it was not run. Call it again; your next answer may use up to ${next} tokens. Keep arguments short: write large content in parts.`
      : `Your answer was malformed (${stopReason}), so this call was not run. Call it again with well-formed arguments.`;
  const rejected: RejectedCall[] = uses.map((use) => ({
    toolUseId: use.toolUseId,
    tool: use.name,
    code: kind === 'cut' ? 'limit_exceeded' : 'invalid_args',
    message: why,
  }));
  const notice =
    uses.length > 0
      ? undefined
      : kind === 'cut'
        ? `Your previous answer was cut at its output limit (${maxTokens} tokens). Go on from where it stopped; your next answer may use up to ${next} tokens. Call finish when you are done.`
        : `Your previous answer was malformed (${stopReason}) and was dropped: answer again.`;
  return {
    kind: 'retry',
    keep: uses.length > 0 || (kind === 'cut' && said !== ''),
    rejected,
    notice,
    maxTokens: next,
    malformed: kind === 'malformed' ? malformed + 1 : malformed,
  };
}
