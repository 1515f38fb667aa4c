/**
 * An S3 Inventory report's `manifest.json` (S3 User Guide, "Inventory
 * manifest"): which data files make up the report, their sizes and MD5
 * checksums, their format and the columns they hold (`fileSchema`).
 *
 * ```json
 * { "sourceBucket": "example-source-bucket",
 *   "destinationBucket": "arn:aws:s3:::example-inventory-destination-bucket",
 *   "version": "2016-11-30", "creationTimestamp": "1514944800000",
 *   "fileFormat": "CSV",
 *   "fileSchema": "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate, ETag, …",
 *   "files": [ { "key": "…/data/939c6d46-85a9-4ba8-87bd-9db705a579ce.csv.gz", "size": 2147483647,
 *                "MD5checksum": "f11166069f1990abeb9c97ace9cdfabc" } ] }
 * ```
 *
 * Parquet and ORC manifests give `fileSchema` as a schema
 * (`message s3.inventory { required binary bucket (STRING); required binary key (STRING); … }`,
 * `struct<bucket:string,key:string,…>`).
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../../runtime/built-once';
import { PlatformError } from '../../../runtime/errors';
import type { InventoryConfigurationView } from './configuration';
import { isDataFileKey } from './layout';

/** One data file the manifest lists. */
export interface ManifestFile {
  readonly key: string;
  /** Bytes, as stored (compressed for CSV). */
  readonly size: number;
  /** MD5 of the stored bytes, 32 lower-case hex digits. */
  readonly md5: string;
}

/** The columns the tools use, by their Parquet names (CSV names map onto them: `ETag` → `e_tag`). */
export type InventoryColumn =
  | 'bucket'
  | 'key'
  | 'version_id'
  | 'is_latest'
  | 'is_delete_marker'
  | 'size'
  | 'last_modified_date'
  | 'e_tag';

/** A parsed, checked manifest. */
export interface InventoryManifest {
  readonly sourceBucket: string;
  readonly destinationBucket: string;
  /** When S3 created the report, ms since 1970 (`creationTimestamp`), at most 8.64e15 (a `Date`'s range). */
  readonly createdAtMs: number;
  /** `CSV`, `ORC` or `Parquet`. */
  readonly fileFormat: string;
  /** The schema's column names, snake_case, in file order. */
  readonly columns: readonly string[];
  readonly files: readonly ManifestFile[];
  /** Sum of the files' sizes: the report's stored bytes (not the bucket's). */
  readonly reportBytes: number;
}

const manifestShape = builtOnce(() =>
  z.object({
    sourceBucket: z.string(),
    destinationBucket: z.string(),
    creationTimestamp: z.string().check(z.regex(/^\d{1,16}$/)),
    fileFormat: z.string(),
    fileSchema: z.string(),
    files: z.array(
      z.object({
        key: z.string(),
        size: z.number().check(z.int(), z.nonnegative()),
        MD5checksum: z.string().check(z.regex(/^[0-9a-fA-F]{32}$/)),
      }),
    ),
  }),
);

/**
 * A CSV field name in snake_case, as Parquet names it.
 *
 * @example snakeCase('ETag') // 'e_tag'
 * @example snakeCase('LastModifiedDate') // 'last_modified_date'
 */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/**
 * How a `fileSchema` is written, by its shape (S3 User Guide, "Inventory manifest"):
 * CSV a comma-separated list of field names (`Bucket, Key, Size, …`), Parquet a
 * Parquet message schema (`message s3.inventory { required binary key (STRING); … }`),
 * ORC a struct (`struct<bucket:string,key:string,…>`).
 */
export type SchemaStyle = 'CSV' | 'Parquet' | 'ORC';

/** The style a `fileSchema` is written in ({@link SchemaStyle}), from its first word. */
export function schemaStyle(fileSchema: string): SchemaStyle {
  const text = fileSchema.trimStart();
  if (/^message\b/.test(text)) return 'Parquet';
  if (/^struct\s*</.test(text)) return 'ORC';
  return 'CSV';
}

/** What each format's `fileSchema` looks like, for messages (S3 User Guide, "Inventory manifest"). */
const SCHEMA_EXAMPLES: Readonly<Record<SchemaStyle, string>> = {
  CSV: 'a CSV-style (comma-separated) list of field names, e.g. "Bucket, Key, Size, LastModifiedDate, ETag"',
  Parquet:
    'a Parquet message schema, e.g. "message s3.inventory { required binary bucket (STRING); required binary key (STRING); optional int64 size; … }"',
  ORC: 'an ORC struct, e.g. "struct<bucket:string,key:string,size:bigint,…>"',
};

/**
 * The column names of a `fileSchema`, snake_case, in file order; an empty name
 * (`Bucket, , Key`) is kept as `''`, for `parseManifest` to refuse.
 */
export function schemaColumns(fileFormat: string, fileSchema: string): string[] {
  if (fileFormat === 'Parquet') {
    return [...fileSchema.matchAll(/\b(?:required|optional|repeated)\s+\w+\s+(\w+)/g)].map(
      (m) => m[1] as string,
    );
  }
  if (fileFormat === 'ORC') {
    const inner = fileSchema.trim().replace(/^struct\s*<|>$/g, '');
    return inner.split(',').map((field) => field.split(':')[0]?.trim() ?? '');
  }
  return fileSchema.split(',').map((name) => snakeCase(name.trim()));
}

function broken(reportId: string, problem: string, details: Record<string, unknown> = {}): PlatformError {
  return new PlatformError('upstream_error', `Inventory report ${reportId}: ${problem}`, {
    service: 's3',
    details: { report: reportId, ...details },
  });
}

/**
 * Refuses a manifest that lists a data file twice: S3 writes each data file of
 * a report once in `files` (S3 User Guide, "Inventory manifest"), and reading
 * it twice would count its objects twice.
 *
 * @throws PlatformError (`upstream_error`, `details.reason: "duplicate_file"`) naming the first repeated key.
 */
function checkDistinctFiles(files: readonly { readonly key: string }[], reportId: string): void {
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file.key)) {
      throw broken(
        reportId,
        `manifest.json lists the data file ${file.key} more than once; S3 lists each data file of a report once, so the report is refused rather than counted twice`,
        { reason: 'duplicate_file', key: file.key },
      );
    }
    seen.add(file.key);
  }
}

/**
 * Refuses a `fileSchema` written in another format's style than `fileFormat`
 * ({@link schemaStyle}): its columns could not be read, and a message about a
 * missing field would mislead. Unknown formats are left to {@link requireReadableFormat}.
 *
 * @throws PlatformError (`upstream_error`, `details.reason: "schema_format_mismatch"`).
 */
function checkSchemaStyle(fileFormat: string, fileSchema: string, reportId: string): void {
  if (fileFormat !== 'CSV' && fileFormat !== 'Parquet' && fileFormat !== 'ORC') return;
  const style = schemaStyle(fileSchema);
  if (style === fileFormat) return;
  throw broken(
    reportId,
    `its fileFormat ${fileFormat} does not match its ${style === 'CSV' ? 'CSV-style (comma-separated)' : `${style}-style`} fileSchema (${fileSchema}); ` +
      `a ${fileFormat} fileSchema is ${SCHEMA_EXAMPLES[fileFormat]}`,
    { reason: 'schema_format_mismatch', fileFormat, fileSchema },
  );
}

/**
 * Refuses a `fileSchema` with an empty field name (`Bucket, Key, , Size`) or a
 * field listed twice (`Size, …, Size`; names compared without regard to case,
 * after snake_case): S3 writes each field of the configuration once, by name
 * (S3 User Guide, "Inventory manifest", "Amazon S3 Inventory list"). With either,
 * the data's columns cannot be matched to the fields: one reader would take the
 * first `Size`, another fail, so the report is refused on every path alike.
 *
 * @throws PlatformError (`upstream_error`, `details.reason: "empty_field_name"`
 *   with `details.position` from 1, or `"duplicate_field"` with `details.field`).
 */
function checkFieldNames(columns: readonly string[], fileSchema: string, reportId: string): void {
  const seen = new Set<string>();
  for (const [index, column] of columns.entries()) {
    if (column === '') {
      throw broken(
        reportId,
        `its fileSchema has an empty field name at position ${index + 1} (${fileSchema}); S3 names every field, so the data's columns cannot be matched to its fields`,
        { reason: 'empty_field_name', position: index + 1, fileSchema },
      );
    }
    const name = column.toLowerCase();
    if (seen.has(name)) {
      throw broken(
        reportId,
        `its fileSchema lists the field ${column} more than once (${fileSchema}); S3 lists each field once, so the data's columns cannot be matched to its fields`,
        { reason: 'duplicate_field', field: column, fileSchema },
      );
    }
    seen.add(name);
  }
}

/** The latest time a JavaScript `Date` holds: 8.64e15 ms after 1970 (ECMAScript, "Time Values and Time Range"). */
const LATEST_TIME_MS = 8.64e15;

/**
 * Refuses a schema without the two fields the tools need. `Key` (with `Bucket`)
 * is in every S3 Inventory list; `Size` is an optional field the configuration
 * must select (S3 User Guide, "Amazon S3 Inventory list", "Setting up Amazon S3 Inventory").
 *
 * @throws PlatformError (`upstream_error`, `details.reason: "missing_field"`) naming the missing field.
 */
function checkRequiredColumns(columns: readonly string[], fileSchema: string, reportId: string): void {
  if (!columns.includes('key')) {
    throw broken(
      reportId,
      `its fileSchema has no Key field (${fileSchema}); every S3 Inventory list has Bucket and Key, so this is not an inventory schema`,
      { reason: 'missing_field', field: 'Key', fileSchema },
    );
  }
  if (!columns.includes('size')) {
    throw broken(
      reportId,
      `its fileSchema has no Size field (${fileSchema}); add the Size optional field to the inventory configuration (it applies from the next report)`,
      { reason: 'missing_field', field: 'Size', fileSchema },
    );
  }
}

/**
 * Parses and checks a manifest: its shape, that it belongs to the
 * configuration's source and destination buckets, that every file it lists is
 * a data file in the configuration's folder (the no-content rail) and is listed
 * once, that its `creationTimestamp` is a time, that its `fileSchema` is
 * written in its `fileFormat`'s style, names each field once and none empty,
 * and that the schema has `key` and `size`. Field names the tools do not know are kept
 * (S3 adds optional fields over time): their columns are read past.
 *
 * @throws PlatformError (`upstream_error`) naming what is wrong.
 */
export function parseManifest(
  bytes: Buffer,
  configuration: InventoryConfigurationView,
  reportId: string,
): InventoryManifest {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw broken(reportId, 'manifest.json is not valid JSON');
  }
  const parsed = manifestShape().safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(root)'))];
    throw broken(reportId, `manifest.json does not have the documented shape (at ${fields.join(', ')})`);
  }
  const manifest = parsed.data;
  if (manifest.sourceBucket !== configuration.bucket) {
    throw broken(
      reportId,
      `manifest.json is for bucket ${manifest.sourceBucket}, not ${configuration.bucket}`,
    );
  }
  const destination = manifest.destinationBucket.replace(/^arn:[^:]+:s3:::/, '');
  if (destination !== configuration.destinationBucket) {
    throw broken(
      reportId,
      `manifest.json names destination ${destination}, not ${configuration.destinationBucket}`,
    );
  }
  const outside = manifest.files.find((file) => !isDataFileKey(configuration.base, file.key));
  if (outside) {
    throw new PlatformError(
      'upstream_error',
      `Inventory report ${reportId}: manifest.json lists ${outside.key}, which is not a data file of this inventory (${configuration.base}data/<uuid>.csv.gz|.parquet): refused`,
      { service: 's3', details: { report: reportId, rail: 'no_content', key: outside.key } },
    );
  }
  const createdAtMs = Number(manifest.creationTimestamp);
  if (createdAtMs > LATEST_TIME_MS) {
    throw broken(
      reportId,
      `manifest.json's creationTimestamp ${manifest.creationTimestamp} is not a time (ms since 1970, at most 8.64e15); S3 writes the report's creation time there`,
      { reason: 'invalid_creation_timestamp', creationTimestamp: manifest.creationTimestamp },
    );
  }
  checkDistinctFiles(manifest.files, reportId);
  checkSchemaStyle(manifest.fileFormat, manifest.fileSchema, reportId);
  const columns = schemaColumns(manifest.fileFormat, manifest.fileSchema);
  checkFieldNames(columns, manifest.fileSchema, reportId);
  checkRequiredColumns(columns, manifest.fileSchema, reportId);
  const files = manifest.files.map((file) => ({
    key: file.key,
    size: file.size,
    md5: file.MD5checksum.toLowerCase(),
  }));
  return {
    sourceBucket: manifest.sourceBucket,
    destinationBucket: destination,
    createdAtMs,
    fileFormat: manifest.fileFormat,
    columns,
    files,
    reportBytes: files.reduce((sum, file) => sum + file.size, 0),
  };
}

/**
 * Refuses formats the tools cannot read: ORC (no well-kept pure-JavaScript
 * reader exists; configure CSV or Parquet) and anything unknown.
 *
 * @throws PlatformError (`upstream_error`, not retryable, `details.reason: "unsupported_format"`).
 */
export function requireReadableFormat(manifest: InventoryManifest, reportId: string): 'CSV' | 'Parquet' {
  if (manifest.fileFormat === 'CSV' || manifest.fileFormat === 'Parquet') return manifest.fileFormat;
  throw new PlatformError(
    'upstream_error',
    `Inventory report ${reportId} is in ${manifest.fileFormat} format, which the snapshot tools do not read: ` +
      "they read CSV and Parquet. Change the inventory configuration's output format to CSV or Parquet (takes effect from the next report), or query this report with Athena",
    {
      service: 's3',
      details: {
        report: reportId,
        reason: 'unsupported_format',
        format: manifest.fileFormat,
        supported: ['CSV', 'Parquet'],
      },
    },
  );
}
