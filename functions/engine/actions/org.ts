/**
 * The engine's actions of a per-account level (lib/scenarios/asl-states/org.ts,
 * docs/organizations-runs.md):
 *
 * - `org_targets`: the organization's accounts for the run's `accounts` and
 *   `exclude` inputs, written to the workspace as the Distributed Map's items;
 * - `account_done` (in a child execution): one member account's results and
 *   findings stored under `levels/<level>/accounts/<id>/`, compared with the same
 *   account in the previous organization run, and its compact record returned;
 * - `org_done`: the records `ResultWriter` wrote, the organization report
 *   (functions/engine/org-report.ts) written, the level's record kept.
 */
import type {
  AccountPlan,
  AccountSelection,
  NotAuditedAccount,
  OrgAccount,
} from '../../runtime/aws/organization';
import { PlatformError } from '../../runtime/errors';
import { ORG_ACCOUNTS_TOOL } from '../../runtime/ids';
import type { ToolResult } from '../../runtime/result';
import { compareText } from '../../runtime/text';
import { listingCallId } from '../account-directory';
import type { PlanLevel, ScenarioDefinition } from '../definition';
import { type EngineContext, openLevel } from '../engine-context';
import { accountUse, budgetOf, callUse, RunBudget, skipSentence, spentUsd, usdOf } from '../run-budget';

export type { AccountDirectory } from '../engine-context';

import type { EngineEvent } from '../events';
import { diffFindings, type FindingsFile, findingsCounts, rankTracked } from '../findings';
import { ORG_INLINE_ACCOUNTS_MAX } from '../limits';
import {
  type AccountItem,
  type AccountRecord,
  type AccountUsage,
  accountOutcome,
  buildOrgReport,
  mergeTopFindings,
  type OrgFinding,
  orgReportText,
} from '../org-report';
import {
  callRecordOf,
  type LevelRecord,
  narrowResult,
  ORG_BUDGET_SKIPPED_IDS,
  type OrgBudgetSkipped,
  type OrgCallUse,
  type PlanLevelRecord,
  type RunState,
} from '../records';
import { ENGINE_PATHS, type RunKey, readJson, runPrefix, writeJson } from '../workspaces';
import { resultFindings } from './plan-done';

/** Findings of the organization kept in its report, ranked; each account's full list is in its own file. */
export const ORG_TOP_FINDINGS = 100;

/** Characters of a failed listing's `Cause` kept in the level's summary. */
const MAX_CAUSE_CHARS = 300;

/** Account findings files read at once by `org_done`. */
const READ_CONCURRENCY = 16;

/** What `org_targets` keeps at `$.org`. */
export interface OrgPlan {
  readonly accounts: number;
  readonly notAudited: number;
  /** The previous organization run of this tenant, scenario and level, or null. */
  readonly previousRunId: string | null;
  /** The accounts themselves, when at most {@link ORG_INLINE_ACCOUNTS_MAX}. */
  readonly items?: readonly AccountItem[];
  /** The accounts the run budget did not start (none: absent). */
  readonly budgetSkipped?: OrgBudgetSkipped;
}

/**
 * The run budget's account gate: the accounts that start, in the listing's order
 * (by account id), while the run's spent estimate (the summary's, with the listing
 * call itself) plus each admitted account's estimate ({@link accountUse}) stays
 * within `budget_usd`; the others become not-audited accounts whose reason is the
 * budget's sentence. Without a budget, every account starts.
 */
function admitAccounts(
  ctx: EngineContext,
  scenario: ScenarioDefinition,
  level: PlanLevel,
  event: Extract<EngineEvent, { action: 'org_targets' }>,
  targets: readonly OrgAccount[],
): { admitted: OrgAccount[]; skipped: NotAuditedAccount[]; budgetSkipped?: OrgBudgetSkipped } {
  const limit = budgetOf(event.input);
  if (limit === undefined) return { admitted: [...targets], skipped: [] };
  const memory = ctx.config.functions;
  const listing = usdOf(callUse(ctx.catalog.get(ORG_ACCOUNTS_TOOL), memory));
  const budget = new RunBudget(
    limit,
    spentUsd(scenario, event.levels as Record<string, LevelRecord>, memory) + listing,
  );
  const estimateUsd = usdOf(
    accountUse(
      level.calls.map((call) => ctx.catalog.get(call.tool)),
      memory,
    ),
  );
  const admitted: OrgAccount[] = [];
  const skipped: NotAuditedAccount[] = [];
  for (const account of targets) {
    const used = budget.spent + budget.committedUsd;
    if (budget.admit(estimateUsd)) {
      admitted.push(account);
      continue;
    }
    skipped.push({
      accountId: account.accountId,
      name: account.name,
      status: 'ACTIVE',
      reason: skipSentence('its audit', estimateUsd, limit, used),
    });
  }
  if (skipped.length === 0) return { admitted, skipped };
  return {
    admitted,
    skipped,
    budgetSkipped: {
      accounts: skipped.length,
      estimateUsd: Math.round(estimateUsd * skipped.length * 1e6) / 1e6,
      first: skipped.slice(0, ORG_BUDGET_SKIPPED_IDS).map((account) => ({
        accountId: account.accountId,
        estimateUsd,
      })),
    },
  };
}

export async function orgTargets(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'org_targets' }>,
): Promise<OrgPlan> {
  const { scenario, level, run, workspace } = openLevel(ctx, event, 'plan');
  if (!ctx.accounts) {
    throw new PlatformError(
      'internal_error',
      `${scenario.name}: the engine has no account directory, so the ${level.name} level cannot list the organization's accounts`,
    );
  }
  const selection: AccountSelection = {
    accounts: (event.input.accounts as AccountSelection['accounts'] | undefined) ?? 'all',
    exclude: (event.input.exclude as string[] | undefined) ?? [],
  };
  const listed = await ctx.accounts(run, selection, {
    level: level.name,
    callId: listingCallId(level.name, level.calls.length),
  });
  // The one place accounts are admitted to the run.
  const {
    admitted: targets,
    skipped,
    budgetSkipped,
  } = admitAccounts(ctx, scenario, level, event, listed.targets);
  const notAudited = [...listed.notAudited, ...skipped].sort((a, b) => compareText(a.accountId, b.accountId));
  if (budgetSkipped) {
    ctx.logger.info('accounts not started: run budget', {
      ...run,
      scenarioLevel: level.name,
      accounts: budgetSkipped.accounts,
      estimateUsd: budgetSkipped.estimateUsd,
    });
  }
  const items: AccountItem[] = targets.map((account) => ({
    accountId: account.accountId,
    name: account.name,
  }));
  await writeJson(workspace, ENGINE_PATHS.accountItems(level.name), items);
  await writeJson(workspace, ENGINE_PATHS.notAudited(level.name), notAudited);
  const previous = await ctx.records.swapLatestFindings(
    run.tenant,
    run.scenario,
    level.name,
    { runId: run.runId, path: ENGINE_PATHS.organization(level.name) },
    { readOnly: true },
  );
  ctx.logger.info('organization accounts listed', {
    ...run,
    scenarioLevel: level.name,
    accounts: items.length,
    notAudited: notAudited.length,
  });
  return {
    accounts: items.length,
    notAudited: notAudited.length,
    previousRunId: previous && previous.runId !== run.runId ? previous.runId : null,
    ...(items.length <= ORG_INLINE_ACCOUNTS_MAX ? { items } : {}),
    ...(budgetSkipped ? { budgetSkipped } : {}),
  };
}

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
  return { accountId, name, ...outcome, findings: counts, usage };
}

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
          for (const item of batch.Items ?? []) {
            records.push({
              accountId: item.accountId,
              name: item.name,
              status: 'failed',
              reason: `its audit stopped (${entry.Error ?? 'an unknown error'})`,
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
        file: await readJson<FindingsFile>(workspace, ENGINE_PATHS.accountFindings(level, record.accountId)),
      })),
    );
    for (const { accountId, file } of files)
      top = mergeTopFindings(top, accountId, file.findings, ORG_TOP_FINDINGS);
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
    mapError?: { Error?: string };
  };
  const done = (record: PlanLevelRecord): RunState => ({
    input: event.input,
    levels: { ...(event.levels as Record<string, LevelRecord>), [level.name]: record },
  });
  if (typeof org.accounts !== 'number') {
    return done({
      kind: 'plan',
      outcome: 'failed',
      summary: `The organization's accounts could not be listed, so no account was audited (${org.Error ?? 'unknown error'}: ${(org.Cause ?? '').slice(0, MAX_CAUSE_CHARS)}).`,
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
  const stopped = org.mapError?.Error ?? 'the accounts were not audited';
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
    outcome:
      report.accounts.failed === 0 && report.accounts.partial === 0
        ? 'ok'
        : audited === 0
          ? 'failed'
          : 'partial',
    summary: orgReportText(report, path),
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
