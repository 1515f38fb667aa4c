import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { directoryObjectStore, runDistributedMap } from '../../../bin/local/local-distributed-map';
import { FileRunRecords } from '../../../bin/local/local-run-records';
import { localWorkspaceProvider } from '../../../bin/local/local-workspace';
import type { OrgPlan } from '../../../functions/engine/actions/org-targets';
import type { ScenarioDefinition } from '../../../functions/engine/definition';
import { createEngine, type Engine } from '../../../functions/engine/engine';
import type { AccountDirectory } from '../../../functions/engine/engine-context';
import { findingsIn } from '../../../functions/engine/findings';
import type { ModelClient } from '../../../functions/engine/model-client';
import type { AccountFile, OrgReport } from '../../../functions/engine/org-report';
import type { PlanLevelRecord, RunState } from '../../../functions/engine/records';
import { accountUse, callUse, spentUsd, usdOf } from '../../../functions/engine/run-budget';
import { summarizeRun } from '../../../functions/engine/summary';
import { ENGINE_PATHS, readJson, workspacesOf } from '../../../functions/engine/workspaces';
import { boundResult } from '../../../functions/runtime/bound';
import { claimCheck, claimCheckPath } from '../../../functions/runtime/claim-check';
import { PlatformError } from '../../../functions/runtime/errors';
import { logger } from '../../../functions/runtime/logger';
import type { ToolResult, ToolSuccess } from '../../../functions/runtime/result';
import { toolCatalog } from '../../../functions/tools/catalog';
import { scenarioToAsl } from '../../../lib/scenarios/asl';
import { WORKSPACE_BUCKET_PLACEHOLDER } from '../../../lib/scenarios/asl-states/tasks';
import { engineConfig, functionMemory } from '../../../lib/scenarios/engine-config';
import { scenarioOf } from '../../helpers/scenarios';

const scenario = scenarioOf({
  name: 'org_unit',
  description: 'Per-account audits.',
  inputs: {
    tenant: { type: 'string', description: 'Tenant.', default: 'default' },
    accounts: { type: 'accounts', description: 'Accounts.', default: 'all' },
    exclude: { type: 'account_ids', description: 'Left out.', default: [] },
  },
  levels: [
    {
      name: 'collect',
      intra_tools: ['aws_ebs_inventory', 'aws_eips_audit'],
      track_findings: true,
      for_each_account: {},
      calls: [
        { tool: 'aws_ebs_inventory', args: {} },
        { tool: 'aws_eips_audit', args: {} },
      ],
    },
  ],
});

const PROD = '111111111111';
const DEV = '222222222222';
const LOCKED = '333333333333';
const BUCKET = 'etp-local';

const finding = (n: number, severity: string) => ({
  id: `ebs_unattached_volume:${String(n).padStart(16, '0')}`,
  check: 'ebs_unattached_volume',
  severity,
  resource: `vol-${n}`,
  region: 'eu-west-1',
  title: `Volume ${n} is unattached`,
  monthlyCost: { usd: n, priceSource: 'test' },
});
const ok = (tool: string, index: number, findings: unknown[]): ToolResult =>
  ({
    ok: true,
    tool,
    callId: `collect/${index}`,
    value: { findings },
    truncated: false,
    resultRef: null,
    durationMs: 5,
    summary: 'ok',
  }) as ToolResult;
const refused = (tool: string, index: number): ToolResult =>
  ({
    ok: false,
    tool,
    callId: `collect/${index}`,
    durationMs: 5,
    summary: 'auth_failed: STS refused AssumeRole',
    error: { code: 'auth_failed', message: 'STS refused AssumeRole', retryable: false },
  }) as ToolResult;

let dir: string;
let engine: Engine;
const directory: AccountDirectory = async (_run, selection) => ({
  targets: [
    { accountId: PROD, name: 'prod' },
    { accountId: DEV, name: 'dev' },
    { accountId: LOCKED, name: 'locked' },
  ].filter((account) => !(selection.exclude ?? []).includes(account.accountId)),
  notAudited: [
    { accountId: '444444444444', name: 'old', status: 'SUSPENDED', reason: 'the account is suspended' },
  ],
});

/** The engine over the test's folder, listing accounts with `accounts`. */
function engineListingWith(accounts: Parameters<typeof createEngine>[0]['accounts']) {
  return createEngine({
    config: engineConfig([scenario], functionMemory(toolCatalog)),
    catalog: toolCatalog,
    workspaces: workspacesOf(localWorkspaceProvider(dir)),
    records: new FileRunRecords(dir),
    model: {} as ModelClient,
    logger,
    accounts,
  });
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'etp-org-engine-'));
  engine = engineListingWith(directory);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = { scenario: 'org_unit', tenant: 'default', level: 'collect' };

/** One organization run: targets, each account's results through the routed Map, then org_done. */
async function orgRun(
  runId: string,
  prodFindings: unknown[],
  given: Record<string, ToolResult[]> = {},
): Promise<{ plan: OrgPlan; state: RunState }> {
  const input = { tenant: 'default', accounts: 'all', exclude: [] };
  const plan = (await engine({ action: 'org_targets', ...base, runId, input, levels: {} })) as OrgPlan;
  const results: Record<string, ToolResult[]> = {
    [PROD]: [ok('aws_ebs_inventory', 0, prodFindings), ok('aws_eips_audit', 1, [])],
    [DEV]: [ok('aws_ebs_inventory', 0, [finding(7, 'low')]), refused('aws_eips_audit', 1)],
    [LOCKED]: [refused('aws_ebs_inventory', 0), refused('aws_eips_audit', 1)],
    ...given,
  };
  const definition = JSON.parse(
    JSON.stringify(scenarioToAsl(scenario).States.collect_accounts_inline).replaceAll(
      WORKSPACE_BUCKET_PLACEHOLDER,
      BUCKET,
    ),
  );
  // The Distributed Map as the local route runs it; each child's account_done is the engine's.
  const map = await runDistributedMap(
    'collect_accounts_inline',
    definition,
    { input, org: plan },
    { Execution: { Id: `arn:aws:states:local:000000000000:execution:local:${runId}`, Name: runId } },
    async (_processor, child) => {
      const batch = child as {
        Items: { accountId: string; name: string }[];
        BatchInput: { previousRunId: string | null };
      };
      return Promise.all(
        batch.Items.map((account) =>
          engine({
            action: 'account_done',
            ...base,
            runId,
            account,
            previousRunId: batch.BatchInput.previousRunId,
            results: results[account.accountId],
          }),
        ),
      );
    },
    directoryObjectStore(dir, BUCKET),
  );
  const state = (await engine({
    action: 'org_done',
    ...base,
    runId,
    input,
    levels: {},
    org: { ...plan, map },
  })) as RunState;
  return { plan, state };
}

describe('per-account engine actions', () => {
  it('lists the accounts inline with the not-audited ones in the workspace', async () => {
    const plan = (await engine({
      action: 'org_targets',
      ...base,
      runId: 'org-1',
      input: { tenant: 'default', accounts: 'all', exclude: [DEV] },
      levels: {},
    })) as OrgPlan;
    expect(plan).toEqual({
      accounts: 2,
      notAudited: 1,
      previousRunId: null,
      items: [
        { accountId: PROD, name: 'prod' },
        { accountId: LOCKED, name: 'locked' },
      ],
    });
  });

  it('starts only the accounts the run budget allows, and names the others with the reason', async () => {
    // Prepare: a budget for the listing and exactly one account's estimate
    const memory = functionMemory(toolCatalog);
    const listing = usdOf(callUse(toolCatalog.get('aws_org_accounts'), memory));
    const perAccount = usdOf(
      accountUse([toolCatalog.get('aws_ebs_inventory'), toolCatalog.get('aws_eips_audit')], memory),
    );
    // What the run has spent before the level (its start and summary states, as the summary counts them)
    const before = spentUsd(
      engineConfig([scenario], memory).scenarios.org_unit as ScenarioDefinition,
      {},
      memory,
    );
    const budget = Math.round((before + listing + perAccount * 1.5) * 1e6) / 1e6;

    // Act
    const plan = (await engine({
      action: 'org_targets',
      ...base,
      runId: 'org-budget',
      input: { tenant: 'default', accounts: 'all', exclude: [], budget_usd: budget },
      levels: {},
    })) as OrgPlan;

    // Assess: the first account by id starts; the two others are recorded, not audited
    expect(plan.items).toEqual([{ accountId: PROD, name: 'prod' }]);
    expect(plan.budgetSkipped).toEqual({
      accounts: 2,
      estimateUsd: Math.round(perAccount * 2 * 1e6) / 1e6,
      first: [
        { accountId: DEV, estimateUsd: perAccount },
        { accountId: LOCKED, estimateUsd: perAccount },
      ],
    });
    const notAudited = JSON.parse(
      readFileSync(
        path.join(dir, 'runs/default/org_unit/org-budget/levels/collect/not-audited.json'),
        'utf8',
      ),
    ) as { accountId: string; reason: string }[];
    expect(notAudited.map((account) => account.accountId)).toEqual([DEV, LOCKED, '444444444444']);
    expect(notAudited[0]?.reason).toBe(
      `its audit not started: its estimate ($${perAccount.toFixed(4)}) would take the run past its budget of $${budget} ($${(before + listing + perAccount).toFixed(4)} counted: $${before.toFixed(4)} spent before the level, $${listing.toFixed(4)} for the account listing at its bound, $${perAccount.toFixed(4)} for the 1 account started, at its bound)`,
    );
  });

  it('reports the organization, then what changed per account on the next run', async () => {
    const first = await orgRun('org-1', [finding(1, 'high'), finding(2, 'medium')]);
    const record = first.state.levels.collect as PlanLevelRecord;
    expect(record.organization).toEqual({
      selected: 4,
      audited: 1,
      partial: 1,
      failed: 1,
      notAudited: 1,
      partialFindings: 0,
      report: 'levels/collect/organization.json',
      // Every account's two calls of 5 ms each, from the account_done records.
      calls: {
        accounts: 3,
        perCall: [
          { tool: 'aws_ebs_inventory', count: 3, ms: 15 },
          { tool: 'aws_eips_audit', count: 3, ms: 15 },
        ],
        caught: 0,
        // dev's EIP check and locked's two were refused
        failed: 3,
        costExplorerRequests: 0,
      },
    });
    // The summary's estimate counts them: 6 dispatches and 6 tool invocations, 3 account_done
    // invocations, and the per-account states (4 parent + 3 children + 3 × 3 + 6 calls) beside
    // the run's own 4 states and 2 engine invocations.
    const summary = summarizeRun({
      scenario,
      runId: 'org-1',
      tenant: 'default',
      levels: first.state.levels,
      memory: functionMemory(toolCatalog),
    });
    expect(summary.counts).toMatchObject({
      stateTransitions: 4 + 4 + 3 + 9 + 6,
      lambdaInvocations: 2 + 2 + 3 + 6 + 6,
      costExplorerRequests: 0,
    });
    expect(record.outcome).toBe('partial');
    expect(record.findings).toMatchObject({ total: 3, new: 3, resolved: 0, estimatedMonthlyCostUsd: 10 });
    const workspace = workspacesOf(localWorkspaceProvider(dir))({
      tenant: 'default',
      scenario: 'org_unit',
      runId: 'org-1',
    });
    const report = await readJson<OrgReport>(workspace, ENGINE_PATHS.organization('collect'));
    expect(report.top.map((f) => [f.accountId, f.resource])).toEqual([
      [PROD, 'vol-1'],
      [PROD, 'vol-2'],
      [DEV, 'vol-7'],
    ]);
    expect(report.failed).toEqual([
      {
        accountId: LOCKED,
        name: 'locked',
        reason: 'the platform could not sign in (the credentials were missing, expired or rejected)',
      },
    ]);

    // Second run: vol-1 fixed, vol-3 appeared in prod; dev and locked unchanged.
    const second = await orgRun('org-2', [finding(2, 'medium'), finding(3, 'critical')]);
    expect(second.plan.previousRunId).toBe('org-1');
    const next = await readJson<OrgReport>(
      workspacesOf(localWorkspaceProvider(dir))({ tenant: 'default', scenario: 'org_unit', runId: 'org-2' }),
      ENGINE_PATHS.organization('collect'),
    );
    expect(next.previousRunId).toBe('org-1');
    expect(
      next.rollUp.map((row) => [row.accountId, row.status, row.new, row.resolved, row.unchanged]),
    ).toEqual([
      [PROD, 'audited', 1, 1, 1],
      [DEV, 'partial', 0, 0, 1],
      [LOCKED, 'failed', 0, 0, 0],
    ]);
    const text = (second.state.levels.collect as PlanLevelRecord).summary;
    expect(text).toContain('since the previous organization run (org-1): 1 new, 1 resolved, 2 unchanged');
    expect(text).toContain('Changed accounts: prod (111111111111) +1/-1.');
    expect(text).toContain(
      '- CRITICAL Volume 3 is unattached (account 111111111111, eu-west-1) — ~$3.00/month',
    );
  });

  it("gives the next run's Map its accounts longest first, by the previous run's call durations", async () => {
    // Prepare: in run 1, dev's calls took 40 + 5 ms, locked's 5 + 5, prod's 1 + 2.
    const timed = (result: ToolResult, durationMs: number) => ({ ...result, durationMs }) as ToolResult;
    const first = await orgRun('org-1', [], {
      [PROD]: [timed(ok('aws_ebs_inventory', 0, []), 1), timed(ok('aws_eips_audit', 1, []), 2)],
      [DEV]: [timed(ok('aws_ebs_inventory', 0, []), 40), ok('aws_eips_audit', 1, [])],
    });
    const firstRun = workspacesOf(localWorkspaceProvider(dir))({ ...base, runId: 'org-1' });
    expect(await readJson(firstRun, ENGINE_PATHS.accountDurations('collect'))).toEqual({
      [PROD]: 3,
      [DEV]: 45,
      [LOCKED]: 10,
    });

    // Act
    const second = await orgRun('org-2', []);

    // Assess: the first run (nothing timed yet) listed them by account id; the second, longest first.
    expect(first.plan.items?.map((item) => item.accountId)).toEqual([PROD, DEV, LOCKED]);
    expect(second.plan.items?.map((item) => item.accountId)).toEqual([DEV, LOCKED, PROD]);
    const secondRun = workspacesOf(localWorkspaceProvider(dir))({ ...base, runId: 'org-2' });
    expect(
      (await readJson<{ accountId: string }[]>(secondRun, ENGINE_PATHS.accountItems('collect'))).map(
        (item) => item.accountId,
      ),
    ).toEqual([DEV, LOCKED, PROD]);
  });

  it('writes one file per account: its results in call order, and its findings unless its audit failed', async () => {
    await orgRun('org-1', [finding(1, 'high')]);
    const workspace = workspacesOf(localWorkspaceProvider(dir))({
      tenant: 'default',
      scenario: 'org_unit',
      runId: 'org-1',
    });
    expect((await workspace.list('levels/collect/accounts/')).map((file) => file.path)).toEqual(
      [PROD, DEV, LOCKED].map((account) => ENGINE_PATHS.account('collect', account)).sort(),
    );
    const prod = await readJson<AccountFile>(workspace, ENGINE_PATHS.account('collect', PROD));
    expect(prod.results.map((result) => [result.tool, result.callId, result.ok])).toEqual([
      ['aws_ebs_inventory', 'collect/0', true],
      ['aws_eips_audit', 'collect/1', true],
    ]);
    expect(prod.findings?.map((f) => f.resource)).toEqual(['vol-1']);
    expect('diff' in prod && prod.diff.new).toEqual([finding(1, 'high').id]);
    const locked = await readJson<AccountFile>(workspace, ENGINE_PATHS.account('collect', LOCKED));
    expect(locked.results.map((result) => result.ok)).toEqual([false, false]);
    expect(locked.findings).toBeUndefined();
  });

  it('compares with a previous run written before the one-file layout (its findings.json per account)', async () => {
    await orgRun('org-1', [finding(1, 'high'), finding(2, 'medium')]);
    // org-1's files as the earlier layout wrote them: findings.json in a folder per account.
    const before = path.join(dir, 'runs/default/org_unit/org-1');
    const workspace = workspacesOf(localWorkspaceProvider(dir))({
      tenant: 'default',
      scenario: 'org_unit',
      runId: 'org-1',
    });
    for (const account of [PROD, DEV]) {
      const file = await readJson<AccountFile>(workspace, ENGINE_PATHS.account('collect', account));
      const { accountId: _id, results: _results, ...findingsFile } = file;
      const legacy = path.join(before, ENGINE_PATHS.legacyAccountFindings('collect', account));
      mkdirSync(path.dirname(legacy), { recursive: true });
      writeFileSync(legacy, JSON.stringify(findingsFile));
      rmSync(path.join(before, ENGINE_PATHS.account('collect', account)));
    }

    await orgRun('org-2', [finding(2, 'medium'), finding(3, 'critical')]);

    const next = await readJson<OrgReport>(
      workspacesOf(localWorkspaceProvider(dir))({ tenant: 'default', scenario: 'org_unit', runId: 'org-2' }),
      ENGINE_PATHS.organization('collect'),
    );
    expect(
      next.rollUp.map((row) => [row.accountId, row.status, row.new, row.resolved, row.unchanged]),
    ).toEqual([
      [PROD, 'audited', 1, 1, 1],
      [DEV, 'partial', 0, 0, 1],
      [LOCKED, 'failed', 0, 0, 0],
    ]);
  });

  it("tells a result the tool itself reported incomplete from one the platform shrank, with the tool's own reason", async () => {
    // Prepare: prod's EBS check marks its own small result truncated (its credential report timed out,
    // as aws_iam_audit does; never shrunk, no claim-check); dev's regional audit stopped before two regions.
    const own = (value: Record<string, unknown>): ToolResult =>
      ({
        ...ok('aws_ebs_inventory', 0, [finding(7, 'high')]),
        value: { findings: [finding(7, 'high')], ...value },
        truncated: true,
      }) as ToolResult;
    const iamLike = own({
      credentialReport: {
        status: 'unavailable',
        error: { code: 'timeout', message: 'report not ready in 30 s' },
      },
    });
    const regional = own({ skippedRegions: ['eu-north-1', 'ap-east-1'] });

    // Act
    const { state } = await orgRun('org-own', [], {
      [PROD]: [iamLike, ok('aws_eips_audit', 1, [])],
      [DEV]: [regional, ok('aws_eips_audit', 1, [])],
      [LOCKED]: [ok('aws_ebs_inventory', 0, []), ok('aws_eips_audit', 1, [])],
    });

    // Assess: neither reads "shortened to fit"; each names the tool's own reason
    const report = await readJson<OrgReport>(
      workspacesOf(localWorkspaceProvider(dir))({
        tenant: 'default',
        scenario: 'org_unit',
        runId: 'org-own',
      }),
      ENGINE_PATHS.organization('collect'),
    );
    const row = (account: string) => report.rollUp.find((r) => r.accountId === account)?.partialFindings;
    expect([row(PROD), row(DEV), row(LOCKED)]).toEqual([
      [
        {
          tool: 'aws_ebs_inventory',
          reason:
            'it reported its own result incomplete (credentialReport: timeout), so the findings it did not reach are missing',
        },
      ],
      [
        {
          tool: 'aws_ebs_inventory',
          reason:
            'it reported its own result incomplete (regions not read before its deadline: eu-north-1, ap-east-1), so the findings it did not reach are missing',
        },
      ],
      [],
    ]);
    const summary = (state.levels.collect as PlanLevelRecord).summary ?? '';
    expect(summary).toContain(
      'prod (111111111111): ebs inventory (it reported its own result incomplete (credentialReport: timeout), so the findings it did not reach are missing)',
    );
    expect(summary).not.toContain('shortened to fit');
    // Far below Slack's limit: no entry cut, no reason's period before the list's "; "
    expect([summary.includes('…'), summary.includes('.;')]).toEqual([false, false]);
  });

  it("reads a claim-checked result from its file, and says an account's findings are partial when only a shrunk result exists", async () => {
    // Prepare: 30 findings per account's EBS check, over the inline budget. prod's result claim-checked
    // (the stand-in's preview holds a few of them), dev's shrunk inline (no workspace took it), locked's
    // claim-checked to a file that is gone by the time the account is closed.
    const many = Array.from({ length: 30 }, (_, n) => finding(100 + n, 'medium'));
    const scope = (account: string) => ({ tenant: 'default', scenario: 'org_unit', runId: 'org-p', account });
    const workspaces = localWorkspaceProvider(dir);
    const claimChecked = (account: string) =>
      claimCheck(ok('aws_ebs_inventory', 0, many) as ToolSuccess, workspaces(scope(account)), 4096, account);
    const prod = await claimChecked(PROD);
    const locked = await claimChecked(LOCKED);
    rmSync(path.join(dir, 'runs/default/org_unit/org-p', claimCheckPath('collect/0', LOCKED)));
    const shrunk = boundResult(ok('aws_ebs_inventory', 0, many), 2048);

    // Act
    const { state } = await orgRun('org-p', [], {
      [PROD]: [prod, ok('aws_eips_audit', 1, [])],
      [DEV]: [shrunk, ok('aws_eips_audit', 1, [])],
      [LOCKED]: [locked, ok('aws_eips_audit', 1, [])],
    });

    // Assess: prod's 30 read whole from the file; dev's and locked's read in part, and said so
    const report = await readJson<OrgReport>(
      workspacesOf(workspaces)({ tenant: 'default', scenario: 'org_unit', runId: 'org-p' }),
      ENGINE_PATHS.organization('collect'),
    );
    const row = (account: string) => report.rollUp.find((r) => r.accountId === account);
    const inline: Record<string, ToolResult> = { [DEV]: shrunk, [LOCKED]: locked };
    const readFrom = (account: string) => findingsIn((inline[account] as ToolSuccess).value).findings.length;
    expect(shrunk.ok && shrunk.truncated).toBe(true);
    expect([readFrom(DEV), readFrom(LOCKED)].every((n) => n > 0 && n < 30)).toBe(true);
    expect(
      [PROD, DEV, LOCKED].map((account) => [account, row(account)?.findings, row(account)?.partialFindings]),
    ).toEqual([
      [PROD, 30, []],
      [
        DEV,
        readFrom(DEV),
        [
          {
            tool: 'aws_ebs_inventory',
            reason: 'its result was shortened to fit, so some of its findings were not read',
          },
        ],
      ],
      [
        LOCKED,
        readFrom(LOCKED),
        [
          {
            tool: 'aws_ebs_inventory',
            reason: 'its stored result could not be read back, so only the findings of its preview were read',
          },
        ],
      ],
    ]);
    expect(report.accounts.partialFindings).toBe(2);
    expect(report.findings.total).toBe(30 + readFrom(DEV) + readFrom(LOCKED));
    expect((state.levels.collect as PlanLevelRecord).summary).toContain(
      'Accounts whose findings are partial (counted as read): locked (333333333333): ebs inventory (its stored result could not be read back, so only the findings of its preview were read); dev (222222222222): ebs inventory (its result was shortened to fit, so some of its findings were not read).',
    );
  });

  it('ends the level saying why the accounts could not be listed, as (<code>: <message>)', async () => {
    // Prepare: a listing the dispatcher answered with auth_failed (account-directory.ts throws its code)
    const failing = engineListingWith(async () => {
      throw new PlatformError(
        'auth_failed',
        'aws_org_accounts: STS refused AssumeRole of the organization role',
      );
    });
    const input = { tenant: 'default', accounts: 'all', exclude: [] };

    // Act
    const plan = (await failing({
      action: 'org_targets',
      ...base,
      runId: 'org-x',
      input,
      levels: {},
    })) as OrgPlan;
    const listed = (await failing({
      action: 'org_done',
      ...base,
      runId: 'org-x',
      input,
      levels: {},
      org: plan,
    })) as RunState;
    // The org_targets Task itself failed: its Catch's Error is the function error's class, its Cause the error's JSON
    const caught = (await failing({
      action: 'org_done',
      ...base,
      runId: 'org-y',
      input,
      levels: {},
      org: {
        Error: 'TypeError',
        Cause: JSON.stringify({ errorType: 'TypeError', errorMessage: 'x is not a function', trace: [] }),
      },
    })) as RunState;

    // Assess
    expect(plan).toEqual({
      accounts: 0,
      notAudited: 0,
      previousRunId: null,
      listingFailed: {
        code: 'auth_failed',
        message: 'aws_org_accounts: STS refused AssumeRole of the organization role',
      },
    });
    expect((listed.levels.collect as PlanLevelRecord).summary).toBe(
      "The organization's accounts could not be listed, so no account was audited (auth_failed: aws_org_accounts: STS refused AssumeRole of the organization role).",
    );
    expect((caught.levels.collect as PlanLevelRecord).summary).toBe(
      "The organization's accounts could not be listed, so no account was audited (internal_error: x is not a function).",
    );
    expect((listed.levels.collect as PlanLevelRecord).outcome).toBe('failed');
  });

  it('says the selection was refused, not that the listing failed, when the tool refused the selection', async () => {
    // Prepare: the listing read the organization and refused an OU it does not hold (resolveAccounts)
    const refusing = engineListingWith(async () => {
      throw new PlatformError(
        'invalid_args',
        'aws_org_accounts: accounts names ou-zz99-99999999, which is not an OU or root of the organization (it holds 3 roots and OUs)',
      );
    });
    const input = { tenant: 'default', accounts: ['ou-zz99-99999999'], exclude: [] };

    // Act
    const plan = (await refusing({
      action: 'org_targets',
      ...base,
      runId: 'org-ou',
      input,
      levels: {},
    })) as OrgPlan;
    const state = (await refusing({
      action: 'org_done',
      ...base,
      runId: 'org-ou',
      input,
      levels: {},
      org: plan,
    })) as RunState;

    // Assess
    const record = state.levels.collect as PlanLevelRecord;
    expect([record.outcome, record.summary]).toEqual([
      'failed',
      'The run’s account selection was refused, so no account was audited (invalid_args: aws_org_accounts: accounts names ou-zz99-99999999, which is not an OU or root of the organization (it holds 3 roots and OUs)).',
    ]);
  });

  it('fails the level, saying why, when the run budget leaves room for no account', async () => {
    // Act: a budget below the listing call's own estimate
    const input = { tenant: 'default', accounts: 'all', exclude: [], budget_usd: 0.000001 };
    const plan = (await engine({
      action: 'org_targets',
      ...base,
      runId: 'org-none',
      input,
      levels: {},
    })) as OrgPlan;
    const state = (await engine({
      action: 'org_done',
      ...base,
      runId: 'org-none',
      input,
      levels: {},
      org: { ...plan, map: [] },
    })) as RunState;

    // Assess: 0 audited is never ok
    const record = state.levels.collect as PlanLevelRecord;
    expect([plan.accounts, plan.budgetSkipped?.accounts, record.outcome]).toEqual([0, 3, 'failed']);
    expect(record.summary?.split('\n').slice(0, 2)).toEqual([
      "No account was audited: the run budget left no room for any account's audit (3 accounts not started).",
      '4 accounts: 0 audited (0 of them with failed checks), 0 failed, 4 not audited.',
    ]);
  });

  it('names the accounts of a failed child and those never started', async () => {
    const input = { tenant: 'default', accounts: 'all', exclude: [] };
    const plan = (await engine({
      action: 'org_targets',
      ...base,
      runId: 'org-3',
      input,
      levels: {},
    })) as OrgPlan;
    const definition = JSON.parse(
      JSON.stringify(scenarioToAsl(scenario).States.collect_accounts_inline).replaceAll(
        WORKSPACE_BUCKET_PLACEHOLDER,
        BUCKET,
      ),
    );
    await expect(
      runDistributedMap(
        'collect_accounts_inline',
        { ...definition, ToleratedFailurePercentage: 0 },
        { input, org: plan },
        { Execution: { Id: 'arn:aws:states:local:000000000000:execution:local:org-3', Name: 'org-3' } },
        async (_processor, child) => {
          const account = (child as { Items: { accountId: string; name: string }[] }).Items[0];
          if (account?.accountId === DEV)
            throw Object.assign(new Error('Lambda down'), { name: 'Lambda.ServiceException' });
          return [
            await engine({
              action: 'account_done',
              ...base,
              runId: 'org-3',
              account,
              previousRunId: null,
              results: [ok('aws_ebs_inventory', 0, []), ok('aws_eips_audit', 1, [])],
            }),
          ];
        },
        directoryObjectStore(dir, BUCKET),
      ),
    ).rejects.toMatchObject({ name: 'States.ExceedToleratedFailureThreshold' });
    const state = (await engine({
      action: 'org_done',
      ...base,
      runId: 'org-3',
      input,
      levels: {},
      org: { ...plan, mapError: { Error: 'States.ExceedToleratedFailureThreshold' } },
    })) as RunState;
    const report = await readJson<OrgReport>(
      workspacesOf(localWorkspaceProvider(dir))({ tenant: 'default', scenario: 'org_unit', runId: 'org-3' }),
      ENGINE_PATHS.organization('collect'),
    );
    expect(report.failed).toEqual([
      {
        accountId: DEV,
        name: 'dev',
        reason: 'its audit stopped (upstream_error: Lambda.ServiceException: Lambda down)',
      },
    ]);
    expect((state.levels.collect as PlanLevelRecord).organization?.audited).toBe(2);
  });
});
