/**
 * A Parquet data file's footer (its metadata, at the end of the file), read with ranged GETs,
 * and its timestamp column set to be read as raw INT64 values.
 */
import { type FileMetaData, parquetMetadata } from 'hyparquet';
import { PlatformError } from '../../../runtime/errors';
import { openListedFile } from './data-file';
import type { InventoryObjectReader } from './guarded-reader';
import type { ManifestFile } from './manifest';
import { PARSERS } from './parquet-hyparquet';

/** Bytes read from a file's end to find its footer; a longer footer costs one more ranged GET. */
const FOOTER_GUESS_BYTES = 256 * 1024;
/** Parquet's magic number `PAR1`, little-endian. */
const PARQUET_MAGIC = 0x31524150;

/** The error of a data file that is not a Parquet file this reader reads, saying why. */
export function unreadable(
  reportId: string,
  file: ManifestFile,
  why: string,
  cause?: unknown,
): PlatformError {
  return new PlatformError(
    'upstream_error',
    `Inventory report ${reportId}: data file ${file.key} is not a readable Parquet file (${why})`,
    { service: 's3', cause, details: { report: reportId, key: file.key } },
  );
}

/**
 * The file's footer (one ranged GET, a second when the footer is longer than the guess).
 *
 * @throws PlatformError (`upstream_error`) for a file too short, without a PAR1 footer or with a bad one.
 */
export async function readFooter(
  reader: InventoryObjectReader,
  file: ManifestFile,
  reportId: string,
): Promise<FileMetaData> {
  if (file.size < 12) throw unreadable(reportId, file, `${file.size} bytes is too short`);
  const guess = Math.min(file.size, FOOTER_GUESS_BYTES);
  let tail = await readRange(reader, file, reportId, file.size - guess, file.size);
  if (tail.readUInt32LE(tail.length - 4) !== PARQUET_MAGIC)
    throw unreadable(reportId, file, 'no PAR1 footer');
  const metadataLength = tail.readUInt32LE(tail.length - 8);
  if (metadataLength + 8 > file.size) throw unreadable(reportId, file, 'footer longer than the file');
  if (metadataLength + 8 > tail.length) {
    tail = await readRange(reader, file, reportId, file.size - metadataLength - 8, file.size);
  }
  try {
    return parquetMetadata(tail, { parsers: PARSERS });
  } catch (err) {
    throw unreadable(reportId, file, err instanceof Error ? err.message : 'bad footer', err);
  }
}

async function readRange(
  reader: InventoryObjectReader,
  file: ManifestFile,
  reportId: string,
  start: number,
  end: number,
): Promise<Buffer> {
  const body = await openListedFile(reader, file, reportId, { start, end });
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Units of an INT64 timestamp per millisecond. */
const PER_MS = { MILLIS: 1, MICROS: 1000, NANOS: 1_000_000 } as const;

/**
 * The metadata with `last_modified_date` read as its raw INT64 values: for an
 * INT64 timestamp hyparquet otherwise converts each value through
 * `Array.from(…).map(…)`, a BigInt object and two arrays per row group row,
 * most of the garbage a row group leaves. Returns how many units make a ms
 * (null: left as it was, e.g. a legacy INT96 timestamp, and converted by hyparquet).
 */
export function withRawTimestamps(metadata: FileMetaData): {
  readonly metadata: FileMetaData;
  readonly perMs: number | null;
} {
  const index = metadata.schema.findIndex((e) => e.name === 'last_modified_date');
  const element = metadata.schema[index];
  if (element?.type !== 'INT64') return { metadata, perMs: null };
  const logical = element.logical_type?.type === 'TIMESTAMP' ? element.logical_type.unit : undefined;
  const converted =
    element.converted_type === 'TIMESTAMP_MILLIS'
      ? 'MILLIS'
      : element.converted_type === 'TIMESTAMP_MICROS'
        ? 'MICROS'
        : undefined;
  const unit = logical ?? converted;
  if (!unit) return { metadata, perMs: null };
  const schema = [...metadata.schema];
  schema[index] = { ...element, converted_type: undefined, logical_type: undefined };
  return { metadata: { ...metadata, schema }, perMs: PER_MS[unit] };
}
