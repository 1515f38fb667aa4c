/**
 * The engine's bounds, chosen so that no state of a scenario run nears Step
 * Functions' 256 KiB limit on a state's input or output ("Step Functions service
 * quotas") whatever the account size: everything large lives in the run's
 * workspace (`runs/<tenant>/<scenario>/<runId>/`) and the state carries compact
 * records and references. `lib/scenarios/budget.ts` checks each scenario's
 * worst case against {@link STATE_BUDGET_BYTES} at synth.
 */

/**
 * What the engine keeps every state under in the worst case, in bytes: 180 KiB,
 * well under the 200 KiB target and 76 KiB short of Step Functions' 256 KiB.
 */
export const STATE_BUDGET_BYTES = 180 * 1024;

/** The dispatcher's inline result budget is never set below this, in bytes (`RESULT_MAX_BYTES`' floor). */
export const MIN_INLINE_RESULT_BYTES = 4 * 1024;

/**
 * Tool calls the engine dispatches per agent turn; more `toolUse` blocks in one
 * model response are answered with a `limit_exceeded` toolResult the model can
 * act on next turn. Also keeps a turn at most 3 + 8 state transitions.
 */
export const MAX_TOOL_CALLS_PER_TURN = 8;

/** Agent tool calls run in parallel up to this (the turn Map's `MaxConcurrency`). */
export const AGENT_TOOL_CONCURRENCY = 4;

/** A conversation stays in the state up to this many bytes of JSON; past it, it lives in the run's workspace. */
export const CONVERSATION_INLINE_MAX_BYTES = 8 * 1024;

/** The `data` of a `finish` kept inline in the level record; the whole `finish` is in the workspace. */
export const FINISH_DATA_INLINE_MAX_BYTES = 4 * 1024;

/** Longest agent level summary kept in the state, in characters: `finish`'s own `summary` bound. */
export const MAX_LEVEL_SUMMARY_CHARS = 4000;

/** Call records an agent level keeps in the state (the first ones); every call is in the workspace. */
export const MAX_AGENT_CALL_RECORDS = 20;

/**
 * Worst-case bytes of each part of the state, for the synth-time budget check:
 * a compact call record (a 300-character summary, ids, code, a resultRef), a
 * plan level record's own fields, an agent level record (summary, inline data,
 * call records, usage), and the model's tool-call args of one turn (the model's
 * output is bounded by `max_tokens`; a token is about 4 bytes of JSON).
 */
export const CALL_RECORD_MAX_BYTES = 800;
export const PLAN_RECORD_OVERHEAD_BYTES = 1024;
export const AGENT_RECORD_MAX_BYTES =
  MAX_LEVEL_SUMMARY_CHARS * 3 + FINISH_DATA_INLINE_MAX_BYTES + MAX_AGENT_CALL_RECORDS * CALL_RECORD_MAX_BYTES;
export const BYTES_PER_OUTPUT_TOKEN = 4;

/**
 * Questions an agent level may ask (`ask_user`); more are refused with an error
 * the model reads. Bounds how long a run can wait: the execution's timeout
 * allows this many full waits per asking level.
 */
export const MAX_QUESTIONS_PER_LEVEL = 3;

/** Default seconds an `ask_user` question waits for an answer: 24 hours. */
export const DEFAULT_ASK_TIMEOUT_SECONDS = 86_400;

/** Default turns and output tokens of an agent level. */
export const DEFAULT_MAX_TURNS = 8;
export const DEFAULT_MAX_TOKENS = 2000;

/** The largest `max_tokens` a level may set, and the ceiling of its retries (Bedrock models' common output bound). */
export const MAX_OUTPUT_TOKENS = 8192;

/** An agent level's retry ceiling for cut answers: its own setting, else min(4 × max_tokens, {@link MAX_OUTPUT_TOKENS}). */
export function maxTokensCeilingOf(level: {
  readonly max_tokens: number;
  readonly max_tokens_ceiling?: number;
}): number {
  return Math.max(
    level.max_tokens,
    level.max_tokens_ceiling ?? Math.min(4 * level.max_tokens, MAX_OUTPUT_TOKENS),
  );
}

/**
 * Bytes of tool-call arguments one agent turn may put in the state: the turn's
 * output budget at its ceiling, {@link BYTES_PER_OUTPUT_TOKEN} each. A call over
 * it (or over the tool's own limit) is answered with an error, never dispatched.
 */
export function turnArgsBudgetBytes(level: {
  readonly max_tokens: number;
  readonly max_tokens_ceiling?: number;
}): number {
  return maxTokensCeilingOf(level) * BYTES_PER_OUTPUT_TOKEN;
}

/**
 * Seconds one model call may take, the SDK's own retries included, by default:
 * 120 s, well under the engine function's 300 s timeout, so a model that never
 * answers fails the call (and is retried by the state machine) instead of
 * running the function out.
 */
export const DEFAULT_MODEL_CALL_TIMEOUT_SECONDS = 120;

/**
 * Seconds an agent level's model calls may take in all by default: 600 s, the
 * state machine's waits between retries included. Past it the level ends
 * `model_error` (`timeout`): a hung model costs at most this plus one call.
 */
export const DEFAULT_LEVEL_TIMEOUT_SECONDS = 600;

/** Turns a malformed answer (`malformed_model_output`, `malformed_tool_use`) is retried before the level ends. */
export const MAX_MALFORMED_RETRIES = 2;

/** Values of a restricted pin listed as the argument's `enum` to the model; more are listed by count only. */
export const MAX_PIN_ENUM_VALUES = 100;

/**
 * Times the state machine retries a turn that failed with a retryable model
 * error (`ModelRetryable`), after the SDK's own attempts (lib/scenarios/asl.ts).
 */
export const MODEL_RETRY_ATTEMPTS = 4;

/**
 * Bytes of JSON a level's resolved pins may take in the state (they ride in
 * `$.turn.pins` to every call): 16 KiB, a few hundred record ids. A pin whose
 * values would pass it is resolved as unavailable (fail closed), and says so.
 */
export const PINS_MAX_BYTES = 16 * 1024;

/**
 * Accounts a per-account level's plan carries in the state (`$.org.items`, the
 * Distributed Map's `ItemsPath`); more are read from the run's workspace
 * (`ItemReader`), so the state's size does not grow with the organization.
 */
export const ORG_INLINE_ACCOUNTS_MAX = 40;

/**
 * Bytes of one account item (`{ accountId, name }`): 12 digits and a name of at
 * most 50 characters (AWS Organizations API reference, "Account"), 4 bytes each in UTF-8 at worst.
 */
export const ACCOUNT_ITEM_MAX_BYTES = 256;

/**
 * Bytes of a per-account level's plan besides its items: counts, the previous
 * run's id, the Map Run's ARN and `ResultWriter` location, or the Map's error
 * (its `Cause` is at most 32,768 characters: Step Functions API reference, "HistoryEvent").
 */
export const ORG_PLAN_OVERHEAD_BYTES = 36 * 1024;

/** Bytes of one account's record (a child's output per account; functions/engine/org-report.ts bounds it). */
export const ACCOUNT_RECORD_MAX_BYTES = 2 * 1024;

/** Bytes of a per-account level's record at `$.levels.<level>`: counts and the report's text for Slack. */
export const ORG_RECORD_MAX_BYTES = 8 * 1024;
