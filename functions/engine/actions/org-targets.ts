/**
 * The `org_targets` action of a per-account level (lib/scenarios/asl-states/org.ts,
 * docs/organizations-runs.md): the organization's accounts for the run's `accounts` and
 * `exclude` inputs, admitted under the run budget and written to the workspace as the
 * Distributed Map's items, longest first by the previous organization run's durations
 * (functions/engine/account-order.ts).
 */
import type { AccountSelection, NotAuditedAccount, OrgAccount } from '../../runtime/aws/organization';
import { type ErrorCode, PlatformError } from '../../runtime/errors';
import { ORG_ACCOUNTS_TOOL } from '../../runtime/ids';
import { compareText, plural } from '../../runtime/text';
import type { Workspace } from '../../runtime/workspace';
import { listingCallId } from '../account-directory';
import { type AccountDurations, longestFirst } from '../account-order';
import type { PlanLevel, ScenarioDefinition } from '../definition';
import { type EngineContext, openLevel } from '../engine-context';
import type { EngineEvent } from '../events';
import { ORG_INLINE_ACCOUNTS_MAX } from '../limits';
import type { AccountItem } from '../org-report';
import { type LevelRecord, ORG_BUDGET_SKIPPED_IDS, type OrgBudgetSkipped } from '../records';
import { accountUse, budgetOf, callUse, RunBudget, skipSentence, spentUsd, usdOf } from '../run-budget';
import { ENGINE_PATHS, readJson, writeJson } from '../workspaces';

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
  /**
   * Why the accounts could not be listed (then `accounts` is 0 and no account is
   * audited): the listing's error code (docs/errors.md) and message, which the
   * level's summary gives as `(<code>: <message>)`.
   */
  readonly listingFailed?: { readonly code: ErrorCode; readonly message: string };
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
  const before = spentUsd(scenario, event.levels as Record<string, LevelRecord>, memory);
  const budget = new RunBudget(limit, before + listing);
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
    // What the gate counts, said as such: the run summary's "spent" is measured (calls at their
    // duration) at the run's end, while the listing and the started accounts count here at their bound.
    const counted =
      `counted: $${before.toFixed(4)} spent before the level, $${listing.toFixed(4)} for the account listing at its bound` +
      (admitted.length > 0
        ? `, $${budget.committedUsd.toFixed(4)} for the ${plural(admitted.length, 'account')} started, at ${admitted.length === 1 ? 'its' : 'their'} bound`
        : '');
    skipped.push({
      accountId: account.accountId,
      name: account.name,
      status: 'ACTIVE',
      reason: skipSentence('its audit', estimateUsd, limit, used, counted),
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

/**
 * The previous organization run's account durations, or undefined when it has none
 * (a run made before they were written): its accounts then start in account-id order.
 */
async function previousDurations(workspace: Workspace, level: string): Promise<AccountDurations | undefined> {
  try {
    return await readJson<AccountDurations>(workspace, ENGINE_PATHS.accountDurations(level));
  } catch (err) {
    if (err instanceof PlatformError && err.code === 'not_found') return undefined;
    throw err;
  }
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
  let listed: Awaited<ReturnType<typeof ctx.accounts>>;
  try {
    listed = await ctx.accounts(run, selection, {
      level: level.name,
      callId: listingCallId(level.name, level.calls.length),
    });
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    // A failed listing is the level's result, with its code (a thrown error would reach the
    // state machine's Catch as its class name): org_done says why no account was audited.
    ctx.logger.warn('organization accounts not listed', {
      ...run,
      scenarioLevel: level.name,
      code: err.code,
    });
    return {
      accounts: 0,
      notAudited: 0,
      previousRunId: null,
      listingFailed: { code: err.code, message: err.message },
    };
  }
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
  const latest = await ctx.records.swapLatestFindings(
    run.tenant,
    run.scenario,
    level.name,
    { runId: run.runId, path: ENGINE_PATHS.organization(level.name) },
    { readOnly: true },
  );
  const previous = latest && latest.runId !== run.runId ? latest : undefined;
  const durations = previous
    ? await previousDurations(ctx.workspaces({ ...run, runId: previous.runId }), level.name)
    : undefined;
  const items: AccountItem[] = longestFirst(targets, durations).map((account) => ({
    accountId: account.accountId,
    name: account.name,
  }));
  await writeJson(workspace, ENGINE_PATHS.accountItems(level.name), items);
  await writeJson(workspace, ENGINE_PATHS.notAudited(level.name), notAudited);
  ctx.logger.info('organization accounts listed', {
    ...run,
    scenarioLevel: level.name,
    accounts: items.length,
    notAudited: notAudited.length,
  });
  return {
    accounts: items.length,
    notAudited: notAudited.length,
    previousRunId: previous ? previous.runId : null,
    ...(items.length <= ORG_INLINE_ACCOUNTS_MAX ? { items } : {}),
    ...(budgetSkipped ? { budgetSkipped } : {}),
  };
}
