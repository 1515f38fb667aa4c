/**
 * The Parquet decoding done by hyparquet: the file footer, and the row groups of
 * files whose encodings the page decoder (`parquet-pages.ts`) does not read
 * (DELTA_*, BYTE_STREAM_SPLIT, INT96 timestamps…), into strings and numbers.
 */
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import { type AsyncBuffer, type Compressors, type FileMetaData, parquetRead } from 'hyparquet';
import type { InventoryRow, InventoryRowSink } from './rows';
import { snappyUncompress } from './snappy';

/** Codecs hyparquet is given (it decodes uncompressed pages itself): the same as the page decoder's. */
export const COMPRESSORS: Compressors = {
  SNAPPY: snappyUncompress,
  GZIP: (input) => new Uint8Array(gunzipSync(input)),
  BROTLI: (input) => new Uint8Array(brotliDecompressSync(input)),
  ZSTD: (input) => new Uint8Array(zstdDecompressSync(input)),
};

/** Timestamps as ms numbers: hyparquet's default makes a `Date` per row. */
export const PARSERS = { timestampFromMilliseconds: (millis: bigint) => Number(millis) };

/** Column values as hyparquet hands them: arrays of values, or typed arrays (BigInt64Array for INT64). */
type ColumnValues = ArrayLike<unknown>;

/**
 * Decodes rows `[rowStart, rowEnd)` (one row group) of the wanted columns with
 * hyparquet, one column at a time.
 */
export async function decodeGroup(
  metadata: FileMetaData,
  file: AsyncBuffer,
  rowStart: number,
  rowEnd: number,
  columns: readonly string[],
): Promise<Map<string, ColumnValues>> {
  const pieces = new Map<string, { rowStart: number; data: ColumnValues }[]>();
  // One column at a time: a column's pages and intermediate arrays are garbage before the next is decoded.
  for (const column of columns) {
    await parquetRead({
      file,
      metadata,
      columns: [column],
      rowStart,
      rowEnd,
      compressors: COMPRESSORS,
      parsers: PARSERS,
      onChunk: (chunk) => {
        const list = pieces.get(chunk.columnName) ?? [];
        list.push({ rowStart: chunk.rowStart, data: chunk.columnData as ColumnValues });
        pieces.set(chunk.columnName, list);
      },
    });
  }
  const values = new Map<string, ColumnValues>();
  for (const [name, list] of pieces) {
    list.sort((a, b) => a.rowStart - b.rowStart);
    const first = list[0];
    if (list.length === 1 && first && first.rowStart === rowStart) values.set(name, first.data);
    else {
      const joined: unknown[] = [];
      for (const piece of list) for (let i = 0; i < piece.data.length; i++) joined.push(piece.data[i]);
      values.set(name, joined.slice(rowStart - (first?.rowStart ?? rowStart)));
    }
  }
  return values;
}

/** Hands one row group decoded by hyparquet to the sink; raw timestamps are divided by `perMs` units. */
export function emitGroup(
  values: Map<string, ColumnValues>,
  rows: number,
  sink: InventoryRowSink,
  perMs: number | null,
  row: InventoryRow,
): void {
  const keys = values.get('key') as ColumnValues;
  const versions = values.get('version_id');
  const markers = values.get('is_delete_marker');
  const sizes = values.get('size');
  const times = values.get('last_modified_date');
  const eTags = values.get('e_tag');
  for (let i = 0; i < rows; i++) {
    const size = sizes?.[i];
    const time = times?.[i];
    sink.row(
      row.setText(
        String(keys[i] ?? ''),
        (versions?.[i] as string | null | undefined) ?? '',
        markers?.[i] === true,
        size === null || size === undefined ? 0 : Number(size),
        time === null || time === undefined
          ? Number.NaN
          : perMs === null || perMs === 1
            ? Number(time)
            : Number(time) / perMs,
        (eTags?.[i] as string | null | undefined) ?? '',
      ),
    );
  }
}
