import type { ErrorCode } from './errors';
import type { ResultRef } from './workspace';

/**
 * A normalized error, as every tool and the dispatcher report it.
 *
 * @example
 * { code: 'opt_in_required', message: 'Cost Explorer is not enabled for this account',
 *   retryable: false, service: 'ce', details: { awsError: 'AccessDeniedException', requestId: '…' } }
 */
export interface ToolErrorInfo {
  /** One of the normalized codes (`docs/errors.md`). */
  readonly code: ErrorCode;
  /** For people and models: what went wrong and, where possible, what is accepted. At most 1,000 chars. */
  readonly message: string;
  /** Whether the same call may succeed when retried later. */
  readonly retryable: boolean;
  /** The remote service involved (`ec2`, `slack`, `sts`…), when there is one. */
  readonly service?: string;
  /** Redacted extra facts: the AWS error name and request id, the Slack error string, the violations… */
  readonly details?: Record<string, unknown>;
}

interface ToolResultBase {
  /** The tool's registered name. */
  readonly tool: string;
  /** The call id from the envelope (`collect/0`); `runId` + `callId` identify a call. */
  readonly callId: string;
  /** Wall time of the call in ms, measured where the result was built. */
  readonly durationMs: number;
  /** One line for people and reports: the tool's own summary, or `code: message` on failure. */
  readonly summary: string;
}

/** A successful call. `value` is the tool's JSON output, possibly shrunk (`truncated`). */
export interface ToolSuccess<V = unknown> extends ToolResultBase {
  readonly ok: true;
  readonly value: V;
  /** True when the tool stopped early (deadline, page cap) or the value was shrunk to fit a size limit. */
  readonly truncated: boolean;
  /**
   * Set (always `true`) when the platform shrank `value` to fit a size limit
   * (`boundResult`, functions/runtime/bound.ts); absent when `value` is the tool's
   * own. A `truncated` result without it is one the tool itself reported
   * incomplete (stopped early, a part it could not read).
   */
  readonly shrunk?: true;
  /**
   * Claim-check reference to the full result when its JSON was larger than the
   * inline budget (`uri`, `bytes`, `sha256` of the stored file); `value` then holds
   * a compact stand-in (the summary, a bounded preview and a note on reading the
   * file). `null` when `value` is the tool's own.
   */
  readonly resultRef: ResultRef | null;
}

/** A failed call. Never thrown: a failed tool never aborts a scenario run. */
export interface ToolFailure extends ToolResultBase {
  readonly ok: false;
  readonly error: ToolErrorInfo;
}

/** What every tool and the dispatcher return (docs/design.md, "ToolResult"). */
export type ToolResult<V = unknown> = ToolSuccess<V> | ToolFailure;

/** Longest `summary`, in characters: one line a report or a model reads at a glance. */
export const MAX_SUMMARY_CHARS = 300;

/**
 * A summary as results carry it: one line (line breaks and runs of white space
 * become one space), at most {@link MAX_SUMMARY_CHARS} characters.
 *
 * @example oneLineSummary('XML parse error.\n  Deserialization error') // 'XML parse error. Deserialization error'
 */
export function oneLineSummary(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SUMMARY_CHARS ? `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…` : line;
}

/** Builds the failure result for `error`; the summary is `code: message` on one line. */
export function failureResult(
  tool: string,
  callId: string,
  error: ToolErrorInfo,
  durationMs: number,
): ToolFailure {
  return {
    ok: false,
    tool,
    callId,
    error,
    durationMs,
    summary: oneLineSummary(`${error.code}: ${error.message}`),
  };
}
