/**
 * Every result size of the platform, with its source, in one place. One
 * mechanism carries them: a result whose JSON passes the inline budget is
 * written whole to the run's workspace and replaced by a stand-in (the
 * claim-check, functions/runtime/claim-check.ts, as the post-call work of post-call.ts does it); where no
 * workspace can take it, it is shrunk by `boundResult` (functions/runtime/bound.ts),
 * which is also how a tool's function bounds what it hands the dispatcher.
 *
 * | Limit | Value | Set by | Source |
 * | --- | --- | --- | --- |
 * | {@link STEP_FUNCTIONS_PAYLOAD_BYTES} | 256 KiB | AWS | "Step Functions service quotas": a state's input or output |
 * | {@link LAMBDA_SYNC_PAYLOAD_BYTES} | 6 MB | AWS | "Lambda quotas": a synchronous invocation's response |
 * | {@link DEFAULT_RESULT_INLINE_BYTES} | 8 KiB | `RESULT_INLINE_BYTES` (8-64 KiB; the CDK sets it from the scenarios) | a result kept inline in state |
 * | {@link FULL_RESULT_MAX_BYTES} | 1 MiB | `TOOL_RESULT_MAX_BYTES` (the platform sets it) | a whole result a tool returns to the claim-checking dispatcher |
 * | {@link DEFAULT_RESULT_MAX_BYTES} | 64 KiB | `RESULT_MAX_BYTES` (4-250 KiB) | a result shrunk where nothing claim-checks (`etp tools invoke`, a tool's own bound) |
 * | {@link RESULT_ENVELOPE_RESERVE_BYTES} | 2 KiB | — | a result's fields around `value`, kept out of a shrink's budget |
 *
 * The inline budget a deployment uses is computed at synth from its scenarios
 * (`inlineResultBudget`, lib/scenarios/budget.ts): the largest budget at which
 * every level's results held at once, plus the run's records, fit the state
 * budget of the engine (functions/engine/limits.ts). The default is its ceiling.
 */

/** The Step Functions limit on a state's input or output: 256 KiB (AWS docs, "Step Functions service quotas"). */
export const STEP_FUNCTIONS_PAYLOAD_BYTES = 256 * 1024;

/** The Lambda limit on a synchronous invocation's response: 6 MB (AWS docs, "Lambda quotas"). */
export const LAMBDA_SYNC_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** Bytes kept for a result's own fields around `value` when it is shrunk. */
export const RESULT_ENVELOPE_RESERVE_BYTES = 2 * 1024;

/**
 * Default inline budget of one result, in bytes: 8 KiB. A result whose JSON is
 * larger is written to the run's workspace and replaced by a compact stand-in of
 * at most this size. The platform lowers it at synth when its scenarios hold so
 * many results at once that 8 KiB each would not fit a state (`inlineResultBudget`).
 * Configurable with `RESULT_INLINE_BYTES`.
 */
export const DEFAULT_RESULT_INLINE_BYTES = 8 * 1024;

/**
 * Smallest inline budget accepted: 8 KiB, so a `read_file` slice (at most 5 KiB
 * of JSON-escaped text, `READ_FILE_MAX_BYTES`) and a claim-check stand-in always
 * fit inline and are never claim-checked themselves.
 */
export const MIN_RESULT_INLINE_BYTES = 8 * 1024;

/** Largest inline budget accepted: 64 KiB, a quarter of the state limit (the bound results had before the claim-check). */
export const MAX_RESULT_INLINE_BYTES = STEP_FUNCTIONS_PAYLOAD_BYTES / 4;

/**
 * Default bound on one shrunk ToolResult, in bytes: 64 KiB, a quarter of the
 * Step Functions state limit, so a state can hold several results where nothing
 * claim-checks them. Configurable with `RESULT_MAX_BYTES`.
 */
export const DEFAULT_RESULT_MAX_BYTES = 64 * 1024;

/** Largest `RESULT_MAX_BYTES` accepted: the state limit less 6 KiB for the state's other fields. */
const RESULT_MAX_CEILING_BYTES = STEP_FUNCTIONS_PAYLOAD_BYTES - 6 * 1024;

/**
 * Largest result a tool returns to a dispatcher that claim-checks, in bytes:
 * 1 MiB, 16 times the bound results had before the claim-check and well under
 * Lambda's 6 MB synchronous response ({@link LAMBDA_SYNC_PAYLOAD_BYTES}).
 * Not more because every byte is redacted twice (in the tool's function and in the
 * dispatcher) and serialized, hashed and stored once: about 0.3-0.4 s per MiB on
 * this project's 2-core benchmark machine (`bench/claim-check.ts`), several times
 * that on a 256 MB Lambda, which the dispatcher's 10 s margin over the slowest
 * tool must cover.
 */
export const FULL_RESULT_MAX_BYTES = 1024 * 1024;

/** `env[name]` when it is a whole number from `min` to `max`, else `fallback`. */
function configuredBytes(
  env: NodeJS.ProcessEnv,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  const configured = Number(env[name]);
  return Number.isInteger(configured) && configured >= min && configured <= max ? configured : fallback;
}

/**
 * The shrink bound in force: `RESULT_MAX_BYTES` when it is a whole number from
 * 4 KiB to 250 KiB, else {@link DEFAULT_RESULT_MAX_BYTES}.
 *
 * @example resultMaxBytes({ RESULT_MAX_BYTES: '32768' }) // 32768
 */
export function resultMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  return configuredBytes(env, 'RESULT_MAX_BYTES', 4096, RESULT_MAX_CEILING_BYTES, DEFAULT_RESULT_MAX_BYTES);
}

/**
 * The inline budget in force: `RESULT_INLINE_BYTES` when it is a whole number
 * from {@link MIN_RESULT_INLINE_BYTES} to {@link MAX_RESULT_INLINE_BYTES}, else
 * {@link DEFAULT_RESULT_INLINE_BYTES}.
 *
 * @example resultInlineBytes({ RESULT_INLINE_BYTES: '16384' }) // 16384
 */
export function resultInlineBytes(env: NodeJS.ProcessEnv = process.env): number {
  return configuredBytes(
    env,
    'RESULT_INLINE_BYTES',
    MIN_RESULT_INLINE_BYTES,
    MAX_RESULT_INLINE_BYTES,
    DEFAULT_RESULT_INLINE_BYTES,
  );
}

/**
 * The bound a tool's function applies to its result: `TOOL_RESULT_MAX_BYTES` when
 * it is a whole number from 4 KiB to {@link FULL_RESULT_MAX_BYTES} (the platform
 * sets it to {@link FULL_RESULT_MAX_BYTES}: its dispatcher claim-checks), else the
 * function's `RESULT_MAX_BYTES` bound ({@link resultMaxBytes}).
 */
export function toolResultMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  return configuredBytes(env, 'TOOL_RESULT_MAX_BYTES', 4096, FULL_RESULT_MAX_BYTES, resultMaxBytes(env));
}

/**
 * Most bytes `read_file` returns in one call, and most bytes its text may take
 * once JSON-escaped: 5 KiB. With the path (at most 512 bytes) and the offsets, the
 * value stays within the 6 KiB a value gets under the smallest inline budget
 * ({@link MIN_RESULT_INLINE_BYTES}, 8 KiB, less the 2 KiB `boundResult` keeps for the
 * result's other fields), so a slice is never shrunk nor claim-checked itself.
 */
export const READ_FILE_MAX_BYTES = 5 * 1024;
