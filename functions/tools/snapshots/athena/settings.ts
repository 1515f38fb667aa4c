/**
 * The settings of the snapshot tools' Athena route (docs/snapshot-tools.md,
 * "Athena route"), read from the tool function's environment, every one checked
 * before any remote call:
 *
 * - `ETP_ATHENA_ROUTE`: `auto` (default: reports of at least the threshold's
 *   bytes, and any report the single function finds too large, go to Athena),
 *   `off` (never; a too-large report stays `limit_exceeded`) or `always`;
 * - `ETP_ATHENA_WORKGROUP` (default {@link DEFAULT_WORKGROUP}) and
 *   `ETP_ATHENA_DATABASE` (default {@link DEFAULT_DATABASE}): the workgroup and
 *   Glue database CustomerAccessStack creates in the customer's account. The
 *   customer role is granted only names starting `etp-` / `etp_`, so others are refused;
 * - `ETP_ATHENA_MIN_REPORT_BYTES` (default {@link DEFAULT_MIN_REPORT_BYTES}):
 *   the data-file bytes (both reports' manifests summed) from which a call goes to Athena.
 */
import { PlatformError } from '../../../runtime/errors';

/** The workspace folder of the route's answers (ToolSpec.workspaceAccess of the two tools; answers.ts). */
export const ATHENA_ANSWERS_PATH = 'snapshots/athena/';

/**
 * The name of one call's answer file in {@link ATHENA_ANSWERS_PATH}:
 * `<tool>-<report time>.json` (`snapshot_stats`), `<tool>-<a>-<b>.json`
 * (`diff_snapshots`); report times as S3 Inventory names their folders
 * (`2026-03-10T01-00Z`).
 */
export function athenaAnswerFile(tool: string, reportTimes: readonly string[]): string {
  return `${[tool, ...reportTimes].join('-')}.json`;
}

/**
 * The workspace files a tool's answers may take, as its spec's `workspaceAccess`
 * paths (an IAM wildcard, which the run-data session policy keeps as written:
 * functions/runtime/run-data-sessions.ts): `snapshots/athena/<tool>-*.json`, so
 * a call's vended session reaches that tool's answers of its own run only.
 */
export function athenaAnswerPaths(tool: string): string[] {
  return [`${ATHENA_ANSWERS_PATH}${tool}-*.json`];
}

/** The workgroup CustomerAccessStack creates (Athena managed query results, its settings enforced). */
export const DEFAULT_WORKGROUP = 'etp-snapshots';
/** The Glue database CustomerAccessStack creates for the inventory tables. */
export const DEFAULT_DATABASE = 'etp_snapshots';
/**
 * 2 GiB of data files. The bench's Parquet reports take about 30 bytes per
 * object (bench/snapshots-athena.ts: 3.0 MB for 2 × 50,000 objects), so 2 GiB is
 * about 70 million rows for the call (one report, or both of a comparison):
 * about 240 s at the measured 300,000 rows/s, within the 600 s of one function
 * (CSV.gz takes more bytes per object, so fewer rows). A comparison whose older
 * report still passes the index's 50-million-object cap (`MAX_INDEX_OBJECTS`)
 * moves to Athena on the single path's `IndexFullError`.
 */
export const DEFAULT_MIN_REPORT_BYTES = 2 * 1024 ** 3;

/** Which route a call may take. */
export type AthenaRouteMode = 'auto' | 'off' | 'always';

/** The checked settings. */
export interface AthenaRouteSettings {
  readonly mode: AthenaRouteMode;
  /** Athena workgroup: `etp-` and 1-124 letters, digits, `.`, `_`, `-` (Athena API Reference, "WorkGroup": 1-128 of those). */
  readonly workGroup: string;
  /** Glue database: `etp_` and 1-251 lower-case letters, digits or `_` (Glue: 1-255 characters). */
  readonly database: string;
  /** Bytes of data files from which a call goes to Athena (`auto`). */
  readonly minReportBytes: number;
}

const WORK_GROUP = /^etp-[A-Za-z0-9._-]{1,124}$/;
const DATABASE = /^etp_[a-z0-9_]{1,251}$/;

function refuse(name: string, value: string, accepted: string): PlatformError {
  return new PlatformError(
    'internal_error',
    `Setting ${name}=${JSON.stringify(value)} is not valid: ${accepted}`,
    {
      details: { setting: name },
    },
  );
}

/**
 * The Athena route's settings from `env`.
 *
 * @throws PlatformError (`internal_error`, naming the variable, its value and what is accepted) for a bad one.
 */
export function athenaRouteSettings(env: NodeJS.ProcessEnv = process.env): AthenaRouteSettings {
  const mode = env.ETP_ATHENA_ROUTE ?? 'auto';
  if (mode !== 'auto' && mode !== 'off' && mode !== 'always') {
    throw refuse('ETP_ATHENA_ROUTE', mode, 'auto, off or always');
  }
  const workGroup = env.ETP_ATHENA_WORKGROUP ?? DEFAULT_WORKGROUP;
  if (!WORK_GROUP.test(workGroup)) {
    throw refuse(
      'ETP_ATHENA_WORKGROUP',
      workGroup,
      'an Athena workgroup name starting etp- (the customer role may use only those), 5-128 letters, digits, . _ -',
    );
  }
  const database = env.ETP_ATHENA_DATABASE ?? DEFAULT_DATABASE;
  if (!DATABASE.test(database)) {
    throw refuse(
      'ETP_ATHENA_DATABASE',
      database,
      'a Glue database name starting etp_ (the customer role may use only those), 5-255 lower-case letters, digits or _',
    );
  }
  const bytesText = env.ETP_ATHENA_MIN_REPORT_BYTES ?? String(DEFAULT_MIN_REPORT_BYTES);
  const minReportBytes = Number(bytesText);
  if (!/^\d{1,16}$/.test(bytesText) || !Number.isSafeInteger(minReportBytes) || minReportBytes < 1) {
    throw refuse('ETP_ATHENA_MIN_REPORT_BYTES', bytesText, 'a whole number of bytes, at least 1');
  }
  return { mode, workGroup, database, minReportBytes };
}

/** How the Athena route answered: the engine's figures of a call (or of one scanned source). */
export interface AthenaRouteHead {
  readonly engine: 'athena';
  readonly reason: string;
  readonly workGroup: string;
  readonly database: string;
  readonly table: string;
  readonly queryExecutionIds: string[];
  /** Bytes Athena scanned (what it bills). */
  readonly dataScannedBytes: number;
  /** Athena API requests: table creation, starts, polls, result pages. */
  readonly requests: number;
  /** USD at `ATHENA_USD_PER_BYTE` (route.ts), 10 MB minimum per query; DDL is free. */
  readonly estimatedUsd: number;
}
