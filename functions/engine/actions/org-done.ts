/**
 * The `org_done` action of a per-account level (docs/organizations-runs.md): the records
 * `ResultWriter` wrote, the organization report (functions/engine/org-report.ts) written,
 * the level's record kept.
 */
import type { AccountPlan } from '../../runtime/aws/organization';
import { plural } from '../../runtime/text';
import { accountDurations } from '../account-order';
import { type EngineContext, openLevel } from '../engine-context';
import type { EngineEvent } from '../events';
import {
  type AccountFile,
  type AccountItem,
  type AccountRecord,
  buildOrgReport,
  mergeTopFindings,
  type OrgFinding,
  orgReportText,
} from '../org-report';
import type { LevelRecord, OrgCallUse, PlanLevelRecord, RunState } from '../records';
import { failureInWords, stateFailure } from '../state-errors';
import { ENGINE_PATHS, type RunKey, readJson, runPrefix, writeJson } from '../workspaces';
import type { OrgPlan } from './org-targets';

/** Findings of the organization kept in its report, ranked; each account's full list is in its account file. */
export const ORG_TOP_FINDINGS = 100;

/** Characters of a failure's message kept in a reason (the level's summary, an account's reason). */
const MAX_CAUSE_CHARS = 600;

/** Account files read at once by `org_done`. */
const READ_CONCURRENCY = 16;

/** One entry of a `ResultWriter` results file (Step Functions developer guide, "ResultWriter"). */
interface MapRunEntry {
  readonly Input?: string;
  readonly Output?: string;
  readonly Error?: string;
  readonly Cause?: string;
}

/** The records of a Map Run, read from the files `ResultWriter` wrote; a failed child's accounts get a failed record. */
async function mapRecords(
  ctx: EngineContext,
  run: RunKey,
  level: string,
): Promise<{ records: AccountRecord[]; found: boolean }> {
  const workspace = ctx.workspaces(run);
  const files = await workspace.list(`${ENGINE_PATHS.mapResults(level)}/`);
  const manifests = files.filter((file) => file.path.endsWith('/manifest.json'));
  const records: AccountRecord[] = [];
  for (const manifestFile of manifests) {
    const manifest = await readJson<{ ResultFiles?: Record<string, { Key: string }[]> }>(
      workspace,
      manifestFile.path,
    );
    for (const [status, list] of Object.entries(manifest.ResultFiles ?? {})) {
      for (const { Key } of list) {
        const entries = await readJson<MapRunEntry[]>(workspace, Key.slice(runPrefix(run).length));
        for (const entry of entries) {
          if (status === 'SUCCEEDED' && entry.Output) {
            records.push(...(JSON.parse(entry.Output) as AccountRecord[]));
            continue;
          }
          const batch = JSON.parse(entry.Input ?? '{}') as { Items?: AccountItem[] };
          const stopped = failureInWords(stateFailure(entry.Error, entry.Cause), MAX_CAUSE_CHARS);
          for (const item of batch.Items ?? []) {
            records.push({
              accountId: item.accountId,
              name: item.name,
              status: 'failed',
              reason: `its audit stopped (${stopped})`,
              failedChecks: [],
            });
          }
        }
      }
    }
  }
  return { records, found: manifests.length > 0 };
}

async function topFindings(
  ctx: EngineContext,
  run: RunKey,
  level: string,
  records: readonly AccountRecord[],
) {
  const workspace = ctx.workspaces(run);
  let top: OrgFinding[] = [];
  const read = records.filter((record) => record.status !== 'failed');
  for (let start = 0; start < read.length; start += READ_CONCURRENCY) {
    const files = await Promise.all(
      read.slice(start, start + READ_CONCURRENCY).map(async (record) => ({
        accountId: record.accountId,
        file: await readJson<AccountFile>(workspace, ENGINE_PATHS.account(level, record.accountId)),
      })),
    );
    for (const { accountId, file } of files)
      top = mergeTopFindings(top, accountId, file.findings ?? [], ORG_TOP_FINDINGS);
  }
  return top;
}

/** The level's calls over every account recorded, per call of the level (the summary's estimate). */
function orgCallUse(
  calls: readonly { readonly tool: string }[],
  records: readonly AccountRecord[],
): OrgCallUse {
  const used = records.flatMap((record) => (record.usage ? [record.usage] : []));
  return {
    accounts: used.length,
    perCall: calls.map((call, index) => ({
      tool: call.tool,
      count: used.filter((usage) => usage.callMs[index] !== undefined).length,
      ms: used.reduce((sum, usage) => sum + (usage.callMs[index] ?? 0), 0),
    })),
    caught: used.reduce((sum, usage) => sum + usage.caught, 0),
    failed: records.reduce((sum, record) => sum + (record.usage ? record.failedChecks.length : 0), 0),
    costExplorerRequests: used.reduce((sum, usage) => sum + usage.costExplorerRequests, 0),
  };
}

export async function orgDone(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'org_done' }>,
): Promise<RunState> {
  const started = performance.now();
  const { level, run, workspace } = openLevel(ctx, event, 'plan');
  const org = event.org as Partial<OrgPlan> & {
    Error?: string;
    Cause?: string;
    mapError?: { Error?: string; Cause?: string };
  };
  const done = (record: PlanLevelRecord): RunState => ({
    input: event.input,
    levels: { ...(event.levels as Record<string, LevelRecord>), [level.name]: record },
  });
  // The listing failed (its result), or the org_targets Task itself did (its Catch's Error and Cause).
  const unlisted =
    org.listingFailed ?? (typeof org.accounts !== 'number' ? stateFailure(org.Error, org.Cause) : undefined);
  if (unlisted) {
    // invalid_args: the listing succeeded and the selection (an OU not in the organization,
    // a selection that leaves no account) was the problem, which its message names.
    const what =
      unlisted.code === 'invalid_args'
        ? 'The run’s account selection was refused'
        : "The organization's accounts could not be listed";
    return done({
      kind: 'plan',
      outcome: 'failed',
      summary: `${what}, so no account was audited (${failureInWords(unlisted, MAX_CAUSE_CHARS)}).`,
      calls: [],
    });
  }
  const items = await readJson<AccountItem[]>(workspace, ENGINE_PATHS.accountItems(level.name));
  const notAudited = await readJson<AccountPlan['notAudited']>(
    workspace,
    ENGINE_PATHS.notAudited(level.name),
  );
  const { records } = await mapRecords(ctx, run, level.name);
  const recorded = new Set(records.map((record) => record.accountId));
  const stopped = org.mapError
    ? failureInWords(stateFailure(org.mapError.Error, org.mapError.Cause), MAX_CAUSE_CHARS)
    : 'the accounts were not audited';
  for (const item of items) {
    if (recorded.has(item.accountId)) continue;
    records.push({
      ...item,
      status: 'failed',
      reason: `its audit did not run (${stopped})`,
      failedChecks: [],
    });
  }
  const report = buildOrgReport({
    runId: run.runId,
    ...(org.previousRunId ? { previousRunId: org.previousRunId } : {}),
    records,
    notAudited,
    top: await topFindings(ctx, run, level.name, records),
  });
  await writeJson(workspace, ENGINE_PATHS.accountDurations(level.name), accountDurations(records));
  const path = ENGINE_PATHS.organization(level.name);
  await writeJson(workspace, path, report);
  // A run that audited no account does not replace the tenant's reference point.
  const audited = report.accounts.audited + report.accounts.partial;
  await ctx.records.swapLatestFindings(
    run.tenant,
    run.scenario,
    level.name,
    { runId: run.runId, path },
    {
      readOnly: audited === 0,
    },
  );
  const counts = report.findings;
  ctx.logger.info('organization level done', { ...run, scenarioLevel: level.name, ...report.accounts });
  return done({
    kind: 'plan',
    // A level that audited no account (the run budget left room for none) is never ok.
    outcome:
      audited === 0
        ? 'failed'
        : report.accounts.failed === 0 && report.accounts.partial === 0
          ? 'ok'
          : 'partial',
    summary: orgReportText(
      report,
      path,
      audited === 0 && org.budgetSkipped
        ? `No account was audited: the run budget left no room for any account's audit (${plural(org.budgetSkipped.accounts, 'account')} not started).`
        : undefined,
    ),
    calls: [],
    ...(level.track_findings
      ? {
          findings: {
            total: counts.total,
            new: counts.new,
            unchanged: counts.unchanged,
            resolved: counts.resolved,
            unknown: 0,
            bySeverity: counts.bySeverity,
            estimatedMonthlyCostUsd: counts.monthlyWasteUsd,
            ...(report.previousRunId ? { previousRunId: report.previousRunId } : {}),
          },
        }
      : {}),
    organization: {
      ...report.accounts,
      report: path,
      calls: orgCallUse(level.calls, records),
      ...(org.budgetSkipped ? { budgetSkipped: org.budgetSkipped } : {}),
    },
    engineMs: Math.round(performance.now() - started),
  });
}
