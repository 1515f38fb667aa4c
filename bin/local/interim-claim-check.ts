/**
 * INTERIM (swap on merge, issue 7 item 5): the claim-check in front of local
 * runs, the tests and the bench, until the dispatcher does it itself. A result
 * whose JSON is over the inline budget is written whole to the run's workspace
 * (`results/<level>-<index>.json`); the state gets its value shrunk to the
 * budget, `truncated: true` and `resultRef: { uri, bytes, sha256 }` (the shape
 * of functions/runtime/workspace.ts). Once the dispatcher claim-checks, drop
 * this wrapper: the engine reads `resultRef` the same way.
 */
import { createHash } from 'node:crypto';
import type { Dispatch } from '../../functions/dispatcher/dispatch';
import type { WorkspaceFactory } from '../../functions/engine/workspaces';
import { jsonByteLength, shrinkToFit } from '../../functions/runtime/bound';
import type { ToolResult } from '../../functions/runtime/result';
import type { ResultRef } from '../../functions/runtime/workspace';

/** Bytes kept for a result's own fields around its shrunk value. */
const ENVELOPE_RESERVE_BYTES = 1024;

/** The envelope fields that name the run. */
function runOf(envelope: unknown): { tenant: string; scenario: string; runId: string } | undefined {
  const fields = envelope as Record<string, unknown> | null;
  const { tenant, scenario, runId } = fields ?? {};
  return typeof tenant === 'string' && typeof scenario === 'string' && typeof runId === 'string'
    ? { tenant, scenario, runId }
    : undefined;
}

/**
 * `dispatch` with oversized results claim-checked into the run's workspace.
 *
 * @param inlineBytes - the inline budget (lib/scenarios/budget.ts, `inlineResultBudget`).
 */
export function withInterimClaimCheck(
  dispatch: Dispatch,
  workspaces: WorkspaceFactory,
  inlineBytes: number,
): Dispatch {
  return async (envelope, deadline) => {
    const result = await dispatch(envelope, deadline);
    const run = runOf(envelope);
    if (!result.ok || !run || jsonByteLength(result) <= inlineBytes) return result;
    const workspace = workspaces(run);
    const text = JSON.stringify(result.value);
    const file = await workspace.write(
      `results/${result.callId.replace('/', '-')}.json`,
      text,
      'application/json',
    );
    const ref: ResultRef = {
      uri: `${workspace.uri}${file.path}`,
      bytes: file.bytes,
      sha256: file.sha256 ?? createHash('sha256').update(text).digest('hex'),
    };
    const budget = Math.max(1024, inlineBytes - ENVELOPE_RESERVE_BYTES - jsonByteLength(result.summary));
    // result.ts still types resultRef as a string until the claim-check lands (issue 7 item 5).
    return {
      ...result,
      value: shrinkToFit(result.value, budget).value,
      truncated: true,
      resultRef: ref,
    } as unknown as ToolResult;
  };
}
