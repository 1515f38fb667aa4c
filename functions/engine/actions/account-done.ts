import { PlatformError } from '../../runtime/errors';
import type { ToolResult } from '../../runtime/result';
import { type EngineContext, openLevel } from '../engine-context';
import type { EngineEvent } from '../events';
import { diffFindings, type FindingsFile, findingsCounts, rankTracked } from '../findings';
import { type AccountRecord, type AccountUsage, accountOutcome } from '../org-report';
import { callRecordOf, narrowResult } from '../records';
import { ENGINE_PATHS, readJson, writeJson } from '../workspaces';
import { resultFindings } from './plan-done';

/** Closes one member account of a per-account level: its compact record. */
export async function accountDone(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'account_done' }>,
): Promise<AccountRecord> {
  const { level, run, workspace } = openLevel(ctx, event, 'plan');
  const { accountId, name } = event.account;
  const results: ToolResult[] = level.calls.map((call, index) =>
    narrowResult(event.results[index], { tool: call.tool, callId: `${level.name}/${index}` }),
  );
  await Promise.all(
    results.map((result, index) =>
      writeJson(workspace, ENGINE_PATHS.accountCallResult(level.name, accountId, index, result.tool), result),
    ),
  );
  const outcome = accountOutcome(results);
  const calls = results.map(callRecordOf);
  const usage: AccountUsage = {
    callMs: calls.map((call) => call.durationMs),
    caught: calls.filter((call) => call.caught).length,
    costExplorerRequests: calls.reduce((sum, call) => sum + (call.costExplorerRequests ?? 0), 0),
  };
  if (outcome.status === 'failed') return { accountId, name, ...outcome, usage };
  const { findings, coverage } = await resultFindings(workspace, results);
  const path = ENGINE_PATHS.accountFindings(level.name, accountId);
  let previous: FindingsFile | undefined;
  if (event.previousRunId) {
    try {
      previous = await readJson<FindingsFile>(ctx.workspaces({ ...run, runId: event.previousRunId }), path);
    } catch (err) {
      // An account new to the organization (or failed last time) has no previous findings: all are new.
      if (!(err instanceof PlatformError && err.code === 'not_found')) throw err;
    }
  }
  const file: FindingsFile = {
    runId: run.runId,
    level: level.name,
    findings: rankTracked(findings),
    coverage,
    diff: diffFindings(findings, coverage, previous),
  };
  await writeJson(workspace, path, file);
  // The diff is against the previous organization run, named once in the report, not per account.
  const { previousRunId: _previous, ...counts } = findingsCounts(file);
  // Findings read in part are kept as read, and named: the report says the account's findings are partial.
  const partialFindings = Object.entries(coverage).flatMap(([tool, read]) =>
    read.partial ? [{ tool, why: read.partial, ...(read.detail ? { detail: read.detail } : {}) }] : [],
  );
  return {
    accountId,
    name,
    ...outcome,
    findings: counts,
    ...(partialFindings.length > 0 ? { partialFindings } : {}),
    usage,
  };
}
