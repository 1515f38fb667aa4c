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
  type InventoryRowSink,
  parseInventoryTime,
  ROWS_PER_DEADLINE_CHECK,
} from './rows';

const QUOTE = 34;

/** The fields of an S3-shaped line (`"a","b",""`), or undefined when it has another shape. */
function splitQuotedLine(line: string, count: number): string[] | undefined {
  const last = line.length - 1;
  if (last < 1 || line.charCodeAt(0) !== QUOTE || line.charCodeAt(last) !== QUOTE) return undefined;
  const fields = line.slice(1, last).split('","');
  if (fields.length !== count) return undefined;
  for (const field of fields) if (field.indexOf('"') !== -1) return undefined;
  return fields;
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
  let pending = '';
  let rows = 0;
  let lineNumber = 0;

  const handleLine = (raw: string) => {
    lineNumber++;
    const line = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
    if (line.length === 0) return;
    let fields = splitQuotedLine(line, positions.count);
    if (!fields) {
      let records: string[][];
      try {
        records = parseCsv(line, { relax_column_count: true }) as string[][];
      } catch (err) {
        throw malformed(
          options.reportId,
          file,
          lineNumber,
          err instanceof Error ? err.message : 'unreadable',
        );
      }
      fields = records[0];
      if (records.length !== 1 || fields?.length !== positions.count) {
        throw malformed(options.reportId, file, lineNumber, `expected ${positions.count} fields`);
      }
    }
    const size = positions.size >= 0 ? fields[positions.size] : '';
    const marker = positions.isDeleteMarker >= 0 && fields[positions.isDeleteMarker] === 'true';
    sink.row(
      decodeCsvKey(fields[positions.key] as string),
      positions.versionId >= 0 ? (fields[positions.versionId] as string) : '',
      marker,
      size ? Number(size) : 0,
      positions.lastModified >= 0 ? parseInventoryTime(fields[positions.lastModified] as string) : Number.NaN,
      positions.eTag >= 0 ? (fields[positions.eTag] as string) : '',
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
      handleLine(pending + text.slice(0, newline));
      pending = '';
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    while (newline !== -1) {
      handleLine(text.slice(start, newline));
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
        if (pending.length > 0) handleLine(pending);
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
