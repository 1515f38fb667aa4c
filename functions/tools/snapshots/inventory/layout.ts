/**
 * Where S3 Inventory writes a configuration's reports in its destination bucket
 * (S3 User Guide, "Locating your inventory list"), and the only object keys the
 * snapshot tools may read there:
 *
 * ```
 * [destination-prefix/]source-bucket/config-ID/YYYY-MM-DDTHH-MMZ/manifest.json   ← read
 * [destination-prefix/]source-bucket/config-ID/YYYY-MM-DDTHH-MMZ/manifest.checksum
 * [destination-prefix/]source-bucket/config-ID/hive/dt=YYYY-MM-DD-HH-MM/symlink.txt
 * [destination-prefix/]source-bucket/config-ID/data/<uuid>.csv.gz | .parquet | .orc   ← read (CSV, Parquet; ORC by Athena)
 * ```
 *
 * Data files are named by a UUID (`data/ea8268b2-a6ba-42de-8694-91a9833b4ff1.parquet`
 * in real manifests); the rules here and the IAM resource patterns of
 * `iam.ts` both require that shape, so an object a user happens to name
 * `data/sales.csv.gz` in the same bucket is never read.
 */
import { REPORT_TIME } from '../ids';

/**
 * Data file formats of S3 Inventory, by file extension. The single function reads
 * CSV and Parquet and refuses ORC by name; ORC reports go to the Athena route,
 * where Athena reads them with the caller's credentials ({@link inventoryOrcDataArnPattern}).
 */
export const DATA_FILE_EXTENSIONS = { CSV: '.csv.gz', Parquet: '.parquet', ORC: '.orc' } as const;

/** A UUID as an IAM ARN glob (`?` one character). */
const UUID_GLOB = '????????-????-????-????-????????????';

/** A data file's name: a UUID and a known extension. */
const DATA_FILE_NAME =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(csv\.gz|parquet|orc)$/;

/**
 * The folder of a configuration's reports: `<prefix>/<source bucket>/<configuration id>/`,
 * or without the prefix when none is configured. The prefix is used as
 * configured: S3 appends `/` even when it already ends with one, so a prefix
 * `inv/` gives `inv//bucket/…` keys.
 *
 * @example inventoryBase('inventory', 'photos', 'daily') // 'inventory/photos/daily/'
 */
export function inventoryBase(
  destinationPrefix: string,
  sourceBucket: string,
  configurationId: string,
): string {
  const prefix = destinationPrefix.length > 0 ? `${destinationPrefix}/` : '';
  return `${prefix}${sourceBucket}/${configurationId}/`;
}

/** The key of a report's manifest. */
export function manifestKey(base: string, reportTime: string): string {
  return `${base}${reportTime}/manifest.json`;
}

/** Whether `key` is the manifest of a report of the configuration at `base`. */
export function isManifestKey(base: string, key: string): boolean {
  if (!key.startsWith(base) || !key.endsWith('/manifest.json')) return false;
  return REPORT_TIME.test(key.slice(base.length, key.length - '/manifest.json'.length));
}

/** Whether `key` is a data file of the configuration at `base` (`<base>data/<uuid>.<ext>`). */
export function isDataFileKey(base: string, key: string): boolean {
  if (!key.startsWith(`${base}data/`)) return false;
  return DATA_FILE_NAME.test(key.slice(base.length + 'data/'.length));
}

/** The report folder of a listed common prefix (`<base>2026-03-01T01-00Z/`), else undefined. */
export function reportTimeOfFolder(base: string, commonPrefix: string): string | undefined {
  if (!commonPrefix.startsWith(base) || !commonPrefix.endsWith('/')) return undefined;
  const name = commonPrefix.slice(base.length, -1);
  return REPORT_TIME.test(name) ? name : undefined;
}

/**
 * IAM resource patterns (ARN globs: `*` any characters, `?` one) of the objects
 * {@link isManifestKey} and {@link isDataFileKey} accept, in any bucket: the
 * Allow of the tools' `s3:GetObject` and the exception of their explicit Deny.
 * ORC files are left out: the tools themselves never read them (Athena does,
 * {@link inventoryOrcDataArnPattern}).
 * Written in the `aws` partition, as every spec's ARN; the CDK writes them in
 * the stack's partition (lib/iam-statements.ts).
 */
export function inventoryObjectArnPatterns(): string[] {
  return [
    `arn:aws:s3:::*/????-??-??T??-??Z/manifest.json`,
    `arn:aws:s3:::*/data/${UUID_GLOB}${DATA_FILE_EXTENSIONS.CSV}`,
    `arn:aws:s3:::*/data/${UUID_GLOB}${DATA_FILE_EXTENSIONS.Parquet}`,
  ];
}

/**
 * IAM resource pattern of the `hive/dt=YYYY-MM-DD-HH-MM/symlink.txt` files S3
 * writes beside each report (S3 User Guide, "Querying Amazon S3 Inventory with
 * Amazon Athena"): the list of a report's data files, which Athena reads with
 * the caller's credentials on the Athena route. Metadata, never content.
 */
export function inventorySymlinkArnPattern(): string {
  return 'arn:aws:s3:::*/hive/dt=????-??-??-??-??/symlink.txt';
}

/**
 * IAM resource pattern of ORC data files (`data/<uuid>.orc`, the shape of
 * {@link isDataFileKey}): Athena reads them with the caller's credentials on
 * the Athena route (S3 User Guide, "Querying Amazon S3 Inventory with Amazon
 * Athena"); the tools' own code never does.
 */
export function inventoryOrcDataArnPattern(): string {
  return `arn:aws:s3:::*/data/${UUID_GLOB}${DATA_FILE_EXTENSIONS.ORC}`;
}
