/**
 * The IAM credential report's CSV, typed. Columns and their special values are
 * those of the IAM User Guide, "Getting credential reports for your AWS account"
 * ("Understanding the report format").
 */
import { parse } from 'csv-parse/sync';
import { PlatformError } from '../../../runtime/errors';

/** The `user` of the row describing the account's root user. */
export const ROOT_USER = '<root_account>';

/**
 * Values a date cell holds when there is no date: `N/A` (never, or no such
 * credential), `no_information` (not used since IAM started tracking, October
 * 2014), `not_supported` (the column does not apply, e.g. the root user's password rotation).
 */
const NO_DATE = new Set(['N/A', 'no_information', 'not_supported']);

/** A date cell: `at` is ISO 8601, or null when the cell holds no date; `raw` is the cell as IAM wrote it. */
export interface ReportTimestamp {
  readonly at: string | null;
  readonly raw: string;
}

/** One access key slot of a row (`access_key_1_*`, `access_key_2_*`). */
export interface AccessKeyColumns {
  readonly slot: 1 | 2;
  readonly active: boolean;
  /** Creation or last rotation. `N/A` when the slot holds no key. */
  readonly lastRotated: ReportTimestamp;
  /** `N/A` when the key was never used. */
  readonly lastUsed: ReportTimestamp;
  readonly lastUsedRegion: string | null;
  readonly lastUsedService: string | null;
}

/** One row: an IAM user, or the root user ({@link ROOT_USER}). */
export interface CredentialReportRow {
  readonly user: string;
  readonly arn: string;
  /** The `<root_account>` row: the account's root user, not an IAM user. */
  readonly isRoot: boolean;
  readonly createdAt: ReportTimestamp;
  /** `password_enabled`; null when `not_supported` (the root row). */
  readonly passwordEnabled: boolean | null;
  readonly passwordLastUsed: ReportTimestamp;
  readonly mfaActive: boolean;
  readonly keys: readonly AccessKeyColumns[];
}

const REQUIRED_COLUMNS = [
  'user',
  'arn',
  'user_creation_time',
  'password_enabled',
  'password_last_used',
  'mfa_active',
  'access_key_1_active',
  'access_key_1_last_rotated',
  'access_key_1_last_used_date',
  'access_key_2_active',
  'access_key_2_last_rotated',
  'access_key_2_last_used_date',
] as const;

/** A date cell, keeping the raw text. Unparseable text is kept as raw with a null date, never thrown. */
export function reportTimestamp(cell: string | undefined): ReportTimestamp {
  const raw = (cell ?? '').trim();
  if (raw === '' || NO_DATE.has(raw)) return { at: null, raw };
  const time = Date.parse(raw);
  return { at: Number.isNaN(time) ? null : new Date(time).toISOString(), raw };
}

function bool(cell: string | undefined): boolean | null {
  const value = (cell ?? '').trim().toLowerCase();
  return value === 'true' ? true : value === 'false' ? false : null;
}

function text(cell: string | undefined): string | null {
  const value = (cell ?? '').trim();
  return value === '' || NO_DATE.has(value) ? null : value;
}

function accessKey(row: Record<string, string>, slot: 1 | 2): AccessKeyColumns {
  const column = (name: string) => row[`access_key_${slot}_${name}`];
  return {
    slot,
    active: bool(column('active')) === true,
    lastRotated: reportTimestamp(column('last_rotated')),
    lastUsed: reportTimestamp(column('last_used_date')),
    lastUsedRegion: text(column('last_used_region')),
    lastUsedService: text(column('last_used_service')),
  };
}

/**
 * Parses the report's CSV (header row first).
 *
 * @throws PlatformError (`upstream_error`) when the CSV is malformed or lacks a
 *   column the checks read (the list of missing columns is in the message).
 * @example
 * parseCredentialReport('user,arn,…\n<root_account>,arn:aws:iam::123456789012:root,…')[0].isRoot // true
 */
export function parseCredentialReport(csv: string): CredentialReportRow[] {
  let records: Record<string, string>[];
  try {
    records = parse<Record<string, string>>(csv, { columns: true, skip_empty_lines: true, bom: true });
  } catch (err) {
    throw new PlatformError('upstream_error', 'The IAM credential report is not valid CSV', {
      service: 'iam',
      cause: err,
    });
  }
  const header = records[0] ? Object.keys(records[0]) : [];
  const missing = records.length === 0 ? [] : REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new PlatformError(
      'upstream_error',
      `The IAM credential report lacks columns: ${missing.join(', ')}`,
      { service: 'iam' },
    );
  }
  return records.map((row) => ({
    user: row.user ?? '',
    arn: row.arn ?? '',
    isRoot: row.user === ROOT_USER,
    createdAt: reportTimestamp(row.user_creation_time),
    passwordEnabled: bool(row.password_enabled),
    passwordLastUsed: reportTimestamp(row.password_last_used),
    mfaActive: bool(row.mfa_active) === true,
    keys: [accessKey(row, 1), accessKey(row, 2)],
  }));
}
