import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DescribeAddressesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { OrganizationsClient } from '@aws-sdk/client-organizations';
import { API_CALL_CASES, AUDIT_CLIENTS, clientStubs } from '../../bench/api-call-cases';
import { type FindingsFile, findingsIn } from '../../functions/engine/findings';
import type { AccountFile, OrgReport } from '../../functions/engine/org-report';
import { accountUse, callUse, spentUsd, usdOf } from '../../functions/engine/run-budget';
import { soleRef } from '../../functions/engine/template';
import { ENGINE_PATHS } from '../../functions/engine/workspaces';
import { deadlineIn } from '../../functions/runtime/deadline';
import { runTool } from '../../functions/runtime/harness';
import { ORG_ACCOUNTS_TOOL } from '../../functions/runtime/ids';
import { logger } from '../../functions/runtime/logger';
import { FULL_RESULT_MAX_BYTES } from '../../functions/runtime/result-limits';
import type { Tool } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';
import { STATE_BUDGET_BYTES } from '../../lib/scenarios/budget';
import { findScenario, loadScenarios } from '../../lib/scenarios/loader';
import type { PlanLevel } from '../../lib/scenarios/model';
import { awsToolServices, EXAMPLE_AWS_SECRET } from '../helpers/aws-tool';
import { mockedClientRegion } from '../helpers/ec2-pages';
import { toolInvocation } from '../helpers/events';
import {
  accountOfClient,
  arrangeOrganizationWorld,
  organizationWorld,
  WORLD_MANAGEMENT_ACCOUNT,
  WORLD_OPT_IN_REGION,
  type WorldCalls,
  worldAccessKeyId,
  worldAccountId,
} from '../helpers/organization-world';
import { type ScenarioHarness, startScenarioHarness } from '../helpers/scenario-harness';

/**
 * The shipped aws_pulse_org end to end (issue 20, "Tests"): its state machine as
 * the CDK synthesizes it, in the local interpreter, its Distributed Map routed to
 * bin/local/local-distributed-map.ts (one child execution per account); the real
 * engine (accounts listed through the dispatcher by aws_org_accounts), dispatcher
 * and AWS tool handlers; an organization of 50 member accounts
 * (test/helpers/organization-world.ts) whose audits are answered by the tools'
 * API-call cases in each member's own session; the report posted to a loopback Slack.
 *
 * The world: account 49 SUSPENDED, account 48's audit role refused by STS,
 * account 47's AssumeRole throttled every time, and the opt-in region ap-east-1
 * enabled in accounts 1-46 but not in account 0. Every account has two regions
 * enabled by default (us-east-1, eu-west-1: where the cases keep their resources),
 * so a run audits 2 or 3 regions per account.
 */

const { stubs, stubOf } = clientStubs([...AUDIT_CLIENTS, OrganizationsClient]);
const pulseOrg = findScenario(loadScenarios(toolCatalog), 'aws_pulse_org');
const collect = pulseOrg.levels[0] as PlanLevel;
const MEMBERS = 50;
const SUSPENDED = worldAccountId(49);
const REFUSED = worldAccountId(48);
const THROTTLED = worldAccountId(47);
const NO_OPT_IN = worldAccountId(0);
/** ACTIVE members whose audit role opens: accounts 0-46. */
const AUDITABLE = Array.from({ length: 47 }, (_, index) => worldAccountId(index));
const world = organizationWorld({
  accounts: MEMBERS,
  states: { SUSPENDED: 1 },
  refused: 1,
  throttled: 1,
  optIn: 46,
  enabledByDefault: ['us-east-1', 'eu-west-1'],
});

/** The account whose unattached address is attached between the two runs, and the one given a second unattached address. */
const ATTACHED_IN_RUN_2 = worldAccountId(5);
const NEW_IN_RUN_2 = worldAccountId(6);

/**
 * EC2 DescribeAddresses (EC2 API reference) per member and run: in each region it has enabled,
 * one address attached to an instance and one unattached (an EIP finding); in the
 * second run account 5's is attached and account 6 has a second unattached one.
 */
function arrangeAddresses(run: 1 | 2): void {
  stubOf(EC2Client)
    .on(DescribeAddressesCommand)
    .callsFake(async (_input: unknown, getClient: () => unknown) => {
      // The client that sent this request, taken before any await (getClient answers for the latest call).
      const client = getClient();
      const region = await mockedClientRegion(() => client);
      const account = (await accountOfClient(() => client)) ?? '';
      const compact = region.replaceAll('-', '');
      const address = (n: number, attached: boolean) => ({
        PublicIp: `203.0.113.${n}`,
        AllocationId: `eipalloc-0${compact}${n}`,
        ...(attached ? { AssociationId: `eipassoc-0${compact}${n}`, InstanceId: `i-0${compact}${n}` } : {}),
        Domain: 'vpc' as const,
        PublicIpv4Pool: 'amazon',
        NetworkBorderGroup: region,
      });
      return {
        Addresses: [
          address(1, true),
          address(2, run === 2 && account === ATTACHED_IN_RUN_2),
          ...(run === 2 && account === NEW_IN_RUN_2 ? [address(3, false)] : []),
        ],
      };
    });
}

let harness: ScenarioHarness;
let calls: WorldCalls;
/** Each audited account's own findings in run 1 ({@link ownFindings}), for the second run's changes. */
let ownFindingsRun1: Map<string, { keys: string[]; monthlyWasteUsd: number }>;
jest.setTimeout(120_000);

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  harness = await startScenarioHarness({
    slack: { channels: { C0AWSPULSE: 'aws-pulse' } },
    secrets: {
      aws_org_default: {
        management_role_arn: `arn:aws:iam::${WORLD_MANAGEMENT_ACCOUNT}:role/ExternalToolsPlatformOrganization`,
        external_id: 'ext-id-e2e-0001',
        member_role_name: 'ExternalToolsPlatformAudit',
      },
    },
  });
}, 120_000);

afterAll(async () => {
  await harness.stop();
  for (const stub of stubs.values()) stub.restore();
});

/** Every stub answered afresh for one run: the cases, then the world (its DescribeRegions per account), then the addresses. */
function arrangeRun(run: 1 | 2): void {
  for (const stub of stubs.values()) stub.reset();
  for (const testCase of API_CALL_CASES.filter((c) => collect.intra_tools.includes(c.tool))) {
    testCase.arrange(stubOf);
  }
  calls = arrangeOrganizationWorld(stubOf, world);
  arrangeAddresses(run);
}

const INPUT = { slack_channel: 'C0AWSPULSE' };

function readReport(runId: string): OrgReport {
  return JSON.parse(
    readFileSync(
      path.join(
        harness.localDir,
        'runs/default/aws_pulse_org',
        runId,
        ENGINE_PATHS.organization(collect.name),
      ),
      'utf8',
    ),
  ) as OrgReport;
}

/** An account's one file of a run (`ENGINE_PATHS.account`), as written. */
function readAccountFile(runId: string, account: string): AccountFile {
  return JSON.parse(
    readFileSync(
      path.join(
        harness.localDir,
        'runs/default/aws_pulse_org',
        runId,
        ENGINE_PATHS.account(collect.name, account),
      ),
      'utf8',
    ),
  ) as AccountFile;
}

/** An audited account's findings, from its account file. */
function readFindings(runId: string, account: string): Pick<FindingsFile, 'findings' | 'coverage' | 'diff'> {
  const file = readAccountFile(runId, account);
  if (!file.findings) throw new Error(`${account} has no findings in ${runId}`);
  return file;
}

/** A finding as compared here: its tool, check, region and resource. */
const keyOf = (f: { tool: string; check: string; region: string; resource: string }) =>
  `${f.tool} ${f.check} ${f.region} ${f.resource}`;

/** A call's args as the scenario gives them: `{{input.<name>}}` is the input's default (the runs here set only slack_channel). */
function argsOf(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      const ref = typeof value === 'string' ? soleRef(value) : undefined;
      return [key, ref?.path[0] === 'input' ? pulseOrg.inputs[ref.path[1] ?? '']?.default : value];
    }),
  );
}

/**
 * What an account's own fake holds, as findings — the test's oracle, independent
 * of what is checked: each call of the level run once directly (runTool, as the
 * tool's function runs it: no state machine, dispatcher, post-call work or
 * claim-check; bounded at 1 MiB), with the call's args, in a session whose key
 * names the account (so the stubs answer as that account: its enabled regions,
 * its addresses). Each result must be whole and list every finding (no top-N
 * cut), or the oracle itself would be partial.
 */
async function ownFindings(account: string): Promise<{ keys: string[]; monthlyWasteUsd: number }> {
  const services = awsToolServices({
    access_key_id: worldAccessKeyId(account),
    secret_access_key: EXAMPLE_AWS_SECRET.secret_access_key,
    region: 'us-east-1',
  });
  const found = new Map<string, number>();
  for (const [index, call] of collect.calls.entries()) {
    const module = require(`../../functions/tools/${toolCatalog.implementationOf(call.tool)}`) as Record<
      string,
      unknown
    >;
    const tool = Object.values(module).find((value) => (value as Tool | null)?.name === call.tool) as Tool;
    const result = await runTool(
      tool,
      toolInvocation({ tool: call.tool, args: argsOf(call.args), callId: `${collect.name}/${index}` }),
      deadlineIn(60_000),
      services,
      FULL_RESULT_MAX_BYTES,
    );
    if (!result.ok || result.truncated)
      throw new Error(`oracle: ${call.tool} in ${account}: ${result.summary}`);
    const { findings, complete } = findingsIn(result.value);
    if (!complete) throw new Error(`oracle: ${call.tool} in ${account} listed only its top findings`);
    for (const f of findings) found.set(keyOf({ ...f, tool: call.tool }), f.monthlyCost?.usd ?? 0);
  }
  const usd = [...found.values()].reduce((sum, cost) => sum + cost, 0);
  return { keys: [...found.keys()].sort(), monthlyWasteUsd: Math.round(usd * 100) / 100 };
}

/** The findings of an account's file in one region. */
const inRegion = (file: Pick<FindingsFile, 'findings'>, region: string) =>
  file.findings.filter((f) => f.region === region);

describe('aws_pulse_org over 50 accounts, end to end through the synthesized state machine', () => {
  it('audits each ACTIVE member in its own session, names the failed and not-audited accounts, ranks and rolls up', async () => {
    // Prepare
    arrangeRun(1);

    // Act
    const run = await harness.run('aws_pulse_org', { runId: 'org-e2e-1', input: INPUT });

    // Assess: per account
    const report = readReport('org-e2e-1');
    expect(report.accounts).toEqual({
      selected: 51,
      audited: 47,
      partial: 0,
      failed: 2,
      notAudited: 2,
      partialFindings: 0,
    });
    expect(report.previousRunId).toBeUndefined();
    expect(report.failed).toEqual([
      {
        accountId: THROTTLED,
        name: 'account-0047',
        reason: 'AWS asked the platform to slow down and it ran out of retries',
      },
      {
        accountId: REFUSED,
        name: 'account-0048',
        reason: 'the platform could not sign in (the credentials were missing, expired or rejected)',
      },
    ]);
    const tools = collect.calls.map((call) => call.tool);
    const rollUpOf = (account: string) => report.rollUp.find((row) => row.accountId === account);
    expect(rollUpOf(REFUSED)?.failedChecks).toEqual(
      tools.map((tool) => ({
        tool,
        reason: 'the platform could not sign in (the credentials were missing, expired or rejected)',
      })),
    );
    expect(rollUpOf(THROTTLED)?.failedChecks).toEqual(
      tools.map((tool) => ({
        tool,
        reason: 'AWS asked the platform to slow down and it ran out of retries',
      })),
    );
    expect(report.notAudited.map(({ accountId, status }) => [accountId, status])).toEqual([
      [WORLD_MANAGEMENT_ACCOUNT, 'ACTIVE'],
      [SUSPENDED, 'SUSPENDED'],
    ]);
    expect(report.notAudited[1]?.reason).toBe(
      'suspended: AWS has suspended the account, so its resources cannot be read',
    );
    // One file per account (the account_done's only write): every call's result in the level's
    // order, findings for an audited account, none for a failed one
    const accountsDir = path.join(
      harness.localDir,
      'runs/default/aws_pulse_org/org-e2e-1',
      path.dirname(ENGINE_PATHS.account(collect.name, REFUSED)),
    );
    expect(readdirSync(accountsDir).sort()).toEqual(
      [...AUDITABLE, REFUSED, THROTTLED].map((account) => `${account}.json`).sort(),
    );
    const refusedFile = readAccountFile('org-e2e-1', REFUSED);
    expect(refusedFile.results.map((result) => [result.tool, result.ok])).toEqual(
      tools.map((tool) => [tool, false]),
    );
    expect(refusedFile.findings).toBeUndefined();
    expect(readAccountFile('org-e2e-1', NO_OPT_IN).results.map((result) => [result.tool, result.ok])).toEqual(
      tools.map((tool) => [tool, true]),
    );
    // The opt-in region is audited where it is enabled (regions "all" = each account's enabled regions), and only there
    const withoutOptIn = readFindings('org-e2e-1', NO_OPT_IN);
    const withOptIn = readFindings('org-e2e-1', worldAccountId(1));
    expect(inRegion(withoutOptIn, WORLD_OPT_IN_REGION)).toEqual([]);
    expect(inRegion(withOptIn, WORLD_OPT_IN_REGION).map((f) => [f.check, f.resource])).toEqual([
      ['eip_unassociated', 'eipalloc-0apeast12'],
    ]);
    // Every audited account's findings are its own fake's, all of them, each read whole (no check
    // partial); its roll-up counts them, all new on a first run
    const own = new Map<string, Awaited<ReturnType<typeof ownFindings>>>();
    for (const account of AUDITABLE) own.set(account, await ownFindings(account));
    ownFindingsRun1 = own;
    for (const account of AUDITABLE) {
      const expected = own.get(account) as Awaited<ReturnType<typeof ownFindings>>;
      const row = rollUpOf(account);
      expect([account, readFindings('org-e2e-1', account).findings.map(keyOf).sort()]).toEqual([
        account,
        expected.keys,
      ]);
      expect([
        account,
        row?.status,
        row?.findings,
        row?.new,
        row?.monthlyWasteUsd,
        row?.failedChecks,
        row?.partialFindings,
      ]).toEqual([
        account,
        'audited',
        expected.keys.length,
        expected.keys.length,
        expected.monthlyWasteUsd,
        [],
        [],
      ]);
    }
    // The fakes differ where the world does: account 0 lacks the opt-in region's findings, and only those
    const optInFindings = (keys: string[]) => keys.filter((key) => key.includes(` ${WORLD_OPT_IN_REGION} `));
    const withOptInKeys = own.get(worldAccountId(1))?.keys ?? [];
    expect(optInFindings(withOptInKeys).length).toBeGreaterThan(0);
    expect(own.get(NO_OPT_IN)?.keys).toEqual(withOptInKeys.filter((key) => !optInFindings([key]).length));
    // Aggregation: the organization's totals are the accounts' sums
    const ownTotal = AUDITABLE.reduce((sum, account) => sum + (own.get(account)?.keys.length ?? 0), 0);
    expect(report.findings).toMatchObject({ total: ownTotal, new: ownTotal, resolved: 0, unchanged: 0 });
    expect(report.findings.monthlyWasteUsd).toBeCloseTo(
      AUDITABLE.reduce((sum, account) => sum + (own.get(account)?.monthlyWasteUsd ?? 0), 0),
      6,
    );
    const bySeverity = (rows: typeof report.rollUp) =>
      rows.reduce<Record<string, number>>((sum, row) => {
        for (const [severity, count] of Object.entries(row.bySeverity))
          sum[severity] = (sum[severity] ?? 0) + count;
        return sum;
      }, {});
    expect(report.findings.bySeverity).toEqual(bySeverity(report.rollUp));
    // Ranked across the organization: severity, then monthly cost; the 47 public snapshots first, by account
    expect(report.top.slice(0, 47).map((f) => [f.severity, f.check, f.accountId])).toEqual(
      AUDITABLE.map((account) => ['critical', 'ebs_public_snapshot', account]),
    );
    const rank = ['critical', 'high', 'medium', 'low', 'info'];
    for (let i = 1; i < report.top.length; i++) {
      const [a, b] = [report.top[i - 1], report.top[i]];
      expect(rank.indexOf(String(a?.severity))).toBeLessThanOrEqual(rank.indexOf(String(b?.severity)));
    }
    // Sessions: the organization role once; each ACTIVE member's audit role, never the suspended account's
    expect(calls.assumeRole.get(WORLD_MANAGEMENT_ACCOUNT)).toBe(1);
    for (const account of AUDITABLE) expect(calls.assumeRole.get(account)).toBeGreaterThan(0);
    expect(calls.assumeRole.get(SUSPENDED)).toBeUndefined();
    // One Slack message, the organization's
    expect(harness.slack.messages).toHaveLength(1);
    const text = String(harness.slack.messages[0]?.text);
    expect(text).toContain(
      '51 accounts: 47 audited (0 of them with failed checks), 2 failed, 2 not audited.',
    );
    expect(text).toContain(
      'Failed accounts (not audited this run): account-0047 (200000000047): AWS asked the platform to slow down and it ran out of retries; account-0048 (200000000048): the platform could not sign in',
    );
    expect(text).toContain('account-0049 (200000000049): suspended');
    // No state grows with the accounts
    expect(run.largestStateBytes).toBeLessThanOrEqual(STATE_BUDGET_BYTES);
  });

  it('reports what changed per account since the previous organization run', async () => {
    // Prepare: account 5's unattached addresses are attached, account 6 has one more in each home region
    arrangeRun(2);

    // Act
    await harness.run('aws_pulse_org', { runId: 'org-e2e-2', input: INPUT });

    // Assess
    const report = readReport('org-e2e-2');
    const changes = (account: string) => {
      const row = report.rollUp.find((r) => r.accountId === account);
      return { new: row?.new, resolved: row?.resolved, unchanged: row?.unchanged };
    };
    const resolved = readFindings('org-e2e-2', ATTACHED_IN_RUN_2).diff.resolved;
    const added = readFindings('org-e2e-2', NEW_IN_RUN_2);
    expect(report.previousRunId).toBe('org-e2e-1');
    // One address per enabled region (both accounts have the opt-in region): 3 findings each way
    expect(resolved.map((f) => [f.check, f.region, f.resource])).toEqual([
      ['eip_unassociated', 'us-east-1', 'eipalloc-0useast12'],
      ['eip_unassociated', 'eu-west-1', 'eipalloc-0euwest12'],
      ['eip_unassociated', 'ap-east-1', 'eipalloc-0apeast12'],
    ]);
    expect(
      added.findings
        .filter((f) => added.diff.new.includes(f.id))
        .map((f) => [f.check, f.region, f.resource])
        .sort(),
    ).toEqual([
      ['eip_unassociated', 'ap-east-1', 'eipalloc-0apeast13'],
      ['eip_unassociated', 'eu-west-1', 'eipalloc-0euwest13'],
      ['eip_unassociated', 'us-east-1', 'eipalloc-0useast13'],
    ]);
    // One address per enabled region changes; everything else is each account's run-1 findings, unchanged
    const enabledRegions = (account: string) =>
      world.enabledByDefault.length + world.account(account).optInRegions.length;
    const ownCount = (account: string) => ownFindingsRun1.get(account)?.keys.length ?? 0;
    expect(enabledRegions(ATTACHED_IN_RUN_2)).toBe(resolved.length);
    expect(changes(ATTACHED_IN_RUN_2)).toEqual({
      new: 0,
      resolved: enabledRegions(ATTACHED_IN_RUN_2),
      unchanged: ownCount(ATTACHED_IN_RUN_2) - enabledRegions(ATTACHED_IN_RUN_2),
    });
    expect(changes(NEW_IN_RUN_2)).toEqual({
      new: enabledRegions(NEW_IN_RUN_2),
      resolved: 0,
      unchanged: ownCount(NEW_IN_RUN_2),
    });
    const others = AUDITABLE.filter((a) => ![ATTACHED_IN_RUN_2, NEW_IN_RUN_2].includes(a));
    for (const account of others)
      expect([account, changes(account)]).toEqual([
        account,
        { new: 0, resolved: 0, unchanged: ownCount(account) },
      ]);
    const ownTotal = AUDITABLE.reduce((sum, account) => sum + ownCount(account), 0);
    expect(report.findings).toMatchObject({
      new: enabledRegions(NEW_IN_RUN_2),
      resolved: enabledRegions(ATTACHED_IN_RUN_2),
      unchanged: ownTotal - enabledRegions(ATTACHED_IN_RUN_2),
    });
    const text = String(harness.slack.messages.at(-1)?.text);
    expect(text).toContain('account-0005 (200000000005) +0/-3');
    expect(text).toContain('account-0006 (200000000006) +3/-0');
  });

  it('stops starting accounts at the run budget, names them and says so in the summary', async () => {
    // Prepare: a budget that fits the listing and ten accounts' estimates (and half of another)
    arrangeRun(2);
    const memory = harness.engineConfig.functions;
    const perAccount = usdOf(
      accountUse(
        collect.calls.map((call) => toolCatalog.get(call.tool)),
        memory,
      ),
    );
    const listing = usdOf(callUse(toolCatalog.get(ORG_ACCOUNTS_TOOL), memory));
    const budget = Math.round((spentUsd(pulseOrg, {}, memory) + listing + 10.5 * perAccount) * 1e6) / 1e6;

    // Act
    const run = await harness.run('aws_pulse_org', {
      runId: 'org-e2e-3',
      input: { ...INPUT, budget_usd: budget },
    });

    // Assess: accounts 0-9 audited (account-id order), the other 39 ACTIVE members not started
    const report = readReport('org-e2e-3');
    expect(report.accounts).toEqual({
      selected: 51,
      audited: 10,
      partial: 0,
      failed: 0,
      notAudited: 41,
      partialFindings: 0,
    });
    expect(report.rollUp.map((row) => row.accountId)).toEqual(expect.arrayContaining(AUDITABLE.slice(0, 10)));
    const skipped = report.notAudited.filter((a) => a.reason.startsWith('its audit not started'));
    expect(skipped.map((a) => a.accountId)).toEqual(
      Array.from({ length: 39 }, (_, i) => worldAccountId(10 + i)),
    );
    expect(skipped.every((a) => a.status === 'ACTIVE')).toBe(true);
    expect(run.output.summary.budget?.summary).toContain(
      '39 accounts not started because their estimates would have gone past it.',
    );
    expect(calls.assumeRole.get(worldAccountId(10))).toBeUndefined();
  });
});
