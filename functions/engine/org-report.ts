/**
 * The organization report of a per-account level (docs/organizations-runs.md,
 * "The report"), as pure functions over what the accounts' child executions
 * recorded: each account's outcome in plain words, the findings ranked across
 * the organization (severity, then monthly cost), a roll-up per account
 * (findings by severity, monthly waste, failed checks, new / resolved /
 * unchanged since the previous organization run), the accounts that failed and
 * those not audited, each with its reason, and one text for Slack. The whole
 * report is written to the run's workspace; the state keeps counts and the text.
 */
import type { ErrorCode } from '../runtime/errors';
import type { ToolResult } from '../runtime/result';
import { compareText, plural } from '../runtime/text';
import { SEVERITIES } from '../tools/aws/shared/findings';
import {
  cutAtWord,
  type FindingsFile,
  type PartialReason,
  partialInWords,
  type TrackedFinding,
} from './findings';
import { plainReason, toolInWords } from './plain-words';
import type { FindingsCounts } from './records';

/** An account to audit, as the Distributed Map's items carry it. */
export interface AccountItem {
  /** 12 digits. */
  readonly accountId: string;
  /** The account's name in AWS Organizations (at most 50 characters), or `''`. */
  readonly name: string;
}

/**
 * What `account_done` writes once per member account (`ENGINE_PATHS.account`): its
 * calls' results as the dispatcher returned them (a claim-checked one as its
 * stand-in; the whole is under `results/accounts/<account>/`), and, when any
 * check succeeded, its ranked findings, what each tool's findings covered and
 * their diff with the previous organization run (`org_done` ranks the
 * organization's findings from them; the next run compares with them).
 */
export type AccountFile = {
  readonly runId: string;
  readonly level: string;
  readonly accountId: string;
  /** In the level's call order. */
  readonly results: readonly ToolResult[];
} & (
  | Pick<FindingsFile, 'findings' | 'coverage' | 'diff'>
  /** The account's audit failed: no finding was read (the next run counts all of its findings new). */
  | { readonly findings?: undefined }
);

/** An account resolved but not audited: suspended, closed, excluded (s20org's `AccountPlan.notAudited`). */
export interface NotAuditedAccount {
  readonly accountId: string;
  readonly name?: string;
  /** The account's status in AWS Organizations (`SUSPENDED`, `PENDING_CLOSURE`…) or why it was left out. */
  readonly status: string;
  /** In plain words. */
  readonly reason: string;
}

/** A check (tool call) that failed in an account: the tool and the normalized error code (docs/errors.md). */
export interface FailedCheck {
  readonly tool: string;
  readonly code: ErrorCode;
}

/** A check (tool call) that succeeded but whose findings were read only in part, and why ({@link PartialReason}). */
export interface PartialCheck {
  readonly tool: string;
  readonly why: PartialReason;
  /** With `why: 'incomplete'`: the tool's own reason (functions/engine/findings.ts, `incompleteDetail`). */
  readonly detail?: string;
}

/**
 * How an account's audit went: every check succeeded (`audited`), some failed
 * (`partial`), or none succeeded (`failed`: its findings are unknown).
 */
export type AccountStatus = 'audited' | 'partial' | 'failed';

/**
 * What a child execution returns per account (the `account_done` action), and
 * what `ResultWriter` keeps: at most {@link ACCOUNT_RECORD_MAX_BYTES} of JSON
 * (functions/engine/limits.ts), whatever the account holds.
 */
export interface AccountRecord extends AccountItem {
  readonly status: AccountStatus;
  /** Why the account failed, as a clause that reads after "because". */
  readonly reason?: string;
  /** Absent when the account failed: nothing was read. */
  readonly findings?: FindingsCounts;
  readonly failedChecks: readonly FailedCheck[];
  /**
   * Checks that succeeded but whose findings were read only in part (absent:
   * none): the account's findings and counts hold what was read, and the report
   * says they are partial. At most one entry per call of the level.
   */
  readonly partialFindings?: readonly PartialCheck[];
  /**
   * What the account's calls used, for the run summary's cost estimate
   * (functions/engine/summary.ts). Absent on an account whose child failed
   * before recording it: its calls are then not counted.
   */
  readonly usage?: AccountUsage;
}

/** An account's calls, as the run's estimate counts them: aligned with the level's `calls`. */
export interface AccountUsage {
  /** Each call's measured duration, in ms, in the level's call order. */
  readonly callMs: readonly number[];
  /** Calls whose Task failed and whose Catch wrote the result (one more state transition each). */
  readonly caught: number;
  /** Cost Explorer requests the calls reported (each is billed). */
  readonly costExplorerRequests: number;
}

/** A finding and the account it was found in. */
export interface OrgFinding extends TrackedFinding {
  readonly accountId: string;
}

/**
 * How an account went, from its calls' results: which checks failed, and when
 * all did, why in plain words (one reason, or each reason with its count).
 */
export function accountOutcome(
  results: readonly ToolResult[],
): Pick<AccountRecord, 'status' | 'reason' | 'failedChecks'> {
  const failedChecks = results.flatMap((result) =>
    result.ok ? [] : [{ tool: result.tool, code: result.error.code }],
  );
  if (failedChecks.length === 0) return { status: 'audited', failedChecks };
  if (failedChecks.length < results.length) return { status: 'partial', failedChecks };
  const byReason = new Map<string, number>();
  for (const check of failedChecks) {
    const reason = plainReason(check.code);
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  }
  const reason =
    byReason.size === 1
      ? [...byReason.keys()][0]
      : [...byReason.entries()].map(([why, count]) => `${count} checks because ${why}`).join('; ');
  return { status: 'failed', reason, failedChecks };
}

/** Severity, then monthly cost, then finding id, then account: the order of every report. */
export function compareOrgFindings(a: OrgFinding, b: OrgFinding): number {
  return (
    SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
    (b.monthlyCost?.usd ?? 0) - (a.monthlyCost?.usd ?? 0) ||
    compareText(a.id, b.id) ||
    compareText(a.accountId, b.accountId)
  );
}

/**
 * The organization's top findings so far with one more account's merged in,
 * ranked ({@link compareOrgFindings}) and cut at `limit`: accounts can be read
 * one at a time, never holding every account's findings at once.
 */
export function mergeTopFindings(
  top: readonly OrgFinding[],
  accountId: string,
  findings: readonly TrackedFinding[],
  limit: number,
): OrgFinding[] {
  return [...top, ...findings.map((finding) => ({ ...finding, accountId }))]
    .sort(compareOrgFindings)
    .slice(0, limit);
}

/** One account's line of the roll-up. */
export interface AccountRollUp extends AccountItem {
  readonly status: AccountStatus;
  readonly reason?: string;
  readonly findings: number;
  readonly bySeverity: Readonly<Record<string, number>>;
  /** Sum of the account's findings' monthly cost estimates, USD. */
  readonly monthlyWasteUsd: number;
  readonly new: number;
  readonly resolved: number;
  readonly unchanged: number;
  /** Tools whose checks failed, with the reason in plain words. */
  readonly failedChecks: readonly { readonly tool: string; readonly reason: string }[];
  /**
   * Tools whose findings were read only in part, with why in plain words: when
   * not empty, the account's `findings` (and the organization's totals) count
   * what was read, not everything the checks found.
   */
  readonly partialFindings: readonly { readonly tool: string; readonly reason: string }[];
}

/** The whole report, as `levels/<level>/organization.json` holds it. */
export interface OrgReport {
  readonly runId: string;
  /** The previous organization run compared against; absent on the first. */
  readonly previousRunId?: string;
  readonly accounts: {
    /** Accounts the selection named, audited or not. */
    readonly selected: number;
    /**
     * Accounts whose every check succeeded (status `audited`): not every account audited.
     * The report's text says "<audited + partial> audited (<partial> of them with failed checks)".
     */
    readonly audited: number;
    /** Accounts audited with some failed checks (status `partial`). */
    readonly partial: number;
    /** Accounts none of whose checks succeeded (status `failed`): their findings are unknown. */
    readonly failed: number;
    /** Accounts selected but never audited (suspended, closed, excluded, not found, not started). */
    readonly notAudited: number;
    /** Accounts (audited or partial) whose findings were read only in part ({@link AccountRollUp.partialFindings}). */
    readonly partialFindings: number;
  };
  readonly findings: {
    readonly total: number;
    readonly new: number;
    readonly resolved: number;
    readonly unchanged: number;
    readonly bySeverity: Readonly<Record<string, number>>;
    readonly monthlyWasteUsd: number;
  };
  /** Ranked across the organization, at most the limit the report was built with. */
  readonly top: readonly OrgFinding[];
  /** Every account with a record: worst severity first, then monthly waste, then account id. */
  readonly rollUp: readonly AccountRollUp[];
  /** Accounts whose every check failed, with why. */
  readonly failed: readonly { readonly accountId: string; readonly name: string; readonly reason: string }[];
  readonly notAudited: readonly NotAuditedAccount[];
}

const cents = (usd: number) => Math.round(usd * 100) / 100;

function rollUpOf(record: AccountRecord): AccountRollUp {
  const counts = record.findings;
  return {
    accountId: record.accountId,
    name: record.name,
    status: record.status,
    ...(record.reason ? { reason: record.reason } : {}),
    findings: counts?.total ?? 0,
    bySeverity: counts?.bySeverity ?? {},
    monthlyWasteUsd: counts?.estimatedMonthlyCostUsd ?? 0,
    new: counts?.new ?? 0,
    resolved: counts?.resolved ?? 0,
    unchanged: counts?.unchanged ?? 0,
    failedChecks: record.failedChecks.map((check) => ({
      tool: check.tool,
      reason: plainReason(check.code),
    })),
    partialFindings: (record.partialFindings ?? []).map((check) => ({
      tool: check.tool,
      reason: partialInWords(check.why, check.detail),
    })),
  };
}

/** Where an account's worst finding stands in {@link SEVERITIES} (5 for none). */
function worstSeverity(row: AccountRollUp): number {
  const index = SEVERITIES.findIndex((severity) => (row.bySeverity[severity] ?? 0) > 0);
  return index === -1 ? SEVERITIES.length : index;
}

/**
 * The organization report from every account's record, the accounts not
 * audited, and the organization's top findings ({@link mergeTopFindings}).
 * An account named twice (a retried child) counts once: its last record.
 */
export function buildOrgReport(input: {
  readonly runId: string;
  readonly previousRunId?: string;
  readonly records: readonly AccountRecord[];
  readonly notAudited: readonly NotAuditedAccount[];
  readonly top: readonly OrgFinding[];
}): OrgReport {
  const records = [...new Map(input.records.map((record) => [record.accountId, record])).values()];
  const rollUp = records
    .map(rollUpOf)
    .sort(
      (a, b) =>
        worstSeverity(a) - worstSeverity(b) ||
        b.monthlyWasteUsd - a.monthlyWasteUsd ||
        compareText(a.accountId, b.accountId),
    );
  const bySeverity: Record<string, number> = {};
  let total = 0;
  let waste = 0;
  let fresh = 0;
  let resolved = 0;
  let unchanged = 0;
  for (const row of rollUp) {
    total += row.findings;
    waste += row.monthlyWasteUsd;
    fresh += row.new;
    resolved += row.resolved;
    unchanged += row.unchanged;
    for (const [severity, count] of Object.entries(row.bySeverity)) {
      bySeverity[severity] = (bySeverity[severity] ?? 0) + count;
    }
  }
  const count = (status: AccountStatus) => records.filter((record) => record.status === status).length;
  return {
    runId: input.runId,
    ...(input.previousRunId ? { previousRunId: input.previousRunId } : {}),
    accounts: {
      selected: records.length + input.notAudited.length,
      audited: count('audited'),
      partial: count('partial'),
      failed: count('failed'),
      notAudited: input.notAudited.length,
      partialFindings: rollUp.filter((row) => row.partialFindings.length > 0).length,
    },
    findings: {
      total,
      new: fresh,
      resolved,
      unchanged,
      bySeverity,
      monthlyWasteUsd: cents(waste),
    },
    top: [...input.top].sort(compareOrgFindings),
    rollUp,
    failed: records
      .filter((record) => record.status === 'failed')
      .map((record) => ({
        accountId: record.accountId,
        name: record.name,
        reason: record.reason ?? plainReason('internal_error'),
      }))
      .sort((a, b) => compareText(a.accountId, b.accountId)),
    notAudited: [...input.notAudited].sort((a, b) => compareText(a.accountId, b.accountId)),
  };
}

/** Slack's limit on a section block's text, in characters (Slack API, "Section block"): the report's text stays within it. */
export const ORG_REPORT_TEXT_MAX_CHARS = 3000;

/** Findings, accounts and names listed in the Slack text; the rest are counted, and all are in the workspace. */
export const ORG_REPORT_LIST_LIMIT = 10;

/**
 * Longest account entry (name, id, reason) in the Slack text, in characters, when
 * the text with whole entries is over {@link ORG_REPORT_TEXT_MAX_CHARS}: the lists
 * then fit whatever the reasons. Entries are whole otherwise.
 */
const ORG_REPORT_ENTRY_MAX_CHARS = 140;

const accountLabel = (account: { accountId: string; name?: string }) =>
  account.name ? `${account.name} (${account.accountId})` : account.accountId;

function severityWords(bySeverity: Readonly<Record<string, number>>): string {
  const parts = SEVERITIES.filter((severity) => bySeverity[severity]).map(
    (severity) => `${bySeverity[severity]} ${severity}`,
  );
  return parts.length > 0 ? parts.join(', ') : 'none';
}

/**
 * The report as one Slack message (plain text, at most
 * {@link ORG_REPORT_TEXT_MAX_CHARS}): totals and what changed since the previous
 * organization run, the top findings with their account, the accounts with the
 * most waste, the failed and not-audited accounts with their reasons, and where
 * the full detail is.
 *
 * @param detailPath - the report's place in the run's workspace (`levels/<level>/organization.json`).
 * @param lead - a first line (why no account was audited), within the same limit.
 */
export function orgReportText(report: OrgReport, detailPath: string, lead?: string): string {
  const footer = `Full per-account detail: ${detailPath} in the run's workspace.`;
  const room = ORG_REPORT_TEXT_MAX_CHARS - footer.length - 1;
  // Entries whole when the text fits; cut (at a word) only when it would not; the text itself last.
  const body = (entryMax: number) => (lead ? `${lead}\n` : '') + orgReportBody(report, entryMax);
  let text = body(Number.POSITIVE_INFINITY);
  if (text.length > room) text = body(ORG_REPORT_ENTRY_MAX_CHARS);
  return `${cutAtWord(text, room)}\n${footer}`;
}

/**
 * The accounts' line of the report: `6 accounts: 3 audited (1 of them with failed
 * checks), 1 failed, 2 not audited`. "Audited" counts every account audited, with
 * failed checks or not (the JSON's `audited` + `partial`).
 */
export function accountsInWords(accounts: OrgReport['accounts']): string {
  return (
    `${accounts.audited + accounts.partial} audited (${accounts.partial} of them with failed checks), ` +
    `${accounts.failed} failed, ${accounts.notAudited} not audited`
  );
}

/** {@link orgReportText} without its footer, each listed entry at most `entryMax` characters (cut at a word). */
function orgReportBody(report: OrgReport, entryMax: number): string {
  const { accounts, findings } = report;
  const since = report.previousRunId
    ? `since the previous organization run (${report.previousRunId}): ${findings.new} new, ${findings.resolved} resolved, ${findings.unchanged} unchanged`
    : 'this is the first organization run, so every finding is new';
  const lines = [
    `${plural(accounts.selected, 'account')}: ${accountsInWords(accounts)}.`,
    `${plural(findings.total, 'finding')} (${severityWords(findings.bySeverity)}), estimated waste ~$${findings.monthlyWasteUsd.toFixed(2)}/month; ${since}.`,
  ];
  if (report.top.length > 0) {
    lines.push('Top findings:');
    for (const finding of report.top.slice(0, ORG_REPORT_LIST_LIMIT)) {
      const cost = finding.monthlyCost ? ` — ~$${finding.monthlyCost.usd.toFixed(2)}/month` : '';
      lines.push(
        `- ${finding.severity.toUpperCase()} ${finding.title} (account ${finding.accountId}, ${finding.region})${cost}`,
      );
    }
  }
  const changed = report.rollUp.filter((row) => row.new > 0 || row.resolved > 0);
  if (report.previousRunId && changed.length > 0) {
    lines.push(
      `Changed accounts: ${changed
        .slice(0, ORG_REPORT_LIST_LIMIT)
        .map((row) => `${accountLabel(row)} +${row.new}/-${row.resolved}`)
        .join(
          ', ',
        )}${changed.length > ORG_REPORT_LIST_LIMIT ? `, and ${changed.length - ORG_REPORT_LIST_LIMIT} more` : ''}.`,
    );
  }
  // A reason's own closing period is dropped: entries are joined by "; " and the list ends with one.
  const listed = (items: readonly string[]) =>
    items
      .slice(0, ORG_REPORT_LIST_LIMIT)
      .map((item) => cutAtWord(item.replace(/\.+$/, ''), entryMax))
      .join('; ') +
    (items.length > ORG_REPORT_LIST_LIMIT ? `; and ${items.length - ORG_REPORT_LIST_LIMIT} more` : '');
  if (report.failed.length > 0) {
    lines.push(
      `Failed accounts (not audited this run): ${listed(report.failed.map((a) => `${accountLabel(a)}: ${a.reason}`))}.`,
    );
  }
  const partial = report.rollUp.filter((row) => row.status === 'partial');
  if (partial.length > 0) {
    lines.push(
      `Accounts with failed checks: ${listed(
        partial.map(
          (row) => `${accountLabel(row)}: ${row.failedChecks.map((c) => toolInWords(c.tool)).join(', ')}`,
        ),
      )}.`,
    );
  }
  const incomplete = report.rollUp.filter((row) => row.partialFindings.length > 0);
  if (incomplete.length > 0) {
    lines.push(
      `Accounts whose findings are partial (counted as read): ${listed(
        incomplete.map(
          (row) =>
            `${accountLabel(row)}: ${row.partialFindings.map((c) => `${toolInWords(c.tool)} (${c.reason})`).join(', ')}`,
        ),
      )}.`,
    );
  }
  if (report.notAudited.length > 0) {
    lines.push(`Not audited: ${listed(report.notAudited.map((a) => `${accountLabel(a)}: ${a.reason}`))}.`);
  }
  return lines.join('\n');
}
