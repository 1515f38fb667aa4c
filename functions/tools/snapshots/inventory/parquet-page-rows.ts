/**
 * The inventory rows of a Parquet row group decoded straight from its pages (parquet-pages.ts):
 * whether a file's wanted columns can be, the decoding of one group's columns, and the rows
 * handed to the sink as byte ranges.
 */
import type { FileMetaData } from 'hyparquet';
import { copyHeld, dropBefore, type Held } from './parquet-held-bytes';
import {
  type ChunkInfo,
  ChunkScratch,
  type DecodedColumn,
  decodeChunk,
  type FastType,
  fastPathReadable,
} from './parquet-pages';
import type { InventoryRow, InventoryRowSink } from './rows';

/** The Parquet columns the tools read, when present, with the physical type the page decoder reads them as. */
export const WANTED = [
  'key',
  'version_id',
  'is_delete_marker',
  'size',
  'last_modified_date',
  'e_tag',
] as const;
export type Wanted = (typeof WANTED)[number];
const FAST_TYPES: Readonly<Record<Wanted, FastType>> = {
  key: 'BYTE_ARRAY',
  version_id: 'BYTE_ARRAY',
  e_tag: 'BYTE_ARRAY',
  is_delete_marker: 'BOOLEAN',
  size: 'INT64',
  last_modified_date: 'INT64',
};

/** One row group's place in the file and in the rows. */
export interface GroupPlan {
  /** Its index in the file's row groups. */
  readonly group: number;
  readonly rowStart: number;
  readonly rowEnd: number;
  /** Byte span of the wanted columns' chunks, `[start, end)`. */
  readonly start: number;
  readonly end: number;
}

/**
 * Whether every wanted column chunk of the file is one the page decoder reads:
 * flat, of the expected type, in its encodings and codecs, and the timestamp an
 * INT64 with a known unit.
 */
export function pageDecodable(
  metadata: FileMetaData,
  columns: readonly Wanted[],
  perMs: number | null,
): boolean {
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
 * column's scratch arrays (reused from the previous row group). Chunks are
 * copied out of `held` in file order, and the held bytes before the next
 * chunk (at most up to `keepFrom`, where the next row group's span starts) are
 * dropped after each copy: a row group's compressed bytes are not kept beside
 * their copies and decoded pages while its rows are handed on (about 3 MB of
 * the bench's 100,000-row groups).
 */
export function decodeGroupPages(
  metadata: FileMetaData,
  groupIndex: number,
  plan: GroupPlan,
  held: Held,
  columns: readonly Wanted[],
  scratches: Map<Wanted, ChunkScratch>,
  keepFrom: number,
): Map<Wanted, DecodedColumn> {
  const group = metadata.row_groups[groupIndex];
  const repetition = new Map(metadata.schema.map((e) => [e.name, e.repetition_type]));
  const decoded = new Map<Wanted, DecodedColumn>();
  const wanted = (group?.columns ?? [])
    .flatMap((chunk) => {
      const meta = chunk.meta_data;
      const name = meta?.path_in_schema[0] as Wanted | undefined;
      return meta && name && columns.includes(name)
        ? [{ meta, name, start: Number(meta.dictionary_page_offset || meta.data_page_offset) }]
        : [];
    })
    .sort((a, b) => a.start - b.start);
  for (const [i, { meta, name, start }] of wanted.entries()) {
    let scratch = scratches.get(name);
    if (!scratch) {
      scratch = new ChunkScratch();
      scratches.set(name, scratch);
    }
    const length = Number(meta.total_compressed_size);
    if (scratch.bytes.length < length) scratch.bytes = new Uint8Array(length);
    const bytes = copyHeld(held, start, start + length, scratch.bytes);
    dropBefore(held, Math.min(wanted[i + 1]?.start ?? keepFrom, keepFrom));
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
export function emitDecoded(
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
  // A row's page arrays are stored only when the page changes (hundreds of rows share one): each pointer
  // store goes through V8's write barrier, which costs while the GC marks.
  let keyPage = -1;
  let versionPage = -1;
  let eTagPage = -1;
  for (let i = 0; i < rows; i++) {
    row.clearText();
    const k = keys.page[i] as number;
    if (k !== keyPage) {
      keyPage = k;
      row.keyBytes = keys.pages[k] as Uint8Array;
    }
    row.keyStart = keys.start[i] as number;
    row.keyEnd = keys.end[i] as number;
    if (versions) {
      const v = versions.page[i] as number;
      if (v !== versionPage) {
        versionPage = v;
        row.versionBytes = versions.pages[v] as Uint8Array;
      }
      row.versionStart = versions.start[i] as number;
      row.versionEnd = versions.end[i] as number;
    }
    if (eTags) {
      const e = eTags.page[i] as number;
      if (e !== eTagPage) {
        eTagPage = e;
        row.eTagBytes = eTags.pages[e] as Uint8Array;
      }
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
