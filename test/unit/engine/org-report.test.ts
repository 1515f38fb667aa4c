import type { TrackedFinding } from '../../../functions/engine/findings';
import {
  type AccountRecord,
  accountOutcome,
  buildOrgReport,
  mergeTopFindings,
  ORG_REPORT_TEXT_MAX_CHARS,
  orgReportText,
} from '../../../functions/engine/org-report';
import type { ToolResult } from '../../../functions/runtime/result';

const finding = (id: string, severity: TrackedFinding['severity'], usd?: number): TrackedFinding => ({
  id: `ebs_unattached_volume:${id.padStart(16, '0')}`,
  check: 'ebs_unattached_volume',
  severity,
  resource: `vol-${id}`,
  region: 'eu-west-1',
  title: `Volume ${id} is unattached`,
  tool: 'aws_ebs_inventory',
  ...(usd === undefined ? {} : { monthlyCost: { usd, priceSource: 'Amazon EBS pricing (2026-11)' } }),
});

const ok = (tool: string): ToolResult =>
  ({ ok: true, tool, callId: 'collect/0', value: {}, truncated: false, durationMs: 1 }) as ToolResult;
const failed = (tool: string, code: string): ToolResult =>
  ({
    ok: false,
    tool,
    callId: 'collect/0',
    durationMs: 1,
    error: { code, message: 'x', retryable: false },
  }) as ToolResult;

const counts = (total: number, usd: number, diff: { new: number; resolved: number; unchanged: number }) => ({
  total,
  ...diff,
  unknown: 0,
  bySeverity: { high: total },
  estimatedMonthlyCostUsd: usd,
});

describe('accountOutcome', () => {
  it('is audited when every check succeeded', () => {
    expect(accountOutcome([ok('aws_ebs_inventory'), ok('aws_eips_audit')])).toEqual({
      status: 'audited',
      failedChecks: [],
    });
  });

  it('is partial with the failed checks named when some failed', () => {
    expect(accountOutcome([ok('aws_ebs_inventory'), failed('aws_eips_audit', 'opt_in_required')])).toEqual({
      status: 'partial',
      failedChecks: [{ tool: 'aws_eips_audit', code: 'opt_in_required' }],
    });
  });

  it('is failed with one plain reason when every check failed alike', () => {
    const outcome = accountOutcome([
      failed('aws_ebs_inventory', 'auth_failed'),
      failed('aws_eips_audit', 'auth_failed'),
    ]);
    expect(outcome.status).toBe('failed');
    expect(outcome.reason).toBe(
      'the platform could not sign in (the credentials were missing, expired or rejected)',
    );
  });

  it('counts each reason when every check failed differently', () => {
    const outcome = accountOutcome([
      failed('aws_ebs_inventory', 'throttled'),
      failed('aws_eips_audit', 'throttled'),
      failed('aws_iam_audit', 'timeout'),
    ]);
    expect(outcome.reason).toBe(
      '2 checks because AWS asked the platform to slow down and it ran out of retries; 1 checks because it took too long and was stopped',
    );
  });
});

describe('mergeTopFindings', () => {
  it('ranks across accounts by severity, then monthly cost, and keeps the limit', () => {
    let top = mergeTopFindings([], '111111111111', [finding('1', 'high', 5), finding('2', 'low', 900)], 3);
    top = mergeTopFindings(top, '222222222222', [finding('3', 'high', 50), finding('4', 'critical')], 3);
    expect(top.map((f) => [f.accountId, f.resource])).toEqual([
      ['222222222222', 'vol-4'],
      ['222222222222', 'vol-3'],
      ['111111111111', 'vol-1'],
    ]);
  });
});

describe('buildOrgReport', () => {
  const records: AccountRecord[] = [
    {
      accountId: '111111111111',
      name: 'prod',
      status: 'audited',
      findings: counts(3, 120.5, { new: 1, resolved: 2, unchanged: 2 }),
      failedChecks: [],
      partialFindings: [{ tool: 'aws_ebs_inventory', why: 'top_only' }],
    },
    {
      accountId: '222222222222',
      name: 'dev',
      status: 'partial',
      findings: counts(1, 10, { new: 1, resolved: 0, unchanged: 0 }),
      failedChecks: [{ tool: 'aws_eips_audit', code: 'opt_in_required' }],
    },
    {
      accountId: '333333333333',
      name: 'legacy',
      status: 'failed',
      reason: 'the platform could not sign in (the credentials were missing, expired or rejected)',
      failedChecks: [{ tool: 'aws_eips_audit', code: 'auth_failed' }],
    },
  ];
  const report = buildOrgReport({
    runId: 'org-2',
    previousRunId: 'org-1',
    records: [records[2] as AccountRecord, ...records],
    notAudited: [
      { accountId: '444444444444', name: 'old', status: 'SUSPENDED', reason: 'the account is suspended' },
    ],
    top: mergeTopFindings([], '111111111111', [finding('1', 'high', 100)], 10),
  });

  it('totals accounts and findings across the organization', () => {
    expect(report.accounts).toEqual({
      selected: 4,
      audited: 1,
      partial: 1,
      failed: 1,
      notAudited: 1,
      partialFindings: 1,
    });
    expect(report.findings).toEqual({
      total: 4,
      new: 2,
      resolved: 2,
      unchanged: 2,
      bySeverity: { high: 4 },
      monthlyWasteUsd: 130.5,
    });
  });

  it('rolls up per account, worst first, with failed checks in plain words', () => {
    expect(report.rollUp.map((row) => [row.accountId, row.monthlyWasteUsd])).toEqual([
      ['111111111111', 120.5],
      ['222222222222', 10],
      ['333333333333', 0],
    ]);
    expect(report.rollUp[0]?.partialFindings).toEqual([
      {
        tool: 'aws_ebs_inventory',
        reason: 'it listed only its top findings, as its topN asks, so the others were counted but not read',
      },
    ]);
    expect(report.rollUp[1]?.partialFindings).toEqual([]);
    expect(report.rollUp[1]?.failedChecks).toEqual([
      { tool: 'aws_eips_audit', reason: 'the AWS service it needs is not enabled for the account' },
    ]);
    expect(report.failed).toEqual([
      {
        accountId: '333333333333',
        name: 'legacy',
        reason: 'the platform could not sign in (the credentials were missing, expired or rejected)',
      },
    ]);
  });

  it('writes one Slack text naming the changes, failed and not-audited accounts', () => {
    const text = orgReportText(report, 'levels/collect/organization.json');
    expect(text.split('\n')).toEqual([
      '4 accounts: 2 audited (1 of them with failed checks), 1 failed, 1 not audited.',
      '4 findings (4 high), estimated waste ~$130.50/month; since the previous organization run (org-1): 2 new, 2 resolved, 2 unchanged.',
      'Top findings:',
      '- HIGH Volume 1 is unattached (account 111111111111, eu-west-1) — ~$100.00/month',
      'Changed accounts: prod (111111111111) +1/-2, dev (222222222222) +1/-0.',
      'Failed accounts (not audited this run): legacy (333333333333): the platform could not sign in (the credentials were missing, expired or rejected).',
      'Accounts with failed checks: dev (222222222222): eips audit.',
      'Accounts whose findings are partial (counted as read): prod (111111111111): ebs inventory (it listed only its top findings, as its topN asks, so the others were counted but not read).',
      'Not audited: old (444444444444): the account is suspended.',
      "Full per-account detail: levels/collect/organization.json in the run's workspace.",
    ]);
  });

  it('keeps the Slack text within a section block however many accounts failed', () => {
    const many = Array.from({ length: 2000 }, (_, i) => ({
      accountId: String(100000000000 + i),
      name: 'n'.repeat(50),
      status: 'failed' as const,
      reason: 'x'.repeat(200),
      failedChecks: [],
    }));
    const text = orgReportText(
      buildOrgReport({ runId: 'r', records: many, notAudited: [], top: [] }),
      'levels/collect/organization.json',
    );
    expect(text.length).toBeLessThanOrEqual(ORG_REPORT_TEXT_MAX_CHARS);
    expect(text).toContain('and 1990 more');
    expect(text.endsWith("levels/collect/organization.json in the run's workspace.")).toBe(true);
  });
});
