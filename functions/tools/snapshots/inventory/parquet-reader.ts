/**
 * Streams a Parquet inventory data file, one row group at a time.
 *
 * Parquet keeps its metadata in a footer at the end of the file, so the footer
 * is read first (one ranged GET). The file is then read once, front to back, in
 * a single GET whose bytes are hashed and counted as they arrive (the MD5 check
 * needs every byte anyway); only the byte span of the current row group's
 * wanted columns is kept, and as soon as it is complete that row group is
 * decoded, its rows handed on and its bytes dropped. Memory is thus bounded by
 * one row group's wanted columns (and their decoded values), never the file.
 *
 * Decoding: the columns the tools read are decoded straight from their pages
 * (`parquet-pages.ts`: byte ranges, no value object per row) when their
 * encodings are the common ones; a file using another encoding (DELTA_*,
 * BYTE_STREAM_SPLIT, legacy INT96 timestamps…) is decoded by hyparquet, row
 * group by row group, into strings. Codecs: Snappy (hysnappy, `snappy.ts`) and
 * uncompressed pages; GZIP, Brotli and ZSTD through node:zlib. LZO and LZ4 are
 * refused by name.
 */
import type { Readable } from 'node:stream';
import { type AsyncBuffer, type FileMetaData, parquetMetadata } from 'hyparquet';
import type { Deadline } from '../../../runtime/deadline';
import { PlatformError } from '../../../runtime/errors';
import { FileIntegrity, openListedFile } from './data-file';
import type { InventoryObjectReader } from './guarded-reader';
import type { ManifestFile } from './manifest';
import { COMPRESSORS, decodeGroup, emitGroup, PARSERS } from './parquet-hyparquet';
import {
  type ChunkInfo,
  ChunkScratch,
  type DecodedColumn,
  decodeChunk,
  type FastType,
  fastPathReadable,
} from './parquet-pages';
import { checkReadDeadline, InventoryRow, type InventoryRowSink } from './rows';

/** Bytes read from a file's end to find its footer; a longer footer costs one more ranged GET. */
const FOOTER_GUESS_BYTES = 256 * 1024;
/** Parquet's magic number `PAR1`, little-endian. */
const PARQUET_MAGIC = 0x31524150;

/** The Parquet columns the tools read, when present, with the physical type the page decoder reads them as. */
const WANTED = ['key', 'version_id', 'is_delete_marker', 'size', 'last_modified_date', 'e_tag'] as const;
type Wanted = (typeof WANTED)[number];
const FAST_TYPES: Readonly<Record<Wanted, FastType>> = {
  key: 'BYTE_ARRAY',
  version_id: 'BYTE_ARRAY',
  e_tag: 'BYTE_ARRAY',
  is_delete_marker: 'BOOLEAN',
  size: 'INT64',
  last_modified_date: 'INT64',
};

/** Units of an INT64 timestamp per millisecond. */
const PER_MS = { MILLIS: 1, MICROS: 1000, NANOS: 1_000_000 } as const;

/**
 * The metadata with `last_modified_date` read as its raw INT64 values: for an
 * INT64 timestamp hyparquet otherwise converts each value through
 * `Array.from(…).map(…)`, a BigInt object and two arrays per row group row,
 * most of the garbage a row group leaves. Returns how many units make a ms
 * (null: left as it was, e.g. a legacy INT96 timestamp, and converted by hyparquet).
 */
function withRawTimestamps(metadata: FileMetaData): {
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

/** One row group's place in the file and in the rows. */
interface GroupPlan {
  /** Its index in the file's row groups. */
  readonly group: number;
  readonly rowStart: number;
  readonly rowEnd: number;
  /** Byte span of the wanted columns' chunks, `[start, end)`. */
  readonly start: number;
  readonly end: number;
}

/** Options of {@link readParquetDataFile}. */
export interface ParquetReadOptions {
  readonly reportId: string;
  readonly deadline: Deadline;
  /** Rows read before this file, for deadline messages. */
  readonly rowsBefore: number;
}

function unreadable(reportId: string, file: ManifestFile, why: string, cause?: unknown): PlatformError {
  return new PlatformError(
    'upstream_error',
    `Inventory report ${reportId}: data file ${file.key} is not a readable Parquet file (${why})`,
    { service: 's3', cause, details: { report: reportId, key: file.key } },
  );
}

async function readFooter(
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

/** The row groups' spans over the wanted columns, in file order. */
function planGroups(metadata: FileMetaData, columns: readonly string[]): GroupPlan[] {
  const plans: GroupPlan[] = [];
  let rowStart = 0;
  for (const [index, group] of metadata.row_groups.entries()) {
    let start = Number.POSITIVE_INFINITY;
    let end = 0;
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      if (!meta || !columns.includes(meta.path_in_schema[0] ?? '')) continue;
      const offset = Number(meta.dictionary_page_offset || meta.data_page_offset);
      start = Math.min(start, offset);
      end = Math.max(end, offset + Number(meta.total_compressed_size));
    }
    const rows = Number(group.num_rows);
    if (rows > 0) plans.push({ group: index, rowStart, rowEnd: rowStart + rows, start, end });
    rowStart += rows;
  }
  return plans.sort((a, b) => a.start - b.start);
}

/** The bytes held of the file: pieces in file order, the first starting at `from`. */
interface Held {
  from: number;
  pieces: Buffer[];
  length: number;
}

/**
 * An AsyncBuffer serving `[start, end)` from the held pieces, copying only the
 * range asked (a column chunk): hyparquet reads nothing else of a row group, and
 * no copy of the whole row group is ever made.
 */
function heldBuffer(fileSize: number, held: Held): AsyncBuffer {
  return {
    byteLength: fileSize,
    slice(start: number, end = fileSize) {
      return copyHeld(held, start, end, new Uint8Array(end - start)).buffer as ArrayBuffer;
    },
  };
}

/**
 * Copies the held bytes `[start, end)` into the start of `out` (at least that long).
 *
 * @returns `out`'s first `end - start` bytes.
 * @throws Error for a range outside the held bytes.
 */
function copyHeld(held: Held, start: number, end: number, out: Uint8Array): Uint8Array {
  if (start < held.from || end > held.from + held.length) {
    throw new Error(`read outside the row group's bytes: [${start}, ${end})`);
  }
  let pieceStart = held.from;
  for (const piece of held.pieces) {
    const pieceEnd = pieceStart + piece.length;
    if (pieceEnd > start && pieceStart < end) {
      const from = Math.max(start, pieceStart);
      const to = Math.min(end, pieceEnd);
      out.set(piece.subarray(from - pieceStart, to - pieceStart), from - start);
    }
    if (pieceEnd >= end) break;
    pieceStart = pieceEnd;
  }
  return out.subarray(0, end - start);
}

/** Drops the held bytes before `position`. */
function dropBefore(held: Held, position: number): void {
  while (held.pieces.length > 0 && held.from + (held.pieces[0] as Buffer).length <= position) {
    const piece = held.pieces.shift() as Buffer;
    held.from += piece.length;
    held.length -= piece.length;
  }
  const first = held.pieces[0];
  if (first && held.from < position) {
    held.pieces[0] = first.subarray(position - held.from);
    held.length -= position - held.from;
    held.from = position;
  }
  if (held.pieces.length === 0) held.from = position;
}

/**
 * Whether every wanted column chunk of the file is one the page decoder reads:
 * flat, of the expected type, in its encodings and codecs, and the timestamp an
 * INT64 with a known unit.
 */
function pageDecodable(metadata: FileMetaData, columns: readonly Wanted[], perMs: number | null): boolean {
  if (columns.includes('last_modified_date') && perMs === null) return false;
  const optional = new Map(metadata.schema.map((e) => [e.name, e.repetition_type]));
  return metadata.row_groups.every((group) =>
    group.columns.every((chunk) => {
      const meta = chunk.meta_data;
      const name = meta?.path_in_schema[0] as Wanted | undefined;
      if (!meta || !name || !columns.includes(name)) return true;
      return (
        meta.path_in_schema.length === 1 &&
        optional.get(name) !== 'REPEATED' &&
        fastPathReadable(chunkInfo(meta, optional.get(name)), FAST_TYPES[name])
      );
    }),
  );
}

type ColumnMeta = NonNullable<FileMetaData['row_groups'][number]['columns'][number]['meta_data']>;

function chunkInfo(meta: ColumnMeta, repetition: string | undefined): ChunkInfo {
  return {
    type: meta.type,
    optional: repetition === 'OPTIONAL',
    codec: meta.codec,
    encodings: meta.encodings,
  };
}

/**
 * Decodes the wanted columns of one row group from their pages, into each
 * column's scratch arrays (reused from the previous row group).
 */
function decodeGroupPages(
  metadata: FileMetaData,
  groupIndex: number,
  plan: GroupPlan,
  held: Held,
  columns: readonly Wanted[],
  scratches: Map<Wanted, ChunkScratch>,
): Map<Wanted, DecodedColumn> {
  const group = metadata.row_groups[groupIndex];
  const repetition = new Map(metadata.schema.map((e) => [e.name, e.repetition_type]));
  const decoded = new Map<Wanted, DecodedColumn>();
  for (const chunk of group?.columns ?? []) {
    const meta = chunk.meta_data;
    const name = meta?.path_in_schema[0] as Wanted | undefined;
    if (!meta || !name || !columns.includes(name)) continue;
    let scratch = scratches.get(name);
    if (!scratch) {
      scratch = new ChunkScratch();
      scratches.set(name, scratch);
    }
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const length = Number(meta.total_compressed_size);
    if (scratch.bytes.length < length) scratch.bytes = new Uint8Array(length);
    const bytes = copyHeld(held, start, start + length, scratch.bytes);
    decoded.set(
      name,
      decodeChunk(
        bytes,
        chunkInfo(meta, repetition.get(name)),
        FAST_TYPES[name],
        plan.rowEnd - plan.rowStart,
        scratch,
      ),
    );
  }
  return decoded;
}

/** Hands one row group decoded from its pages to the sink: byte ranges, no string per row. */
function emitDecoded(
  columns: Map<Wanted, DecodedColumn>,
  rows: number,
  sink: InventoryRowSink,
  perMs: number,
  row: InventoryRow,
): void {
  const text = (name: Wanted) => {
    const column = columns.get(name);
    return column?.kind === 'text' ? column.values : undefined;
  };
  const numbers = (name: Wanted) => {
    const column = columns.get(name);
    return column?.kind === 'number' ? column.values : undefined;
  };
  const keys = text('key');
  if (!keys) throw new Error('no key column');
  const versions = text('version_id');
  const eTags = text('e_tag');
  const sizes = numbers('size');
  const times = numbers('last_modified_date');
  const markerColumn = columns.get('is_delete_marker');
  const markers = markerColumn?.kind === 'boolean' ? markerColumn.values : undefined;
  row.setText('', '', false, 0, Number.NaN, '');
  for (let i = 0; i < rows; i++) {
    row.clearText();
    row.keyBytes = keys.pages[keys.page[i] as number] as Uint8Array;
    row.keyStart = keys.start[i] as number;
    row.keyEnd = keys.end[i] as number;
    if (versions) {
      row.versionBytes = versions.pages[versions.page[i] as number] as Uint8Array;
      row.versionStart = versions.start[i] as number;
      row.versionEnd = versions.end[i] as number;
    }
    if (eTags) {
      row.eTagBytes = eTags.pages[eTags.page[i] as number] as Uint8Array;
      row.eTagStart = eTags.start[i] as number;
      row.eTagEnd = eTags.end[i] as number;
    }
    row.isDeleteMarker = markers !== undefined && markers[i] === 1;
    const size = sizes ? (sizes[i] as number) : 0;
    row.size = Number.isNaN(size) ? 0 : size;
    const time = times ? (times[i] as number) : Number.NaN;
    row.lastModifiedMs = perMs === 1 ? time : time / perMs;
    sink.row(row);
  }
}

/**
 * Reads one Parquet data file into `sink`, then checks its size and MD5.
 *
 * @returns the rows read.
 * @throws PlatformError (`upstream_error`) for a file that is not Parquet, lacks
 *   the `key` column, uses a codec no decoder here reads, or fails its size/MD5
 *   check; `not_found` when the file is gone (`openListedFile`).
 * @throws DeadlineExceededError when the call's deadline passes.
 */
export async function readParquetDataFile(
  reader: InventoryObjectReader,
  file: ManifestFile,
  sink: InventoryRowSink,
  options: ParquetReadOptions,
): Promise<number> {
  const footer = await readFooter(reader, file, options.reportId);
  const { metadata, perMs } = withRawTimestamps(footer);
  const present = new Set(metadata.schema.map((element) => element.name));
  const columns = WANTED.filter((name) => present.has(name));
  if (!present.has('key')) throw unreadable(options.reportId, file, 'no key column');
  const codecs = new Set(
    metadata.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec ?? 'UNCOMPRESSED')),
  );
  const unsupported = [...codecs].filter((codec) => codec !== 'UNCOMPRESSED' && !(codec in COMPRESSORS));
  if (unsupported.length > 0)
    throw unreadable(options.reportId, file, `${unsupported.join(', ')} compression is not supported`);

  const plans = planGroups(metadata, columns);
  const fromPages = pageDecodable(metadata, columns, perMs);
  const row = new InventoryRow();
  const scratches = new Map<Wanted, ChunkScratch>();
  const integrity = new FileIntegrity(file, options.reportId);
  const body = await openListedFile(reader, file, options.reportId);
  let position = 0;
  let next = 0;
  let rows = 0;
  const held: Held = { from: 0, pieces: [], length: 0 };

  const completeGroups = async () => {
    for (let plan = plans[next]; plan && position >= plan.end; plan = plans[next]) {
      const count = plan.rowEnd - plan.rowStart;
      try {
        if (fromPages) {
          const decoded = decodeGroupPages(metadata, plan.group, plan, held, columns, scratches);
          emitDecoded(decoded, count, sink, perMs as number, row);
        } else {
          emitGroup(
            await decodeGroup(metadata, heldBuffer(file.size, held), plan.rowStart, plan.rowEnd, columns),
            count,
            sink,
            perMs,
            row,
          );
        }
      } catch (err) {
        if (err instanceof PlatformError) throw err;
        throw unreadable(
          options.reportId,
          file,
          err instanceof Error ? err.message : 'undecodable row group',
          err,
        );
      }
      rows += plan.rowEnd - plan.rowStart;
      checkReadDeadline(options.deadline, options.reportId, options.rowsBefore + rows);
      next++;
      // Keep only the bytes from the next group's span on.
      dropBefore(held, plans[next]?.start ?? position);
    }
  };

  for await (const data of body as Readable) {
    const chunk = data as Buffer;
    integrity.update(chunk);
    const chunkStart = position;
    position += chunk.length;
    const plan = plans[next];
    if (plan && position > plan.start) {
      const from = Math.max(0, plan.start - chunkStart);
      if (held.pieces.length === 0) held.from = chunkStart + from;
      const kept = from > 0 ? chunk.subarray(from) : chunk;
      held.pieces.push(kept);
      held.length += kept.length;
    }
    await completeGroups();
  }
  if (next < plans.length)
    throw unreadable(options.reportId, file, `ended before row group ${next + 1} of ${plans.length}`);
  integrity.verify();
  return rows;
}
