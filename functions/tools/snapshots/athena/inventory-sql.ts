/**
 * The SQL of the snapshot tools' Athena route (issue 22): the same figures as
 * the single-function path (s3-inventory.ts) — objects, bytes, delete markers,
 * files and bytes by extension, added / changed / unchanged / removed — over
 * the S3 Inventory table of the S3 User Guide, "Querying Amazon S3 Inventory
 * with Amazon Athena": one table per report layout, `PARTITIONED BY (dt string)`,
 * stored as `org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat` with its
 * LOCATION at `<base>hive/`, where S3 writes `hive/dt=YYYY-MM-DD-HH-MM/symlink.txt`
 * listing each report's data files; `dt` is projected (`projection.dt.type = date`,
 * format `yyyy-MM-dd-HH-mm`), so no `MSCK REPAIR` is needed.
 *
 * Every text that goes into a statement is validated first against the naming
 * rules it must follow (S3 bucket names, Glue names, report times; a field name
 * only when it is one of {@link INVENTORY_COLUMN_TYPES}, any other declared by
 * position, {@link unknownFieldColumn}), so no input can end a literal or an identifier: there is no
 * escaping, only refusal. The same query text runs on Athena (Trino) and on
 * DuckDB (test/helpers/duckdb-inventory.ts): it uses only functions both have
 * with the same meaning (`regexp_extract`, `url_decode`, `replace`, `try_cast`,
 * `lower`, `coalesce`, `nullif`, `IS DISTINCT FROM`).
 */
import { createHash } from 'node:crypto';
import { InvalidArgsError, PlatformError } from '../../../runtime/errors';
import { RANSOM_NOTE_PATTERNS } from '../findings/ransomware';
import { REPORT_TIME } from '../ids';
import type { InventoryManifest } from '../inventory/manifest';

/**
 * S3 Inventory fields by their Athena column names, with the column types of the
 * S3 User Guide's ORC template ("Querying Amazon S3 Inventory with Amazon
 * Athena"; its Parquet table is the ORC one with the Parquet SerDe):
 * `last_modified_date` and `lifecycle_expiration_date` `timestamp` (the reports
 * store ORC `timestamp` and Parquet `INT64 TIMESTAMP(MILLIS)`, which Athena
 * checks against the declared type), `size` and `object_lock_retain_until_date`
 * `bigint` (as the template has them; the queries never read the latter),
 * flags `boolean`, the rest `string`.
 */
export const INVENTORY_COLUMN_TYPES: Readonly<Record<string, string>> = {
  bucket: 'string',
  key: 'string',
  version_id: 'string',
  is_latest: 'boolean',
  is_delete_marker: 'boolean',
  size: 'bigint',
  last_modified_date: 'timestamp',
  e_tag: 'string',
  storage_class: 'string',
  is_multipart_uploaded: 'boolean',
  replication_status: 'string',
  encryption_status: 'string',
  object_lock_retain_until_date: 'bigint',
  object_lock_mode: 'string',
  object_lock_legal_hold_status: 'string',
  intelligent_tiering_access_tier: 'string',
  bucket_key_status: 'string',
  checksum_algorithm: 'string',
  object_access_control_list: 'string',
  object_owner: 'string',
  lifecycle_expiration_date: 'timestamp',
};

/**
 * The columns the Guide's CSV template does not declare `string`: its three
 * flags stay `boolean` (OpenCSVSerDe reads `true`/`false`); `size` and the
 * times are `string` there, and the query casts.
 */
const CSV_BOOLEAN_COLUMNS: ReadonlySet<string> = new Set([
  'is_latest',
  'is_delete_marker',
  'is_multipart_uploaded',
]);

/**
 * The column a field the tools do not know (not in {@link INVENTORY_COLUMN_TYPES})
 * is declared as: `unknown_field_<position from 1>`, `string`. S3 adds optional
 * fields over time (S3 User Guide, "Amazon S3 Inventory list": ChecksumAlgorithm,
 * ObjectAccessControlList, ObjectOwner, LifecycleExpirationDate came later), and
 * a manifest may name one in any way (`Object-Lock`, `Größe`, `2ndField`, or `Dt`,
 * which would meet the table's partition column `dt`). The queries never read
 * such a column, so its name does not matter: OpenCSVSerDe reads CSV columns by
 * position, and a Parquet or ORC column of that name is absent (read as NULL)
 * or, read by index, a string never used. So every report with a new field
 * stays readable on the route as on the single-function path, and no manifest
 * text goes into the statement as an identifier.
 */
export function unknownFieldColumn(position: number): string {
  return `unknown_field_${position}`;
}

/**
 * The columns a layout's table declares, in file order: each of the manifest's
 * (snake_case) fields in {@link INVENTORY_COLUMN_TYPES} under its own name, any
 * other under {@link unknownFieldColumn} of its position.
 *
 * @example tableColumns(['bucket', 'key', 'size', 'object-lock']) // ['bucket', 'key', 'size', 'unknown_field_4']
 */
export function tableColumns(columns: readonly string[]): string[] {
  return columns.map((column, index) =>
    Object.hasOwn(INVENTORY_COLUMN_TYPES, column) ? column : unknownFieldColumn(index + 1),
  );
}

/** A column's type in the table of `format` (S3 User Guide templates); `string` for an {@link unknownFieldColumn}. */
export function columnType(format: AthenaInventoryFormat, column: string): string {
  if (format !== 'CSV') return INVENTORY_COLUMN_TYPES[column] ?? 'string';
  return CSV_BOOLEAN_COLUMNS.has(column) ? 'boolean' : 'string';
}

/** Inventory formats Athena reads (S3 User Guide: "Apache ORC, Apache Parquet, or CSV"). */
export type AthenaInventoryFormat = 'CSV' | 'Parquet' | 'ORC';

/** Where a configuration's inventory table is, validated. */
export interface InventoryTableRef {
  /** Glue database: lower-case letters, digits and `_`, 1-255 characters (Glue "Database" naming). */
  readonly database: string;
  /** Glue table, same rules. */
  readonly table: string;
}

/** What the stats and diff query compares (from both manifests' schemas, as `diffContext`). */
export interface QueryComparison {
  readonly compareLastModified: boolean;
  readonly compareETag: boolean;
  readonly useVersionIds: boolean;
}

const GLUE_NAME = /^[a-z0-9_]{1,255}$/;
/** S3 bucket naming rules (S3 User Guide, "General purpose bucket naming rules"). */
const BUCKET_NAME =
  /^(?!xn--|sthree-|amzn-s3-demo-)(?!.*(?:-s3alias|--ol-s3|\.mrap|--x-s3)$)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/**
 * A key prefix made of the S3 User Guide's "safe characters" (letters, digits,
 * `!-_.*()/`) without `'`, which would end an SQL literal: refused, not escaped.
 */
const SAFE_PREFIX = /^[A-Za-z0-9!\-_.*()/]{0,900}$/;

function invalid(field: string, value: string, accepted: string): PlatformError {
  return new InvalidArgsError(`${field} ${JSON.stringify(value)} is not valid: ${accepted}`, {
    details: { field },
  });
}

/**
 * A Glue database or table name, checked.
 *
 * @throws InvalidArgsError naming the rule.
 */
export function glueName(field: string, value: string): string {
  if (!GLUE_NAME.test(value)) {
    throw invalid(field, value, 'Glue names are 1-255 lower-case letters, digits or underscores');
  }
  return value;
}

/**
 * A bucket name, checked against the S3 naming rules.
 *
 * @throws InvalidArgsError.
 */
export function bucketName(field: string, value: string): string {
  if (!BUCKET_NAME.test(value) || value.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(value)) {
    throw invalid(field, value, 'S3 bucket names are 3-63 lower-case letters, digits, dots and hyphens');
  }
  return value;
}

/**
 * A key prefix, checked (S3 "safe characters" only, `'` excluded).
 *
 * @throws InvalidArgsError.
 */
export function safePrefix(field: string, value: string): string {
  if (!SAFE_PREFIX.test(value)) {
    throw invalid(field, value, "S3 safe characters only (letters, digits, ! - _ . * ( ) /), no '");
  }
  return value;
}

/**
 * The `dt` partition value of a report time: `2026-03-01T01-00Z` → `2026-03-01-01-00`
 * (the `hive/dt=YYYY-MM-DD-HH-MM/` folder S3 writes beside the report).
 *
 * @throws InvalidArgsError for anything else than `YYYY-MM-DDTHH-MMZ`, and for a
 * time before {@link PROJECTION_START}: Athena projects no partition there, and a
 * value beyond the range returns zero rows, not an error (Athena User Guide,
 * "Use partition projection", "Considerations and limitations").
 */
export function partitionOf(reportTime: string): string {
  if (!REPORT_TIME.test(reportTime)) {
    throw invalid('report time', reportTime, 'YYYY-MM-DDTHH-MMZ, as S3 Inventory names report folders');
  }
  const dt = reportTime.replace('T', '-').replace('Z', '');
  // Fixed-width digits, most significant first: text order is time order.
  if (dt < PROJECTION_START) {
    throw invalid('report time', reportTime, `not before ${PROJECTION_START}, the first projected dt`);
  }
  return dt;
}

const SERDE: Record<AthenaInventoryFormat, string> = {
  CSV: "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'",
  Parquet: "ROW FORMAT SERDE 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe'",
  ORC: "ROW FORMAT SERDE 'org.apache.hadoop.hive.ql.io.orc.OrcSerde'",
};

/**
 * The first `dt` the projection knows: a date before S3 Inventory existed, so one
 * table (keyed by its layout, {@link inventoryTableName}) serves every report of
 * that layout. The queries filter `dt` by equality, so Athena projects that one
 * partition whatever the range (Athena User Guide, "How to use the date type":
 * it combines the query's conditions with the range to generate values).
 */
export const PROJECTION_START = '2016-11-01-00-00';

/**
 * The step of the projected `dt` values: 1 minute from {@link PROJECTION_START}.
 * Athena generates a date column's values from the range's start, one every
 * interval, and reads those the query's conditions select (Athena User Guide,
 * "Supported types for partition projection", date type: a range `2017-01,2018-12`
 * at 2 MONTHS gives 2017-01, 2017-03, …): a `dt` off that grid is never
 * generated, and its report would count nothing. Report folders carry minutes
 * (S3 User Guide, "Locating your inventory list": `2016-11-06T21-32Z`), so only a
 * 1-minute step generates every value `yyyy-MM-dd-HH-mm` can write. The Guide's
 * template steps 1 HOURS (1 DAYS before), which misses a report started at
 * minute 32 (at 1 DAYS, every report not started at midnight).
 */
export const PROJECTION_INTERVAL_UNIT = 'MINUTES';

/** Where and how one report layout is stored: what its table is made of. */
export interface InventoryTableSpec {
  readonly format: AthenaInventoryFormat;
  /** The manifest's columns, in file order. */
  readonly columns: readonly string[];
  readonly destinationBucket: string;
  /** The configuration's folder in the destination (`[prefix/]source/config/`). */
  readonly base: string;
}

/**
 * What one layout's table is, after its name: the manifest's columns in file
 * order ({@link tableColumns}: unknown fields by position) with the template's types ({@link columnType}), `PARTITIONED BY (dt
 * string)`, the format's SerDe, `SymlinkTextInputFormat` /
 * `IgnoreKeyTextOutputFormat` over `s3://<destination>/<base>hive/`, `dt`
 * projected (`date`, `yyyy-MM-dd-HH-mm`, interval 1 {@link PROJECTION_INTERVAL_UNIT})
 * from {@link PROJECTION_START} to NOW.
 *
 * @throws InvalidArgsError for a bucket or prefix that fails its rule.
 */
function tableDefinition(spec: InventoryTableSpec): string {
  const bucket = bucketName('destination bucket', spec.destinationBucket);
  const base = safePrefix('inventory folder', spec.base);
  const declared = tableColumns(spec.columns)
    .map((column) => `\`${column}\` ${columnType(spec.format, column)}`)
    .join(', ');
  return (
    `(${declared}) PARTITIONED BY (dt string) ${SERDE[spec.format]} ` +
    "STORED AS INPUTFORMAT 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat' " +
    "OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.IgnoreKeyTextOutputFormat' " +
    `LOCATION 's3://${bucket}/${base}hive/' ` +
    "TBLPROPERTIES ('projection.enabled' = 'true', 'projection.dt.type' = 'date', " +
    "'projection.dt.format' = 'yyyy-MM-dd-HH-mm', " +
    `'projection.dt.range' = '${PROJECTION_START},NOW', 'projection.dt.interval' = '1', ` +
    `'projection.dt.interval.unit' = '${PROJECTION_INTERVAL_UNIT}')`
  );
}

/**
 * The Glue table name of a report layout: `inventory_` and 24 hex digits of the
 * SHA-256 of its definition (columns and their types, SerDe, location,
 * projection). Reports of one configuration with the same fields share it (and
 * so do layouts that differ only in the names of fields the tools do not know,
 * declared by position: their tables are the same); a
 * configuration whose fields changed, or a definition changed here (a column
 * type, the projection), gets a new table, so `CREATE EXTERNAL TABLE IF NOT
 * EXISTS` never meets a table of another shape under the same name.
 *
 * @throws InvalidArgsError for a bucket or prefix that fails its rule.
 */
export function inventoryTableName(spec: InventoryTableSpec): string {
  const digest = createHash('sha256').update(tableDefinition(spec)).digest('hex');
  return `inventory_${digest.slice(0, 24)}`;
}

/**
 * The `CREATE EXTERNAL TABLE IF NOT EXISTS` of one report layout, as the S3
 * User Guide's templates give it ({@link tableDefinition}).
 *
 * @throws InvalidArgsError for a name, bucket or prefix that fails its rule.
 */
export function createTableStatement(ref: InventoryTableRef, spec: InventoryTableSpec): string {
  const database = glueName('database', ref.database);
  const table = glueName('table', ref.table);
  return `CREATE EXTERNAL TABLE IF NOT EXISTS \`${database}\`.\`${table}\` ${tableDefinition(spec)}`;
}

/**
 * Whether the text `value` (not NULL, not empty) is whole a match of `pattern`:
 * `regexp_extract` gives the leftmost match, NULL (Trino) or `''` (DuckDB) when
 * none, so comparing it with the value means the same on both engines and needs
 * no `^`/`$` (in Trino's default Joni engine `$` also matches before a newline).
 * `pattern` must be a constant holding no `'`.
 */
function wholeMatch(value: string, pattern: string): string {
  return `coalesce(regexp_extract(${value}, '${pattern}', 0), '') = ${value}`;
}

/**
 * S3's CSV time as `inventoryTimeOfBytes` (inventory/rows.ts) accepts it:
 * `YYYY-MM-DDTHH:MM:SS`, an optional `.` and 1-9 digits, `Z`; year 1000-9999,
 * month 01-12, day 01-31, hour 00-23, minute and second 00-59 (the day within
 * its month is left to the cast).
 */
const CSV_TIME_PATTERN =
  '[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?Z';

/**
 * A CSV time (`2016-11-06T21:32:20.000Z`, ISO 8601 UTC, S3 User Guide "Amazon S3
 * Inventory list") as the `timestamp` the ORC and Parquet tables declare, NULL
 * when empty or not one: the same set as the single-function path's
 * `inventoryTimeOfBytes` (inventory/rows.ts). The text is first held to
 * {@link CSV_TIME_PATTERN} (so no other form a cast would take — a lower-case
 * `t`, an offset, a bare date — gets through), then cast as
 * `YYYY-MM-DD HH:MM:SS.sss` (Trino's cast to `timestamp` takes a space and no
 * zone), the fraction cut or padded to milliseconds by `rpad` (which truncates
 * on both engines), as the single path reads it; `try_cast` refuses a day past
 * its month (30 February, 29 February of a common year) on both.
 */
function csvTimestamp(column: string): string {
  const text = `nullif(${column}, '')`;
  const fraction = `coalesce(regexp_extract(${column}, '\\.([0-9]+)Z', 1), '')`;
  return (
    `CASE WHEN ${wholeMatch(text, CSV_TIME_PATTERN)} THEN try_cast(substr(${column}, 1, 10) || ' ' || ` +
    `substr(${column}, 12, 8) || '.' || rpad(${fraction}, 3, '0') AS timestamp) END`
  );
}

/** One report's rows, normalized: decoded key, version id, delete marker, size, last-modified, ETag. */
function reportRows(report: QueriedReport): string {
  const format = athenaFormat(report.manifest);
  const columns = tableColumns(report.manifest.columns);
  const has = (column: string) => columns.includes(column);
  const table = `"${glueName('database', report.table.database)}"."${glueName('table', report.table.table)}"`;
  const csv = format === 'CSV';
  // CSV keys are form-URL-encoded (a space as +, S3 User Guide "Amazon S3 Inventory list"); decode + as %20 first.
  const key = csv ? "url_decode(replace(key, '+', '%20'))" : 'key';
  const version = has('version_id') ? "coalesce(nullif(version_id, ''), '')" : "''";
  // A boolean in every template, the CSV one included.
  const marker = has('is_delete_marker') ? 'coalesce(is_delete_marker, false)' : 'false';
  const size = csv ? csvSize('size') : 'coalesce(size, 0)';
  // A `timestamp` on every format, so a diff across formats compares instants (the single path compares milliseconds).
  const modified = has('last_modified_date')
    ? csv
      ? csvTimestamp('last_modified_date')
      : 'last_modified_date'
    : 'NULL';
  const eTag = has('e_tag') ? "nullif(e_tag, '')" : 'NULL';
  return (
    `SELECT ${key} AS k, ${version} AS v, ${marker} AS dm, ${size} AS size, ${modified} AS lm, ${eTag} AS et, ` +
    `${invalidValueSql(csv, has('last_modified_date'))} AS bad ` +
    `FROM ${table} WHERE dt = '${partitionOf(report.reportTime)}'`
  );
}

/** 2^53 − 1: the largest Size the single-function path adds up exactly (row-values.ts). */
const MAX_SIZE = '9007199254740991';

/** A CSV Size the single-function path reads (`sizeOfBytes`, inventory/csv-reader.ts): 1-16 ASCII digits. */
const CSV_SIZE_PATTERN = '[0-9]{1,16}';

/** Whether a non-empty CSV `column` is {@link CSV_SIZE_PATTERN} whole (no sign, space, `.`, `_` or exponent). */
function csvSizeDigits(column: string): string {
  return wholeMatch(`nullif(${column}, '')`, CSV_SIZE_PATTERN);
}

/**
 * A CSV Size (S3 User Guide, "Amazon S3 Inventory list": "The object size in
 * bytes") as a `bigint`: 0 when empty or NULL (a delete marker), its digits when
 * {@link CSV_SIZE_PATTERN}, else 0 — such a row is counted by
 * {@link invalidValueSql} and the report refused, so the 0 is never reported.
 * The pattern goes first: DuckDB's cast alone takes `1.5` (as 2) and `1_000`,
 * Trino's does not.
 */
function csvSize(column: string): string {
  return `coalesce(CASE WHEN ${csvSizeDigits(column)} THEN try_cast(${column} AS bigint) END, 0)`;
}

/**
 * Whether a row's values are ones the figures may add up, as `checkedRowSink`
 * (inventory/row-values.ts) decides on the single-function path: `Size` empty
 * (a delete marker: 0) or a whole number from 0 to 2^53 − 1 — in CSV written as
 * 1-16 digits only ({@link csvSize}) — and `LastModifiedDate`, when listed, a
 * time ({@link csvTimestamp} in CSV). Without it, a CSV Size that does not
 * cast would count as 0 bytes and a negative one would be summed.
 */
function invalidValueSql(csv: boolean, listsLastModified: boolean): string {
  const size = csv
    ? `(nullif(size, '') IS NOT NULL AND NOT coalesce(${csvSizeDigits('size')} AND try_cast(size AS bigint) <= ${MAX_SIZE}, false))`
    : `coalesce(size NOT BETWEEN 0 AND ${MAX_SIZE}, false)`;
  const modified = csv ? csvTimestamp('last_modified_date') : 'last_modified_date';
  return listsLastModified ? `(${size} OR ${modified} IS NULL)` : size;
}

/** The row of `rows`' count of values {@link invalidValueSql} refuses, as `side` `invalid`, `change` `side`. */
function invalidRowsSelect(side: 'newer' | 'older', rows: string): string {
  return (
    `SELECT 'invalid' AS side, false AS delete_marker, '${side}' AS change, '' AS extension, ` +
    `count(*) AS files, 0 AS bytes, 0 AS bytes_before FROM ${rows} WHERE bad`
  );
}

/**
 * The extension of `column` as `extensionOf` (index/extensions.ts) gives it: the
 * 1-16 characters of `[A-Za-z0-9_~-]` after the last dot of the key's last
 * segment, that dot not its first character; lower-cased; else `(none)`.
 */
function extensionSql(column: string): string {
  return `coalesce(nullif(lower(regexp_extract(${column}, '[^/]\\.([A-Za-z0-9_~-]{1,16})$', 1)), ''), '(none)')`;
}

/**
 * Whether `column`'s file name looks like a ransom note, as `looksLikeRansomNote`
 * (findings/ransomware.ts) decides: 1-80 characters after the last `/`, matching
 * one of {@link RANSOM_NOTE_PATTERNS} whole (each is anchored, and none matches
 * the empty name) and without regard to case. The
 * patterns' text goes in as written (`(?i)` is Java's and RE2's flag alike); one
 * holding `'` would end the literal, so it is refused.
 */
function ransomNoteSql(column: string): string {
  const name = `regexp_extract(${column}, '[^/]*$', 0)`;
  const patterns = RANSOM_NOTE_PATTERNS.map((pattern) => {
    if (pattern.source.includes("'") || pattern.flags !== 'i') {
      throw new PlatformError('internal_error', `Ransom-note pattern ${pattern} cannot be written as SQL`);
    }
    // Trino's regexp_like is not DuckDB's (regexp_matches): a non-empty match of regexp_extract is both's.
    return `coalesce(regexp_extract(${name}, '(?i)${pattern.source}', 0), '') <> ''`;
  });
  return `(length(${name}) BETWEEN 1 AND 80 AND (${patterns.join(' OR ')}))`;
}

/** One side of a stats or diff query: a report, and the table of its layout. */
export interface QueriedReport {
  readonly reportTime: string;
  readonly manifest: Pick<InventoryManifest, 'fileFormat' | 'columns'>;
  readonly table: InventoryTableRef;
}

/**
 * A manifest's format as Athena's table takes it.
 *
 * @throws InvalidArgsError for a format S3 Inventory does not write (CSV, Parquet, ORC).
 */
export function athenaFormat(manifest: QueriedReport['manifest']): AthenaInventoryFormat {
  if (manifest.fileFormat === 'CSV' || manifest.fileFormat === 'Parquet' || manifest.fileFormat === 'ORC')
    return manifest.fileFormat;
  throw invalid('inventory format', manifest.fileFormat, 'CSV, Parquet or ORC');
}

/**
 * The query of `snapshot_stats` and `diff_snapshots` on the Athena route:
 * `newer` compared with `older` by identity (the key, or key + version id), or
 * counted alone without `older`. Its rows are
 * `(side, delete_marker, change, extension, files, bytes, bytes_before)`:
 * `side` `newer` with `change` `added` / `changed` / `unchanged`, `side`
 * `older` with `change` `removed` / `kept` — a few rows per extension — and,
 * with `older`, one row `side` `notes`: ransom-note-like names among the added
 * and changed objects in `files`, their folders in `bytes`; one row `side`
 * `invalid` per report (`change` `newer` / `older`) counts in `files` its rows
 * whose Size or LastModifiedDate is not one ({@link invalidValueSql}). Folded by
 * `foldFigureRows` (query-figures.ts).
 *
 * @throws InvalidArgsError for a name or time that fails its rule.
 */
export function statsQuery(
  newer: QueriedReport,
  older?: QueriedReport,
  comparison?: QueryComparison,
): string {
  const newerRows = reportRows(newer);
  const ext = extensionSql('nk');
  const newerSelect = (change: string, before: string, from: string) =>
    `SELECT 'newer' AS side, ndm AS delete_marker, ${change} AS change, ${ext} AS extension, ` +
    `count(*) AS files, sum(nsize) AS bytes, ${before} AS bytes_before FROM ${from}`;
  if (!older) {
    return (
      `WITH n AS (${newerRows}) ` +
      `${newerSelect("'added'", '0', '(SELECT k AS nk, dm AS ndm, size AS nsize FROM n) AS t')} GROUP BY 1, 2, 3, 4 ` +
      `UNION ALL ${invalidRowsSelect('newer', 'n')}`
    );
  }
  const compare = comparison ?? { compareLastModified: false, compareETag: false, useVersionIds: false };
  const olderRows = reportRows(older);
  const same = [
    'n.size = o.size',
    ...(compare.compareLastModified ? ['NOT (n.lm IS DISTINCT FROM o.lm)'] : []),
    ...(compare.compareETag ? ['NOT (n.et IS DISTINCT FROM o.et)'] : []),
  ].join(' AND ');
  const on = compare.useVersionIds ? 'n.k = o.k AND n.v = o.v' : 'n.k = o.k';
  return (
    `WITH n AS (${newerRows}), o AS (${olderRows}), j AS (` +
    'SELECT n.k AS nk, n.dm AS ndm, n.size AS nsize, o.k AS ok, o.dm AS odm, o.size AS osize, ' +
    `CASE WHEN o.k IS NULL THEN 'added' WHEN ${same} THEN 'unchanged' ELSE 'changed' END AS change ` +
    `FROM n FULL OUTER JOIN o ON ${on}) ` +
    `${newerSelect('change', 'sum(coalesce(osize, 0))', 'j')} WHERE nk IS NOT NULL GROUP BY 1, 2, 3, 4 ` +
    "UNION ALL SELECT 'older' AS side, odm AS delete_marker, " +
    "CASE WHEN nk IS NULL THEN 'removed' ELSE 'kept' END AS change, " +
    `${extensionSql('ok')} AS extension, count(*) AS files, sum(osize) AS bytes, 0 AS bytes_before ` +
    'FROM j WHERE ok IS NOT NULL GROUP BY 1, 2, 3, 4 ' +
    "UNION ALL SELECT 'notes' AS side, false AS delete_marker, 'new_or_changed' AS change, '' AS extension, " +
    "count(*) AS files, count(DISTINCT coalesce(regexp_extract(nk, '^.*/', 0), '')) AS bytes, 0 AS bytes_before " +
    `FROM j WHERE nk IS NOT NULL AND NOT ndm AND change <> 'unchanged' AND ${ransomNoteSql('nk')} ` +
    `UNION ALL ${invalidRowsSelect('newer', 'n')} UNION ALL ${invalidRowsSelect('older', 'o')}`
  );
}
