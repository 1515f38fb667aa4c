/**
 * Streams a gzip CSV inventory data file: the body's bytes are hashed and
 * counted as they arrive (`FileIntegrity`), gunzipped, cut into lines and
 * parsed, a 256 KiB chunk at a time; nothing holds more than a chunk and one
 * line. S3 writes every field double-quoted and URL-encodes keys (so its lines
 * are ASCII), so a line is read in one pass over its bytes (its `","`-separated
 * fields and the newline that ends it found together) and the row's fields are
 * byte ranges of the gunzipped chunk, keys URL-decoded byte by byte: no string
 * per row, except a key that decodes beyond ASCII (bench/snapshots-duckdb.ts,
 * docs/snapshot-tools.md "Third pass: CSV"). A line that does
 * not have that exact shape (an escaped quote, another quoting, a byte beyond
 * ASCII) is handed to csv-parse, which reads any RFC 4180 CSV.
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import type { Deadline } from '../../../runtime/deadline';
import { PlatformError } from '../../../runtime/errors';
import { FileIntegrity } from './data-file';
import type { ManifestFile } from './manifest';
import {
  type ColumnPositions,
  checkReadDeadline,
  decodeCsvKey,
  InventoryRow,
  type InventoryRowSink,
  inventorySizeOfText,
  inventoryTimeOfBytes,
  parseInventoryTime,
  ROWS_PER_DEADLINE_CHECK,
} from './rows';

/**
 * Bytes gunzip hands on per output chunk. zlib works in node's thread pool and
 * every output chunk is a round trip to it and back through the event loop;
 * with the default 16 KiB a 30 MB data file makes about 2,000 of them, and on
 * a busy machine the waits between them took longer than the parsing (profile
 * in docs/snapshot-tools.md, "Against DuckDB"). 256 KiB: 16 times fewer.
 */
const GUNZIP_CHUNK_BYTES = 256 * 1024;

const QUOTE = 34;
const COMMA = 44;
const NEWLINE = 10;
const RETURN = 13;
const PERCENT = 37;
const PLUS = 43;
/** `true`, the delete-marker field's value, as bytes. */
const TRUE = [116, 114, 117, 101] as const;

/**
 * Finds the fields of the S3-shaped line (`"a","b",""` then `\n` or `\r\n`)
 * that starts at `bytes[from]`: field i is `bytes[bounds[2i], bounds[2i+1])`.
 * The line's end is found in the same pass (no search for the newline first)
 * and no string is made. `bytes[limit]` must be a newline: the scan never
 * passes it.
 *
 * @returns the index of the newline ending the line; -1 when the line has
 *   another shape (a quote inside a field, an unquoted field, another field
 *   count, a newline inside quotes) or a byte beyond ASCII (S3 URL-encodes
 *   keys, so its lines have none): csv-parse reads it then, from its UTF-8 text.
 */
function scanQuotedLine(
  bytes: Uint8Array,
  from: number,
  limit: number,
  count: number,
  bounds: Int32Array,
): number {
  if (bytes[from] !== QUOTE) return -1;
  let start = from + 1;
  let seen = 0;
  for (let field = 0; field < count; field++) {
    let quote = start;
    let c = 0;
    for (; quote < limit; quote++) {
      c = bytes[quote] as number;
      seen |= c;
      if (c === QUOTE || c === NEWLINE) break;
    }
    if (c !== QUOTE || quote >= limit || seen > 127) return -1;
    bounds[2 * field] = start;
    bounds[2 * field + 1] = quote;
    const next = bytes[quote + 1] as number;
    if (field === count - 1) {
      if (next === NEWLINE) return quote + 1;
      return next === RETURN && bytes[quote + 2] === NEWLINE ? quote + 2 : -1;
    }
    if (next !== COMMA || bytes[quote + 2] !== QUOTE) return -1;
    start = quote + 3;
  }
  return -1;
}

/** {@link decodeKeyBytes}'s answers other than a length. */
const MALFORMED = -1;
const BEYOND_ASCII = -2;

/** The value of an ASCII hex digit, or -1. */
function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * URL-decodes the ASCII key `bytes[start, end)` as {@link decodeCsvKey} does
 * (`+` a space, `%XX` a byte) into `out`, without making a string.
 *
 * @returns the decoded length; {@link MALFORMED} when a `%` is not followed by two
 *   hex digits (`decodeCsvKey` keeps such a key as written); {@link BEYOND_ASCII}
 *   when a decoded byte is beyond ASCII, whose UTF-8 `decodeCsvKey` must check.
 */
function decodeKeyBytes(bytes: Uint8Array, start: number, end: number, out: Uint8Array): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    if (c === PLUS) out[n++] = 32;
    else if (c !== PERCENT) out[n++] = c;
    else {
      const high = i + 2 < end ? hexValue(bytes[i + 1] as number) : -1;
      const low = high < 0 ? -1 : hexValue(bytes[i + 2] as number);
      if (low < 0) return MALFORMED;
      const byte = high * 16 + low;
      if (byte > 127) return BEYOND_ASCII;
      out[n++] = byte;
      i += 2;
    }
  }
  return n;
}

/**
 * The size in ASCII `bytes[start, end)` as S3 writes a CSV `Size` (S3 User
 * Guide, "Amazon S3 Inventory list": "The object size in bytes"): plain decimal
 * digits, 0 when empty (a delete marker). NaN for anything else — a sign, a
 * space, `1e3`, `0x10`, `1.0`, whitespace only — and for more than 16 digits
 * (past 2^53): `checkedRowSink` refuses it, as the Athena route's `csvSize`
 * (athena/inventory-sql.ts) does. Up to 16 digits the sum rounds at most once,
 * at the last digit, and only past 2^53 − 1, which the check refuses.
 */
function sizeOfBytes(bytes: Uint8Array, start: number, end: number): number {
  if (end - start > 16) return Number.NaN;
  let value = 0;
  for (let i = start; i < end; i++) {
    const d = (bytes[i] as number) - 48;
    if (d >>> 0 > 9) return Number.NaN;
    value = value * 10 + d;
  }
  return value;
}

/** Options of {@link readCsvDataFile}. */
export interface CsvReadOptions {
  readonly reportId: string;
  readonly deadline: Deadline;
  /** Rows read before this file, for deadline messages. */
  readonly rowsBefore: number;
}

function malformed(reportId: string, file: ManifestFile, line: number, why: string): PlatformError {
  return new PlatformError(
    'upstream_error',
    `Inventory report ${reportId}: line ${line} of ${file.key} is not an inventory row (${why})`,
    { service: 's3', details: { report: reportId, key: file.key, line } },
  );
}

/**
 * Reads one CSV data file into `sink`, then checks its size and MD5.
 *
 * @returns the rows read.
 * @throws PlatformError (`upstream_error`) for a line that is not a row of the
 *   manifest's schema, a body that is not gzip, or a size/MD5 mismatch.
 * @throws DeadlineExceededError when the call's deadline passes.
 */
export async function readCsvDataFile(
  body: Readable,
  file: ManifestFile,
  positions: ColumnPositions,
  sink: InventoryRowSink,
  options: CsvReadOptions,
): Promise<number> {
  const integrity = new FileIntegrity(file, options.reportId);
  const bounds = new Int32Array(positions.count * 2);
  const row = new InventoryRow();
  /** The start of a line cut by a chunk's end (a copy), joined with the next chunk's head. */
  let pending: Buffer | undefined;
  let rows = 0;
  let lineNumber = 0;

  /** A line csv-parse reads (another shape, or beyond ASCII), from its UTF-8 text, through the row's string setter. */
  const readOddLine = (line: string) => {
    let records: string[][];
    try {
      records = parseCsv(line, { relax_column_count: true }) as string[][];
    } catch (err) {
      throw malformed(options.reportId, file, lineNumber, err instanceof Error ? err.message : 'unreadable');
    }
    const fields = records[0];
    if (records.length !== 1 || fields?.length !== positions.count) {
      throw malformed(options.reportId, file, lineNumber, `expected ${positions.count} fields`);
    }
    const field = (index: number) => (index < 0 ? '' : (fields[index] as string));
    row.setText(
      decodeCsvKey(field(positions.key)),
      field(positions.versionId),
      field(positions.isDeleteMarker) === 'true',
      inventorySizeOfText(field(positions.size)),
      positions.lastModified >= 0 ? parseInventoryTime(field(positions.lastModified)) : Number.NaN,
      field(positions.eTag),
    );
  };

  /** Where URL-decoded keys are written (a decoded key is never longer than its encoded form). */
  let keys = Buffer.allocUnsafe(1024);
  const { key, versionId, eTag, isDeleteMarker, size, lastModified } = positions;

  /** An S3-shaped line (`bounds` set): the row's byte ranges point into its bytes or the decoded key's. */
  const readLine = (bytes: Buffer) => {
    row.clearText();
    const keyStart = bounds[2 * key] as number;
    const keyEnd = bounds[2 * key + 1] as number;
    if (keyEnd - keyStart > keys.length) keys = Buffer.allocUnsafe(2 * (keyEnd - keyStart));
    const decoded = decodeKeyBytes(bytes, keyStart, keyEnd, keys);
    if (decoded === BEYOND_ASCII) row.setKeyText(decodeCsvKey(bytes.toString('latin1', keyStart, keyEnd)));
    else if (decoded === MALFORMED) {
      row.keyBytes = bytes;
      row.keyStart = keyStart;
      row.keyEnd = keyEnd;
    } else {
      // Stores only when the array changes: a pointer store costs a write barrier while the GC marks.
      if (row.keyBytes !== keys) row.keyBytes = keys;
      row.keyStart = 0;
      row.keyEnd = decoded;
    }
    if (row.versionBytes !== bytes) row.versionBytes = bytes;
    row.versionStart = versionId < 0 ? 0 : (bounds[2 * versionId] as number);
    row.versionEnd = versionId < 0 ? 0 : (bounds[2 * versionId + 1] as number);
    if (row.eTagBytes !== bytes) row.eTagBytes = bytes;
    row.eTagStart = eTag < 0 ? 0 : (bounds[2 * eTag] as number);
    row.eTagEnd = eTag < 0 ? 0 : (bounds[2 * eTag + 1] as number);
    if (isDeleteMarker < 0) row.isDeleteMarker = false;
    else {
      const at = bounds[2 * isDeleteMarker] as number;
      row.isDeleteMarker =
        (bounds[2 * isDeleteMarker + 1] as number) - at === 4 &&
        bytes[at] === TRUE[0] &&
        bytes[at + 1] === TRUE[1] &&
        bytes[at + 2] === TRUE[2] &&
        bytes[at + 3] === TRUE[3];
    }
    row.size = size < 0 ? 0 : sizeOfBytes(bytes, bounds[2 * size] as number, bounds[2 * size + 1] as number);
    row.lastModifiedMs =
      lastModified < 0
        ? Number.NaN
        : inventoryTimeOfBytes(
            bytes,
            bounds[2 * lastModified] as number,
            bounds[2 * lastModified + 1] as number,
          );
  };

  /** Counts a row handed on; checks the deadline every {@link ROWS_PER_DEADLINE_CHECK} rows. */
  const handOn = () => {
    sink.row(row);
    rows++;
    if (rows % ROWS_PER_DEADLINE_CHECK === 0) {
      checkReadDeadline(options.deadline, options.reportId, options.rowsBefore + rows);
    }
  };

  /**
   * The lines of `bytes[from, last]`, where `bytes[last]` is a newline: an
   * S3-shaped line is read in place in one pass; an empty line is skipped;
   * another goes to csv-parse.
   */
  const readLines = (bytes: Buffer, from: number, last: number) => {
    let start = from;
    while (start <= last) {
      lineNumber++;
      const newline = scanQuotedLine(bytes, start, last, positions.count, bounds);
      if (newline >= 0) {
        readLine(bytes);
        handOn();
        start = newline + 1;
        continue;
      }
      const lineEnd = bytes.indexOf(NEWLINE, start);
      const to = lineEnd > start && bytes[lineEnd - 1] === RETURN ? lineEnd - 1 : lineEnd;
      if (to > start) {
        readOddLine(bytes.toString('utf8', start, to));
        handOn();
      }
      start = lineEnd + 1;
    }
  };

  /** A chunk of the gunzipped file: whole lines are read in place, a line cut by its end waits in `pending`. */
  const consume = (chunk: Buffer) => {
    let start = 0;
    if (pending !== undefined) {
      const newline = chunk.indexOf(NEWLINE);
      if (newline === -1) {
        pending = Buffer.concat([pending, chunk]);
        return;
      }
      const line = Buffer.concat([pending, chunk.subarray(0, newline + 1)]);
      pending = undefined;
      readLines(line, 0, line.length - 1);
      start = newline + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= start) readLines(chunk, start, last);
    const rest = last >= start ? last + 1 : start;
    if (rest < chunk.length) pending = Buffer.from(chunk.subarray(rest));
  };

  try {
    await pipeline(
      body,
      async function* tap(source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          integrity.update(chunk);
          yield chunk;
        }
      },
      // One thread-pool round trip per output chunk: 256 KiB instead of the default 16 KiB cuts them 16-fold.
      createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES }),
      async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) consume(chunk);
        // A last line without its newline.
        if (pending !== undefined) consume(Buffer.from([NEWLINE]));
      },
      { signal: options.deadline.signal },
    );
  } catch (err) {
    if (err instanceof PlatformError) throw err;
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('Z_')) {
      throw new PlatformError(
        'upstream_error',
        `Inventory report ${options.reportId}: data file ${file.key} is not valid gzip (${(err as Error).message})`,
        { service: 's3', details: { report: options.reportId, key: file.key, reason: 'not_gzip' } },
      );
    }
    throw err;
  }
  integrity.verify();
  return rows;
}
