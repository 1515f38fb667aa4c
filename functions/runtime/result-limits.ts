/**
 * Result sizes once the claim-check is in place (docs/design.md, "Workspace, file
 * tools and claim-check"): how large a result may stay inline in Step Functions
 * state, and how large a full result a tool may hand the dispatcher to store.
 * Without a workspace the dispatcher keeps shrinking results to
 * `RESULT_MAX_BYTES` (functions/runtime/harness.ts).
 */
import { STEP_FUNCTIONS_PAYLOAD_BYTES } from './bound';
import { resultMaxBytes } from './harness';

/**
 * Default inline budget of one result, in bytes: 8 KiB. A result whose JSON is
 * larger is written to the run's workspace and replaced by a compact stand-in of
 * at most this size. Step Functions caps a state at 256 KiB ("Step Functions
 * service quotas"); AWS Pulse's collect level keeps twelve results in one state
 * (12 × 8 KiB = 96 KiB), which leaves more than half the state to the run's input,
 * the other levels' results and an agent's conversation. Configurable with
 * `RESULT_INLINE_BYTES`.
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
 * The inline budget in force: `RESULT_INLINE_BYTES` when it is a whole number
 * from {@link MIN_RESULT_INLINE_BYTES} to {@link MAX_RESULT_INLINE_BYTES}, else
 * {@link DEFAULT_RESULT_INLINE_BYTES}.
 *
 * @example resultInlineBytes({ RESULT_INLINE_BYTES: '16384' }) // 16384
 */
export function resultInlineBytes(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.RESULT_INLINE_BYTES);
  return Number.isInteger(configured) &&
    configured >= MIN_RESULT_INLINE_BYTES &&
    configured <= MAX_RESULT_INLINE_BYTES
    ? configured
    : DEFAULT_RESULT_INLINE_BYTES;
}

/**
 * Largest result a tool returns to a dispatcher that claim-checks, in bytes:
 * 1 MiB, 16 times the bound results had before the claim-check and well under
 * Lambda's 6 MB synchronous response ("Lambda quotas", `LAMBDA_SYNC_PAYLOAD_BYTES`).
 * Not more because every byte is redacted twice (in the tool's function and in the
 * dispatcher) and serialized, hashed and stored once: about 0.3-0.4 s per MiB on
 * this project's 2-core benchmark machine (`bench/claim-check.ts`), several times
 * that on a 256 MB Lambda, which the dispatcher's 10 s margin over the slowest
 * tool must cover.
 */
export const FULL_RESULT_MAX_BYTES = 1024 * 1024;

/**
 * The bound a tool's function applies to its result: `TOOL_RESULT_MAX_BYTES` when
 * it is a whole number from 4 KiB to {@link FULL_RESULT_MAX_BYTES} (the platform
 * sets it to {@link FULL_RESULT_MAX_BYTES}: its dispatcher claim-checks), else the
 * function's `RESULT_MAX_BYTES` bound (`resultMaxBytes`).
 */
export function toolResultMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.TOOL_RESULT_MAX_BYTES);
  return Number.isInteger(configured) && configured >= 4096 && configured <= FULL_RESULT_MAX_BYTES
    ? configured
    : resultMaxBytes(env);
}
