import { IAMClient } from '@aws-sdk/client-iam';
import { awsClientConfig } from '../../runtime/aws/client-config';
import type { Deadline } from '../../runtime/deadline';
import { PlatformError } from '../../runtime/errors';
import { normalizeError } from '../../runtime/normalize-error';
import type { ToolErrorInfo } from '../../runtime/result';
import { defineTool } from '../../runtime/spec';
import { compareText, plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import {
  type AccessKeyReport,
  accessKeyReports,
  type CredentialThresholds,
  daysSince,
  lastActivity,
  rootFindings,
  userFindings,
} from './iam/credential-findings';
import { fetchCredentialReport } from './iam/credential-report';
import {
  type CredentialReportRow,
  parseCredentialReport,
  type ReportTimestamp,
} from './iam/credential-report-csv';
import {
  type AccountPasswordPolicy,
  PASSWORD_POLICY_UNKNOWN,
  passwordPolicyFindings,
  readPasswordPolicy,
} from './iam/password-policy';
import {
  type AccountSummaryFacts,
  type OrganizationFacts,
  type RootMfaVerdict,
  readAccountSummary,
  readOrganizationFeatures,
  rootMfaFindings,
  rootMfaVerdict,
} from './iam/root-credentials';
import { iamAuditSpec } from './iam-audit.meta';
import { callerAccount } from './shared/account';
import { type Finding, type FindingsSummary, summarizeFindings, worstSeverityRank } from './shared/findings';

/** An IAM user with findings, as the audit lists it. Field names stay clear of redaction (`keys`, not access keys). */
export interface UserReport {
  readonly user: string;
  readonly arn: string;
  /** Console sign-in allowed. */
  readonly passwordEnabled: boolean | null;
  readonly mfaActive: boolean;
  readonly passwordLastUsed: ReportTimestamp;
  readonly keys: AccessKeyReport[];
  /** The checks that fired for this user. */
  readonly checks: string[];
}

/** The root user, from the report's `<root_account>` row. */
export interface RootReport {
  readonly arn: string;
  readonly mfaActive: boolean;
  readonly passwordLastUsed: ReportTimestamp;
  readonly keys: AccessKeyReport[];
  /** Latest console sign-in or key use, ISO 8601. */
  readonly lastUsedAt: string | null;
  readonly daysSinceLastUse: number | null;
}

/** What `aws_iam_audit` returns. */
export interface IamAuditValue {
  readonly accountId: string;
  /**
   * The report's state: `complete` with when IAM generated it (and rows listed
   * twice for the same ARN, counted once), or `unavailable` with why (`timeout`: retry shortly).
   */
  readonly credentialReport:
    | {
        readonly status: 'complete';
        readonly generatedAt: string | null;
        readonly requests: number;
        readonly duplicateRows: number;
      }
    | { readonly status: 'unavailable'; readonly error: ToolErrorInfo };
  /** Null when the credential report is unavailable. */
  readonly root: RootReport | null;
  /**
   * Whether the root-user MFA control passes, fails or does not apply, from the
   * live account summary, the organization's centralized root access and the
   * report (see `root-credentials.ts`).
   */
  readonly rootMfa: RootMfaVerdict;
  /** GetAccountSummary's root flags, or why they could not be read. */
  readonly accountSummary: AccountSummaryFacts;
  /** The account's place in AWS Organizations' centralized root access. */
  readonly organization: OrganizationFacts;
  /** IAM users (the root user not counted). */
  readonly users: number;
  readonly consoleUsers: number;
  readonly consoleUsersWithoutMfa: number;
  readonly usersWithActiveKeys: number;
  readonly activeKeys: number;
  /** The first topN users with findings, worst first. */
  readonly usersWithFindings: UserReport[];
  readonly passwordPolicy: AccountPasswordPolicy;
  readonly findings: FindingsSummary;
}

type ReportOutcome =
  | {
      readonly ok: true;
      readonly rows: CredentialReportRow[];
      readonly generatedAt: string | null;
      readonly requests: number;
    }
  | { readonly ok: false; readonly error: ToolErrorInfo };

async function readCredentialReport(
  iam: IAMClient,
  deadline: Deadline,
  describeError: (err: unknown) => ToolErrorInfo,
): Promise<ReportOutcome> {
  try {
    const fetched = await fetchCredentialReport(iam, { deadline });
    return {
      ok: true,
      rows: parseCredentialReport(fetched.csv),
      generatedAt: fetched.generatedAt,
      requests: fetched.requests,
    };
  } catch (err) {
    return { ok: false, error: describeError(err) };
  }
}

/**
 * The error of an audit that read nothing: neither the credential report nor the
 * password policy. Their shared code (both `access_denied`…), else
 * `upstream_error`; retryable when either is (a report not ready in time is).
 */
function nothingRead(report: ToolErrorInfo, policy: ToolErrorInfo): PlatformError {
  return new PlatformError(
    report.code === policy.code ? report.code : 'upstream_error',
    `Nothing of IAM could be read: credential report (${report.code}: ${report.message}); ` +
      `password policy (${policy.code}: ${policy.message})`,
    {
      retryable: report.retryable || policy.retryable,
      service: 'iam',
      details: { credentialReport: report, passwordPolicy: policy },
    },
  );
}

/** `aws_iam_audit` with its handler. */
export const iamAuditTool = defineTool(iamAuditSpec, async (ctx, args) => {
  const access = await ctx.aws();
  // Fails the call once with auth_failed when the credentials are bad.
  const { accountId, partition } = await callerAccount(access);
  const accountArn = `arn:${partition}:iam::${accountId}:root`;
  const describeError = (err: unknown) => normalizeError(ctx.tool, err, 'iam');
  // IAM is global: the SDK sends every region's requests to the partition's IAM endpoint.
  const iam = new IAMClient(awsClientConfig(access));
  const [report, passwordPolicy, accountSummary, organization] = await Promise.all([
    readCredentialReport(iam, ctx.deadline, describeError),
    readPasswordPolicy(iam).catch(
      (err): AccountPasswordPolicy => ({ ...PASSWORD_POLICY_UNKNOWN, error: describeError(err) }),
    ),
    readAccountSummary(iam, describeError),
    readOrganizationFeatures(iam, describeError),
  ]);

  if (!report.ok && passwordPolicy.error) throw nothingRead(report.error, passwordPolicy.error);

  const thresholds: CredentialThresholds = {
    keyMaxAgeDays: args.keyMaxAgeDays,
    unusedDays: args.unusedDays,
    rootUsageDays: args.rootUsageDays,
    now: Date.now(),
  };
  // The same ARN twice in a report is one user: counted and judged once.
  const seenArns = new Set<string>();
  const rows = (report.ok ? report.rows : []).filter(
    (r) => !seenArns.has(r.arn) && Boolean(seenArns.add(r.arn)),
  );
  const duplicateRows = (report.ok ? report.rows.length : 0) - rows.length;
  const consoleUsers = report.ok ? rows.filter((r) => !r.isRoot && r.passwordEnabled === true).length : null;
  const rootRow = rows.find((r) => r.isRoot) ?? null;
  const rootMfa = rootMfaVerdict(rootRow, accountSummary, organization);
  const findings: Finding[] = [
    ...passwordPolicyFindings(passwordPolicy, accountArn, accountId, consoleUsers),
    ...rootMfaFindings(rootMfa, rootRow?.arn ?? accountArn, accountId),
  ];
  const users: { report: UserReport; worst: number }[] = [];
  const counts = {
    users: 0,
    consoleUsers: 0,
    consoleUsersWithoutMfa: 0,
    usersWithActiveKeys: 0,
    activeKeys: 0,
  };
  let root: RootReport | null = null;
  for (const row of rows) {
    const keys = accessKeyReports(row, thresholds.now);
    if (row.isRoot) {
      const lastUsedAt = lastActivity(row);
      root = {
        arn: row.arn,
        mfaActive: row.mfaActive,
        passwordLastUsed: row.passwordLastUsed,
        keys,
        lastUsedAt,
        daysSinceLastUse: daysSince(lastUsedAt, thresholds.now),
      };
      findings.push(...rootFindings(row, thresholds, accountId));
      continue;
    }
    const active = keys.filter((k) => k.status === 'active').length;
    counts.users++;
    counts.activeKeys += active;
    if (active > 0) counts.usersWithActiveKeys++;
    if (row.passwordEnabled) counts.consoleUsers++;
    if (row.passwordEnabled && !row.mfaActive) counts.consoleUsersWithoutMfa++;
    const own = userFindings(row, thresholds, accountId);
    findings.push(...own);
    if (own.length === 0) continue;
    users.push({
      worst: worstSeverityRank(own),
      report: {
        user: row.user,
        arn: row.arn,
        passwordEnabled: row.passwordEnabled,
        mfaActive: row.mfaActive,
        passwordLastUsed: row.passwordLastUsed,
        keys,
        checks: [...new Set(own.map((f) => f.check))],
      },
    });
  }

  const summary = summarizeFindings(findings, args.topN);
  const rootState =
    rootMfa.verdict === 'pass'
      ? 'root MFA on'
      : rootMfa.verdict === 'not_applicable'
        ? 'root has no credentials (MFA not applicable)'
        : rootMfa.verdict === 'unknown'
          ? 'root MFA unknown'
          : 'root MFA OFF';
  const value: IamAuditValue = {
    accountId,
    credentialReport: report.ok
      ? { status: 'complete', generatedAt: report.generatedAt, requests: report.requests, duplicateRows }
      : { status: 'unavailable', error: report.error },
    root,
    rootMfa,
    accountSummary,
    organization,
    ...counts,
    usersWithFindings: users
      .sort((a, b) => a.worst - b.worst || compareText(a.report.user, b.report.user))
      .slice(0, args.topN)
      .map((u) => u.report),
    passwordPolicy,
    findings: summary,
  };
  return {
    value,
    truncated: !report.ok && report.error.code === 'timeout',
    summary:
      (report.ok
        ? `${plural(counts.users, 'IAM user')} (${counts.consoleUsersWithoutMfa} of ` +
          `${counts.consoleUsers} console users without MFA, ${counts.activeKeys} active keys), ${rootState}`
        : `IAM credential report unavailable (${report.error.code}), ${rootState}`) +
      `${passwordPolicy.error ? `; password policy unknown (${passwordPolicy.error.code})` : ''}` +
      `; ${plural(summary.total, 'finding')} (${summary.bySeverity.critical} critical, ` +
      `${summary.bySeverity.high} high)`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(iamAuditTool);
