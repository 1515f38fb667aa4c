/**
 * The snapshot tools' identifiers: one string names a snapshot, another names
 * the source it belongs to (an EBS volume, an S3 Inventory configuration). They
 * are stable (the same snapshot has the same id on every call and run), carry
 * everything needed to find the snapshot again without a listing, and are
 * parsed before any remote call so a malformed id is an `invalid_args`.
 *
 * | what | format | example |
 * |---|---|---|
 * | EBS snapshot | `ebs:<region>:<snapshot id>` | `ebs:eu-west-1:snap-0123456789abcdef0` |
 * | EBS source (volume) | `ebs:<region>:<volume id>` | `ebs:eu-west-1:vol-0123456789abcdef0` |
 * | S3 Inventory report | `s3_inventory:<bucket>/<configuration id>/<YYYY-MM-DDTHH-MMZ>` | `s3_inventory:photos/daily/2026-03-01T01-00Z` |
 * | S3 Inventory source | `s3_inventory:<bucket>/<configuration id>` | `s3_inventory:photos/daily` |
 *
 * The report's timestamp is the folder S3 writes its `manifest.json` under (S3
 * User Guide, "Locating your inventory list"). A configuration id character
 * outside `[A-Za-z0-9._-]` is percent-encoded (`my report` → `my%20report`), so
 * `/` and `:` only ever separate parts.
 */
import { InvalidArgsError } from '../../runtime/errors';

/** The two kinds of snapshot. */
export type SnapshotKind = 'ebs' | 's3_inventory';

/** An EBS snapshot: its region and id. */
export interface EbsSnapshotRef {
  readonly kind: 'ebs';
  readonly region: string;
  readonly snapshotId: string;
}

/** One S3 Inventory report: the source bucket, the configuration and the report's folder timestamp. */
export interface InventoryReportRef {
  readonly kind: 's3_inventory';
  readonly bucket: string;
  readonly configurationId: string;
  /** `YYYY-MM-DDTHH-MMZ`, the folder name S3 gives the report. */
  readonly reportTime: string;
}

/** A parsed snapshot id. */
export type SnapshotRef = EbsSnapshotRef | InventoryReportRef;

/** An EBS volume (the lineage of its snapshots). */
export interface EbsSourceRef {
  readonly kind: 'ebs';
  readonly region: string;
  readonly volumeId: string;
}

/** An S3 Inventory configuration of a bucket; without `configurationId`, every configuration of the bucket. */
export interface InventorySourceRef {
  readonly kind: 's3_inventory';
  readonly bucket: string;
  readonly configurationId?: string;
}

/** A parsed source id. */
export type SourceRef = EbsSourceRef | InventorySourceRef;

/** An AWS region name (`eu-west-1`, `us-gov-west-1`). */
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
/** EC2 resource ids: `snap-` or `vol-` and 8 or 17 hex digits (EC2 User Guide, "Resource IDs"). */
const SNAPSHOT_ID = /^snap-[0-9a-f]{8}(?:[0-9a-f]{9})?$/;
const VOLUME_ID = /^vol-[0-9a-f]{8}(?:[0-9a-f]{9})?$/;
/** S3 bucket names: 3-63 of `a-z 0-9 . -` (S3 User Guide, "Bucket naming rules"). */
const BUCKET_SHAPE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Whether `name` is a general purpose bucket name S3 accepts (S3 User Guide,
 * "General purpose bucket naming rules"): 3-63 of `a-z 0-9 . -`, starting and
 * ending with a letter or digit, no `..`, not an IP address, none of the
 * reserved prefixes (`xn--`, `sthree-`, `amzn-s3-demo-`) and suffixes
 * (`-s3alias`, `--ol-s3`, `.mrap`, `--x-s3`, `--table-s3`).
 */
function isBucketName(name: string): boolean {
  return (
    BUCKET_SHAPE.test(name) &&
    !name.includes('..') &&
    !/^\d+\.\d+\.\d+\.\d+$/.test(name) &&
    !/^(xn--|sthree-|amzn-s3-demo-)/.test(name) &&
    !/(-s3alias|--ol-s3|\.mrap|--x-s3|--table-s3)$/.test(name)
  );
}
/** The report folder S3 writes: `YYYY-MM-DDTHH-MMZ` (S3 User Guide, "Locating your inventory list"). */
export const REPORT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}Z$/;
/**
 * What is wrong with `value` as a report folder name, or `undefined` when it names
 * a time that exists: the shape of {@link REPORT_TIME}, a calendar date and time
 * (no month 13, day 30 of February or hour 24) and not in the future, so an
 * impossible id is refused before any remote call.
 */
export function reportTimeProblem(value: string): string | undefined {
  if (!REPORT_TIME.test(value)) return `"${value}" is not a report time YYYY-MM-DDTHH-MMZ`;
  const iso = reportTimeToIso(value);
  const parsed = new Date(iso);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString() !== iso) {
    return `"${value}" is not a time that exists (a calendar date, hours 00-23, minutes 00-59)`;
  }
  // A day ahead at most: clocks differ, a report of the future does not exist.
  if (parsed.getTime() > Date.now() + 86_400_000) return `"${value}" is a report time in the future`;
  return undefined;
}

/** The characters a configuration id may hold here: printable ASCII (no control character). */
const CONFIGURATION_ID = /^[\x20-\x7e]+$/;

/** An inventory configuration id, 1-64 characters (S3 API reference, "InventoryConfiguration", Id). */
const MAX_CONFIGURATION_ID = 64;

/** What a snapshot id looks like, for error messages (and the tools' descriptions). */
export const SNAPSHOT_ID_FORMS =
  '"ebs:<region>:snap-<hex>" (EBS snapshot) or "s3_inventory:<bucket>/<configuration id>/<YYYY-MM-DDTHH-MMZ>" (S3 Inventory report)';

/** What a source id looks like. */
export const SOURCE_ID_FORMS =
  '"ebs:<region>:vol-<hex>" (an EBS volume), "s3_inventory:<bucket>/<configuration id>" (one inventory configuration) or "s3_inventory:<bucket>" (every configuration of the bucket)';

/**
 * Percent-encodes a configuration id for use in an id: characters outside
 * `[A-Za-z0-9._-]` become `%XX` (UTF-8).
 *
 * @example encodeConfigurationId('daily report') // 'daily%20report'
 */
export function encodeConfigurationId(configurationId: string): string {
  return encodeURIComponent(configurationId).replace(
    /[!'()*~]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function decodeConfigurationId(encoded: string, id: string, forms: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    throw new InvalidArgsError(`"${id}" has a malformed configuration id "${encoded}". Expected ${forms}`);
  }
  if (decoded.length === 0 || decoded.length > MAX_CONFIGURATION_ID) {
    throw new InvalidArgsError(
      `"${id}": an inventory configuration id has 1-${MAX_CONFIGURATION_ID} characters. Expected ${forms}`,
    );
  }
  // S3 writes reports under `<bucket>/<configuration id>/`: a control character or a `..`
  // segment would name no inventory's folder.
  if (!CONFIGURATION_ID.test(decoded) || decoded.split('/').some((part) => part === '..' || part === '.')) {
    throw new InvalidArgsError(
      `"${id}": an inventory configuration id is printable ASCII with no "." or ".." segment. Expected ${forms}`,
    );
  }
  return decoded;
}

/** The snapshot id of an EBS snapshot. @example ebsSnapshotId('eu-west-1', 'snap-0123456789abcdef0') */
export function ebsSnapshotId(region: string, snapshotId: string): string {
  return `ebs:${region}:${snapshotId}`;
}

/** The source id of an EBS volume. */
export function ebsSourceId(region: string, volumeId: string): string {
  return `ebs:${region}:${volumeId}`;
}

/** The source id of an inventory configuration. */
export function inventorySourceId(bucket: string, configurationId: string): string {
  return `s3_inventory:${bucket}/${encodeConfigurationId(configurationId)}`;
}

/** The snapshot id of one inventory report. */
export function inventoryReportId(bucket: string, configurationId: string, reportTime: string): string {
  return `${inventorySourceId(bucket, configurationId)}/${reportTime}`;
}

/** The id string of a parsed snapshot. */
export function formatSnapshotId(ref: SnapshotRef): string {
  return ref.kind === 'ebs'
    ? ebsSnapshotId(ref.region, ref.snapshotId)
    : inventoryReportId(ref.bucket, ref.configurationId, ref.reportTime);
}

/** The source id a snapshot belongs to. For EBS the volume is not in the snapshot id: pass it. */
export function inventorySourceOf(ref: InventoryReportRef): string {
  return inventorySourceId(ref.bucket, ref.configurationId);
}

/**
 * Parses a snapshot id.
 *
 * @throws InvalidArgsError naming what is wrong and the accepted forms ({@link SNAPSHOT_ID_FORMS}).
 * @example parseSnapshotId('ebs:eu-west-1:snap-0123456789abcdef0') // { kind: 'ebs', region: 'eu-west-1', … }
 */
export function parseSnapshotId(id: string): SnapshotRef {
  const [kind, ...rest] = id.split(':');
  if (kind === 'ebs' && rest.length === 2) {
    const [region, snapshotId] = ebsParts(
      id,
      rest,
      SNAPSHOT_ID,
      'an EBS snapshot id (snap-<8 or 17 hex>)',
      SNAPSHOT_ID_FORMS,
    );
    return { kind: 'ebs', region, snapshotId };
  }
  if (kind === 's3_inventory' && rest.length === 1) {
    const parts = (rest[0] ?? '').split('/');
    if (parts.length !== 3) throw invalid(id, 'expected bucket/configuration/time', SNAPSHOT_ID_FORMS);
    const [bucket = '', encoded = '', reportTime = ''] = parts;
    if (!isBucketName(bucket)) throw invalid(id, `"${bucket}" is not an S3 bucket name`, SNAPSHOT_ID_FORMS);
    const timeProblem = reportTimeProblem(reportTime);
    if (timeProblem !== undefined) throw invalid(id, timeProblem, SNAPSHOT_ID_FORMS);
    return {
      kind: 's3_inventory',
      bucket,
      configurationId: decodeConfigurationId(encoded, id, SNAPSHOT_ID_FORMS),
      reportTime,
    };
  }
  throw invalid(id, 'unknown form', SNAPSHOT_ID_FORMS);
}

/**
 * Parses a source id.
 *
 * @throws InvalidArgsError naming what is wrong and the accepted forms ({@link SOURCE_ID_FORMS}).
 */
export function parseSourceId(id: string): SourceRef {
  const [kind, ...rest] = id.split(':');
  if (kind === 'ebs' && rest.length === 2) {
    const [region, volumeId] = ebsParts(
      id,
      rest,
      VOLUME_ID,
      'an EBS volume id (vol-<8 or 17 hex>)',
      SOURCE_ID_FORMS,
    );
    return { kind: 'ebs', region, volumeId };
  }
  if (kind === 's3_inventory' && rest.length === 1) {
    const parts = (rest[0] ?? '').split('/');
    const [bucket = '', encoded] = parts;
    if (parts.length > 2) throw invalid(id, 'expected bucket or bucket/configuration', SOURCE_ID_FORMS);
    if (!isBucketName(bucket)) throw invalid(id, `"${bucket}" is not an S3 bucket name`, SOURCE_ID_FORMS);
    return encoded === undefined
      ? { kind: 's3_inventory', bucket }
      : {
          kind: 's3_inventory',
          bucket,
          configurationId: decodeConfigurationId(encoded, id, SOURCE_ID_FORMS),
        };
  }
  throw invalid(id, 'unknown form', SOURCE_ID_FORMS);
}

/** The ISO-8601 time of a report folder timestamp. @example reportTimeToIso('2026-03-01T01-00Z') // '2026-03-01T01:00:00.000Z' */
export function reportTimeToIso(reportTime: string): string {
  const [date, time = ''] = reportTime.split('T');
  return `${date}T${time.slice(0, 2)}:${time.slice(3, 5)}:00.000Z`;
}

/** The region and resource id of an `ebs:<region>:<id>` form, checked. */
function ebsParts(
  id: string,
  rest: readonly string[],
  pattern: RegExp,
  what: string,
  forms: string,
): [string, string] {
  const [region = '', resource = ''] = rest;
  if (!REGION.test(region)) throw invalid(id, `"${region}" is not an AWS region name`, forms);
  if (!pattern.test(resource)) throw invalid(id, `"${resource}" is not ${what}`, forms);
  return [region, resource];
}

function invalid(id: string, problem: string, forms: string): InvalidArgsError {
  return new InvalidArgsError(`Invalid id "${id}": ${problem}. Expected ${forms}`);
}
