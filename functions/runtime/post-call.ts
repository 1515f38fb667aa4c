import type { Logger } from '@aws-lambda-powertools/logger';
import { boundResult, jsonByteLength } from './bound';
import { claimCheck } from './claim-check';
import type { Deadline } from './deadline';
import { normalizeError } from './normalize-error';
import { redact } from './redact';
import type { ToolResult } from './result';
import { DEFAULT_RESULT_INLINE_BYTES } from './result-limits';
import type { WorkspaceProvider, WorkspaceScope } from './workspace';

/** What the post-call work is built from: the dispatcher's options of the same names. */
export interface PostCallOptions {
  readonly logger: Logger;
  /** Bound on a result's JSON, in bytes, when there is no workspace. */
  readonly maxResultBytes: number;
  /**
   * Opens the call's run workspace for the claim-check. Absent: results are
   * shrunk to `maxResultBytes`. @default - none
   */
  readonly workspaces?: WorkspaceProvider;
  /** With `workspaces`: the inline budget, in bytes. @default DEFAULT_RESULT_INLINE_BYTES (8 KiB) */
  readonly inlineResultBytes?: number;
}

/** Whose run workspace a call's result goes to, and a per-account call's member account (its claim-check path). */
export type CallScope = WorkspaceScope & { readonly account?: string };

/**
 * The work done on every result after its tool ran, before anyone reads it:
 * redaction (keys in `keepKeys`, the spec's `visibleOutputKeys`, stay visible),
 * then the fit to a state. Never throws.
 */
export type PostCall = (
  result: ToolResult,
  scope: CallScope | undefined,
  deadline: Deadline,
  keepKeys?: readonly string[],
) => Promise<ToolResult>;

/**
 * The post-call work (docs/architecture.md, "Flow of one call", step 5), in one
 * place for every path a result takes: the dispatcher's synchronous return (MCP,
 * Gateway, Bedrock Agents, `etp tools invoke`, the agent levels) and a plan call
 * answered by its tool's own function with its task token.
 *
 * The result is redacted before it is bounded (a masked value can be longer than
 * what it hides) and before the claim-check: no secret is ever written to the
 * workspace. Without a workspace it is shrunk to `maxResultBytes`. With one, a
 * success whose JSON is within the inline budget is kept whole, one over it is
 * claim-checked (functions/runtime/claim-check.ts) and shrunk to the budget only
 * if the write fails (e.g. at the deadline: logged as a warning); a failure is
 * bounded to the budget. A success is never shrunk while a workspace could take
 * it: the one test of "fits" is the whole result's JSON against the budget.
 */
export function createPostCall(options: PostCallOptions): PostCall {
  const { workspaces, logger } = options;
  const inlineBytes = options.inlineResultBytes ?? DEFAULT_RESULT_INLINE_BYTES;
  return async (raw, scope, deadline, keepKeys) => {
    const result = redact(raw, { keepKeys });
    if (!workspaces || !scope) return boundResult(result, options.maxResultBytes);
    if (!result.ok) return boundResult(result, inlineBytes);
    // The bound's own test (boundResult keeps a result whose JSON fits): kept whole, or claim-checked, never shrunk.
    if (jsonByteLength(result) <= inlineBytes) return result;
    try {
      return await claimCheck(result, workspaces(scope, deadline.signal), inlineBytes, scope.account);
    } catch (err) {
      logger.warn('claim-check failed: the result is shrunk instead', {
        tool: result.tool,
        callId: result.callId,
        error: normalizeError(result.tool, err, 's3'),
      });
      return boundResult(result, inlineBytes);
    }
  };
}

/**
 * The fields of the `tool result` log line, written once per call by whoever
 * finished it (the dispatcher, or a callback call's tool function): never the
 * value, only its outcome, reference and duration.
 */
export function toolResultLogFields(result: ToolResult): Record<string, unknown> {
  return {
    tool: result.tool,
    callId: result.callId,
    ok: result.ok,
    ...(result.ok
      ? { truncated: result.truncated, ...(result.resultRef ? { resultRef: result.resultRef } : {}) }
      : { error: result.error }),
    durationMs: result.durationMs,
  };
}
