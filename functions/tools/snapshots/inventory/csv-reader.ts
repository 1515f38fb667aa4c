/**
 * Streams a gzip CSV inventory data file: the body's bytes are hashed and
 * counted as they arrive (`FileIntegrity`), gunzipped, cut into lines and
 * parsed, a 64 KiB chunk at a time; nothing holds more than a chunk and one
 * line. S3 writes every field double-quoted and URL-encodes keys, so a line is
 * split on `","` directly (a quarter of csv-parse's cost per row,
 * bench/snapshots.ts); a line that does not have that exact shape (an escaped
 * quote, another quoting) is handed to csv-parse, which reads any RFC 4180 CSV.
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
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
  parseInventoryTime,
  ROWS_PER_DEADLINE_CHECK,
} from './rows';

const QUOTE = 34;
const COMMA = 44;

/**
 * Finds the fields of an S3-shaped line (`"a","b",""`) in `text[from, to)`:
 * field i is `text[bounds[2i], bounds[2i+1])`. One `indexOf` per field, no
 * string made. False when the line has another shape (a quote inside a field,
 * an unquoted field, another field count): csv-parse reads it then.
 */
function quotedFieldBounds(
  text: string,
  from: number,
  to: number,
  count: number,
  bounds: Int32Array,
): boolean {
  const last = to - 1;
  if (last <= from || text.charCodeAt(from) !== QUOTE || text.charCodeAt(last) !== QUOTE) return false;
  let start = from + 1;
  for (let field = 0; field < count; field++) {
    const quote = text.indexOf('"', start);
    if (quote === -1 || quote > last) return false;
    bounds[2 * field] = start;
    bounds[2 * field + 1] = quote;
    if (quote === last) return field === count - 1;
    if (text.charCodeAt(quote + 1) !== COMMA || text.charCodeAt(quote + 2) !== QUOTE) return false;
    start = quote + 3;
  }
  return false;
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
  const decoder = new StringDecoder('utf8');
  const bounds = new Int32Array(positions.count * 2);
  const row = new InventoryRow();
  let pending = '';
  let rows = 0;
  let lineNumber = 0;

  /** The fields csv-parse reads from a line of another shape; written into `bounds` over the returned text. */
  const parseOddLine = (line: string): string => {
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
    let joined = '';
    fields.forEach((field, i) => {
      bounds[2 * i] = joined.length;
      joined += field;
      bounds[2 * i + 1] = joined.length;
    });
    return joined;
  };

  const field = (text: string, index: number) =>
    index < 0 ? '' : text.slice(bounds[2 * index] as number, bounds[2 * index + 1] as number);

  /** One line: `text[from, to)`, without its newline. */
  const handleLine = (line: string, from: number, lineEnd: number) => {
    lineNumber++;
    const to = lineEnd > from && line.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
    if (to === from) return;
    const text = quotedFieldBounds(line, from, to, positions.count, bounds)
      ? line
      : parseOddLine(line.slice(from, to));
    const size = field(text, positions.size);
    sink.row(
      row.setText(
        decodeCsvKey(field(text, positions.key)),
        field(text, positions.versionId),
        field(text, positions.isDeleteMarker) === 'true',
        size ? Number(size) : 0,
        positions.lastModified >= 0 ? parseInventoryTime(field(text, positions.lastModified)) : Number.NaN,
        field(text, positions.eTag),
      ),
    );
    rows++;
    if (rows % ROWS_PER_DEADLINE_CHECK === 0) {
      checkReadDeadline(options.deadline, options.reportId, options.rowsBefore + rows);
    }
  };

  const consume = (text: string) => {
    let start = 0;
    let newline = text.indexOf('\n');
    if (newline !== -1 && pending.length > 0) {
      const line = pending + text.slice(0, newline);
      pending = '';
      handleLine(line, 0, line.length);
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    while (newline !== -1) {
      handleLine(text, start, newline);
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    pending += text.slice(start);
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
      createGunzip(),
      async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) consume(decoder.write(chunk));
        consume(decoder.end());
        if (pending.length > 0) handleLine(pending, 0, pending.length);
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
