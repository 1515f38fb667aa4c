/**
 * Checks over credential report rows. Severities follow Prowler's IAM checks and
 * the CIS AWS Foundations Benchmark (1.4 no root access keys, 1.5/1.6 root MFA,
 * 1.7 avoid root use, 1.10 MFA for console users, 1.12 credentials unused 45+
 * days, 1.14 keys rotated every 90 days).
 */

import { plural } from '../../../runtime/text';
import { accountFinding } from '../shared/account';
import type { Finding, Severity } from '../shared/findings';
import type { AccessKeyColumns, CredentialReportRow, ReportTimestamp } from './credential-report-csv';

const DAY_MS = 86_400_000;

/**
 * When IAM began recording access key use: a key's `access_key_<n>_last_used_date`
 * is `N/A` when it "has not been used since IAM began tracking this information on
 * April 22, 2015" (IAM API reference, "AccessKeyLastUsed"; IAM User Guide,
 * "Getting credential reports"). An `N/A` key created before then may have been
 * used before it: no use is recorded, which is not "never used".
 */
export const KEY_USE_TRACKED_SINCE = '2015-04-22T00:00:00.000Z';

/** Thresholds of the checks, in days, and the time they are measured from. */
export interface CredentialThresholds {
  /** Active keys not rotated for more days are findings. */
  readonly keyMaxAgeDays: number;
  /** Active keys not used for more days are findings. */
  readonly unusedDays: number;
  /** Root use within this many days is a finding. */
  readonly rootUsageDays: number;
  /** Epoch ms. */
  readonly now: number;
}

/** Whole days from `at` to `now`; null without a date. */
export function daysSince(at: string | null, now: number): number | null {
  return at === null ? null : Math.floor((now - Date.parse(at)) / DAY_MS);
}

/** A key slot holds a key when it is active or has a creation date (`N/A` means empty). */
function holdsKey(key: AccessKeyColumns): boolean {
  return key.active || key.lastRotated.at !== null;
}

/** One access key as the audit reports it: no key id (the report has none), nothing secret. */
export interface AccessKeyReport {
  readonly slot: 1 | 2;
  readonly status: 'active' | 'inactive';
  /** Days since creation or last rotation. */
  readonly ageDays: number | null;
  readonly lastRotated: ReportTimestamp;
  readonly lastUsed: ReportTimestamp;
  readonly lastUsedService: string | null;
}

/** The keys a row holds. */
export function accessKeyReports(row: CredentialReportRow, now: number): AccessKeyReport[] {
  return row.keys.filter(holdsKey).map((key) => ({
    slot: key.slot,
    status: key.active ? 'active' : 'inactive',
    ageDays: daysSince(key.lastRotated.at, now),
    lastRotated: key.lastRotated,
    lastUsed: key.lastUsed,
    lastUsedService: key.lastUsedService,
  }));
}

/** The latest of the row's console sign-in and key uses, ISO 8601; null if none is known. */
export function lastActivity(row: CredentialReportRow): string | null {
  const dates = [row.passwordLastUsed.at, ...row.keys.map((k) => k.lastUsed.at)].filter(
    (d): d is string => d !== null,
  );
  return dates.sort().at(-1) ?? null; // ISO 8601 UTC strings sort as time
}

/** The findings of one credential report row of account `accountId`, judged against `thresholds`. */
type RowFindings = (
  row: CredentialReportRow,
  thresholds: CredentialThresholds,
  accountId: string,
) => Finding[];

/** Findings of IAM are account-wide: region `global`. */
function builder(accountId: string) {
  return (
    check: string,
    severity: Severity,
    resource: string,
    title: string,
    details?: Record<string, unknown>,
  ): Finding =>
    accountFinding(accountId, {
      check,
      severity,
      resource,
      region: 'global',
      title,
      ...(details ? { details } : {}),
    });
}

/**
 * Findings on the root row: `iam_root_key_present` (critical when active,
 * medium when inactive), `iam_root_used_recently` (high: console sign-in or key
 * use within `rootUsageDays`). Root MFA is judged apart, with the facts that
 * decide whether it applies (`root-credentials.ts`).
 */
export const rootFindings: RowFindings = (row, thresholds, accountId) => {
  const finding = builder(accountId);
  const findings: Finding[] = [];
  for (const key of row.keys.filter(holdsKey)) {
    findings.push(
      finding(
        'iam_root_key_present',
        key.active ? 'critical' : 'medium',
        `${row.arn}#key${key.slot}`,
        `The root user has ${key.active ? 'an active' : 'an inactive'} access key (slot ${key.slot})`,
        { slot: key.slot, active: key.active, lastUsedAt: key.lastUsed.at },
      ),
    );
  }
  const last = lastActivity(row);
  const days = daysSince(last, thresholds.now);
  if (days !== null && days <= thresholds.rootUsageDays) {
    findings.push(
      finding(
        'iam_root_used_recently',
        'high',
        row.arn,
        `The root user was used ${plural(days, 'day')} ago`,
        { lastUsedAt: last, withinDays: thresholds.rootUsageDays },
      ),
    );
  }
  return findings;
};

/**
 * Findings on an IAM user's row (resource: the user's ARN; for keys
 * `<arn>#key1`/`#key2`, the report naming slots, not key ids):
 * `iam_user_console_without_mfa` (high), and for each active key
 * `iam_user_key_not_rotated` (medium, not rotated for more than `keyMaxAgeDays`),
 * `iam_user_key_unused` (medium, last used more than `unusedDays` ago),
 * `iam_user_key_never_used` (low; for a key older than {@link KEY_USE_TRACKED_SINCE},
 * "no recorded use since IAM began tracking", since it may have been used before).
 */
export const userFindings: RowFindings = (row, thresholds, accountId) => {
  const finding = builder(accountId);
  const findings: Finding[] = [];
  if (row.passwordEnabled === true && !row.mfaActive) {
    findings.push(
      finding(
        'iam_user_console_without_mfa',
        'high',
        row.arn,
        `IAM user ${row.user} can sign in to the console without MFA`,
      ),
    );
  }
  for (const key of row.keys.filter((k) => k.active)) {
    const resource = `${row.arn}#key${key.slot}`;
    const age = daysSince(key.lastRotated.at, thresholds.now);
    if (age !== null && age > thresholds.keyMaxAgeDays) {
      findings.push(
        finding(
          'iam_user_key_not_rotated',
          'medium',
          resource,
          `Access key ${key.slot} of IAM user ${row.user} is ${age} days old`,
          { slot: key.slot, ageDays: age, maxAgeDays: thresholds.keyMaxAgeDays },
        ),
      );
    }
    const idle = daysSince(key.lastUsed.at, thresholds.now);
    if (idle === null) {
      // A key older than IAM's tracking of key use may have been used before it began.
      const olderThanTracking = key.lastRotated.at !== null && key.lastRotated.at < KEY_USE_TRACKED_SINCE;
      findings.push(
        finding(
          'iam_user_key_never_used',
          'low',
          resource,
          olderThanTracking
            ? `Access key ${key.slot} of IAM user ${row.user} is active and has no recorded use since IAM began tracking key use on ${KEY_USE_TRACKED_SINCE.slice(0, 10)} (the key is older)`
            : `Access key ${key.slot} of IAM user ${row.user} is active and was never used`,
          {
            slot: key.slot,
            ageDays: age,
            lastUsed: key.lastUsed.raw,
            ...(olderThanTracking ? { useTrackedSince: KEY_USE_TRACKED_SINCE.slice(0, 10) } : {}),
          },
        ),
      );
    } else if (idle > thresholds.unusedDays) {
      findings.push(
        finding(
          'iam_user_key_unused',
          'medium',
          resource,
          `Access key ${key.slot} of IAM user ${row.user} was last used ${idle} days ago`,
          { slot: key.slot, unusedDays: idle, thresholdDays: thresholds.unusedDays },
        ),
      );
    }
  }
  return findings;
};
