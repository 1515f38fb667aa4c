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
