import { PlatformError } from '../../runtime/errors';
import type { ToolResult } from '../../runtime/result';
import type { Workspace } from '../../runtime/workspace';
import { type EngineContext, openLevel } from '../engine-context';
import type { EngineEvent } from '../events';
import { diffFindings, type FindingsFile, findingsCounts, rankTracked } from '../findings';
import { type AccountFile, type AccountRecord, type AccountUsage, accountOutcome } from '../org-report';
import { callRecordOf, narrowResult, writeToolsOf } from '../records';
import { ENGINE_PATHS, readJson, writeJson } from '../workspaces';
import { resultFindings } from './plan-done';

/**
 * The account's findings in a previous run's workspace: its account file, else
 * (a run made before the one-file layout) its findings file; undefined when it
 * has neither or its audit failed then.
 */
async function previousFindings(
  workspace: Workspace,
  level: string,
  accountId: string,
): Promise<Pick<FindingsFile, 'runId' | 'findings'> | undefined> {
  for (const path of [
    ENGINE_PATHS.account(level, accountId),
    ENGINE_PATHS.legacyAccountFindings(level, accountId),
  ]) {
    try {
      const file = await readJson<AccountFile | FindingsFile>(workspace, path);
      return file.findings ? { runId: file.runId, findings: file.findings } : undefined;
    } catch (err) {
      // An account new to the organization (or failed last time) has no previous findings: all are new.
      if (!(err instanceof PlatformError && err.code === 'not_found')) throw err;
    }
  }
  return undefined;
}

/**
 * Closes one member account of a per-account level: its one file written
 * ({@link AccountFile}: results, findings, diff), its compact record returned.
 */
export async function accountDone(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'account_done' }>,
): Promise<AccountRecord> {
  const { level, run, workspace } = openLevel(ctx, event, 'plan');
  const { accountId, name } = event.account;
  const results: ToolResult[] = level.calls.map((call, index) =>
    narrowResult(
      event.results[index],
      { tool: call.tool, callId: `${level.name}/${index}` },
      writeToolsOf(ctx.catalog),
    ),
  );
  const head = { runId: run.runId, level: level.name, accountId, results };
  const path = ENGINE_PATHS.account(level.name, accountId);
  const outcome = accountOutcome(results);
  const calls = results.map(callRecordOf);
  const usage: AccountUsage = {
    callMs: calls.map((call) => call.durationMs),
    caught: calls.filter((call) => call.caught).length,
    costExplorerRequests: calls.reduce((sum, call) => sum + (call.costExplorerRequests ?? 0), 0),
  };
  if (outcome.status === 'failed') {
    await writeJson(workspace, path, head satisfies AccountFile);
    return { accountId, name, ...outcome, usage };
  }
  const { findings, coverage } = await resultFindings(workspace, results);
  const previous = event.previousRunId
    ? await previousFindings(ctx.workspaces({ ...run, runId: event.previousRunId }), level.name, accountId)
    : undefined;
  const file: AccountFile = {
    ...head,
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
