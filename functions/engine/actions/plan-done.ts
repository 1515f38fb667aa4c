/**
 * The `plan_done` action, after a plan level's Map: each result stored in the
 * run's workspace (a call the run budget did not start as a `limit_exceeded`
 * result, recorded `skipped: 'budget'`), the level's findings tracked against the tenant's previous
 * run, and a compact record kept at `$.levels.<level>`.
 */
import { failureResult, type ToolResult } from '../../runtime/result';
import type { Workspace } from '../../runtime/workspace';
import { type EngineContext, openLevel } from '../engine-context';
import type { EngineEvent } from '../events';
import {
  diffFindings,
  type FindingsFile,
  findingsCounts,
  findingsIn,
  incompleteDetail,
  rankTracked,
  type ToolCoverage,
  type TrackedFinding,
} from '../findings';
import {
  asResultRef,
  callRecordOf,
  type FindingsCounts,
  type LevelRecord,
  narrowResult,
  type PlanLevelRecord,
  planOutcome,
  type RunState,
  writeToolsOf,
} from '../records';
import { ENGINE_PATHS, type RunKey, readJson, refPath, writeJson } from '../workspaces';
import { planAdmission } from './plan-gate';

/** Closes a plan level: `{ input, levels }` with the level's record added. */
export async function planDone(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'plan_done' }>,
): Promise<RunState> {
  const started = performance.now();
  const { scenario, level, run, workspace } = openLevel(ctx, event, 'plan');
  const levels = event.levels as Record<string, LevelRecord>;
  // Under a budget the Map ran the admitted calls only, in order: the others get a skipped record.
  const admission = planAdmission(ctx, scenario, level, levels, event.input);
  const position = new Map(
    (admission?.admitted ?? level.calls.map((_, index) => index)).map((at, n) => [at, n]),
  );
  const skippedAt = new Map(admission?.skipped.map((skip) => [skip.index, skip]) ?? []);
  const results = level.calls.map((call, index) => {
    const callId = `${level.name}/${index}`;
    const skip = skippedAt.get(index);
    if (skip) {
      return failureResult(
        call.tool,
        callId,
        { code: 'limit_exceeded', message: skip.sentence, retryable: false },
        0,
      );
    }
    return narrowResult(
      event.results[position.get(index) ?? -1],
      { tool: call.tool, callId },
      writeToolsOf(ctx.catalog),
    );
  });
  await Promise.all(
    results.map((result, index) =>
      writeJson(workspace, ENGINE_PATHS.callResult(level.name, index, result.tool), result),
    ),
  );
  const calls = results.map((result, index) => {
    const skip = skippedAt.get(index);
    return skip
      ? {
          ...callRecordOf(result),
          skipped: 'budget' as const,
          estimateUsd: Math.round(skip.estimateUsd * 1e6) / 1e6,
        }
      : callRecordOf(result);
  });
  const findings = level.track_findings
    ? await trackFindings(ctx, run, level.name, workspace, results)
    : undefined;
  const record: PlanLevelRecord = {
    kind: 'plan',
    ...planOutcome(calls),
    calls,
    ...(findings ? { findings } : {}),
    engineMs: Math.round(performance.now() - started),
    ...(admission ? { gated: true as const } : {}),
  };
  ctx.logger.info('plan level done', { ...run, scenarioLevel: level.name, outcome: record.outcome });
  return {
    input: event.input,
    levels: { ...levels, [level.name]: record },
  };
}

/**
 * A successful result's value as read: from the workspace when it was
 * claim-checked, else inline. `whole` unless the platform shrank it (`shrunk`:
 * why `shortened`), the tool itself reported it incomplete (`truncated` without
 * `shrunk`: why `incomplete`, with the tool's own reason in `detail`), or the
 * stored file could not be read back (`unreadable`: the value is then the inline
 * stand-in, whose preview holds part of it).
 */
export async function readResultValue(
  workspace: Workspace,
  result: ToolResult & { ok: true },
): Promise<
  | { value: unknown; whole: true }
  | { value: unknown; whole: false; why: 'shortened' | 'incomplete' | 'unreadable'; detail?: string }
> {
  const ref = asResultRef(result.resultRef);
  const path = ref && refPath(workspace, ref);
  if (!path) return asRead(result.value, result);
  let stored: unknown;
  try {
    stored = await readJson<unknown>(workspace, path);
  } catch {
    return { value: result.value, whole: false, why: 'unreadable' };
  }
  // The claim-check stores the whole result ({ ok, tool, callId, summary, truncated, shrunk?, value }).
  if (!isStoredResult(stored)) return { value: stored, whole: true };
  return asRead(stored.value, { ...stored, summary: stored.summary ?? result.summary });
}

function asRead(
  value: unknown,
  marks: { truncated?: boolean; shrunk?: boolean; summary: string },
):
  | { value: unknown; whole: true }
  | { value: unknown; whole: false; why: 'shortened' | 'incomplete'; detail?: string } {
  if (marks.shrunk === true) return { value, whole: false, why: 'shortened' };
  if (marks.truncated === true) {
    return { value, whole: false, why: 'incomplete', detail: incompleteDetail(value, marks.summary) };
  }
  return { value, whole: true };
}

/** A successful result's value, whole where it can be read whole ({@link readResultValue}). */
export async function fullValue(workspace: Workspace, result: ToolResult & { ok: true }): Promise<unknown> {
  return (await readResultValue(workspace, result)).value;
}

function isStoredResult(stored: unknown): stored is {
  ok: true;
  tool: string;
  summary?: string;
  truncated?: boolean;
  shrunk?: boolean;
  value: unknown;
} {
  return (
    stored !== null &&
    typeof stored === 'object' &&
    (stored as { ok?: unknown }).ok === true &&
    typeof (stored as { tool?: unknown }).tool === 'string' &&
    'value' in stored
  );
}

/**
 * The findings of a level's results (claim-checked values read whole from the
 * workspace), once per id, and how each tool's findings were read.
 */
export async function resultFindings(
  workspace: Workspace,
  results: readonly ToolResult[],
): Promise<{ findings: TrackedFinding[]; coverage: Record<string, ToolCoverage> }> {
  const coverage: Record<string, ToolCoverage> = {};
  const found: TrackedFinding[] = [];
  for (const result of results) {
    if (!result.ok) {
      coverage[result.tool] = { ok: false, complete: false };
      continue;
    }
    // Never a shrunk value taken for the whole: a claim-checked one is read from its file, and
    // what could only be read in part says so (coverage.partial, which the reports name).
    const read = await readResultValue(workspace, result);
    const { findings, complete } = findingsIn(read.value);
    const partial = !read.whole ? read.why : complete ? undefined : 'top_only';
    const detail = !read.whole ? read.detail : undefined;
    coverage[result.tool] = partial
      ? { ok: true, complete: false, partial, ...(detail ? { detail } : {}) }
      : { ok: true, complete: true };
    found.push(...findings.map((finding) => ({ ...finding, tool: result.tool })));
  }
  return { findings: [...new Map(found.map((finding) => [finding.id, finding])).values()], coverage };
}

async function trackFindings(
  ctx: EngineContext,
  run: RunKey,
  level: string,
  workspace: Workspace,
  results: readonly ToolResult[],
): Promise<FindingsCounts> {
  const { findings: unique, coverage } = await resultFindings(workspace, results);
  const path = ENGINE_PATHS.findings(level);
  // A run that read nothing does not replace the tenant's reference point.
  const anyOk = Object.values(coverage).some((tool) => tool.ok);
  const previousPointer = await ctx.records.swapLatestFindings(
    run.tenant,
    run.scenario,
    level,
    { runId: run.runId, path },
    { readOnly: !anyOk },
  );
  let previous: FindingsFile | undefined;
  if (previousPointer) {
    try {
      previous = await readJson<FindingsFile>(
        ctx.workspaces({ ...run, runId: previousPointer.runId }),
        previousPointer.path,
      );
    } catch (err) {
      ctx.logger.warn('previous findings unreadable', {
        ...run,
        previousRunId: previousPointer.runId,
        err,
      });
    }
  }
  const file: FindingsFile = {
    runId: run.runId,
    level,
    findings: rankTracked(unique),
    coverage,
    diff: diffFindings(unique, coverage, previous),
  };
  await writeJson(workspace, path, file);
  return findingsCounts(file);
}
