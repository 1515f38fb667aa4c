/**
 * Streams a Parquet inventory data file, one row group at a time.
 *
 * Parquet keeps its metadata in a footer at the end of the file, so the footer
 * is read first (one ranged GET). The file is then read once, front to back, in
 * a single GET whose bytes are hashed and counted as they arrive (the MD5 check
 * needs every byte anyway). Both GETs are sent at once: the whole file's
 * response waits in its socket (node's stream back-pressure, a few tens of KB)
 * while the footer is parsed, so a file costs one request's latency instead of
 * two; a footer that refuses the file closes that response unread; only the byte span of the current row group's
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
import type { FileMetaData } from 'hyparquet';
import type { Deadline } from '../../../runtime/deadline';
import { PlatformError } from '../../../runtime/errors';
import { FileIntegrity, openListedFile } from './data-file';
import type { InventoryObjectReader } from './guarded-reader';
import type { ManifestFile } from './manifest';
import { readFooter, unreadable, withRawTimestamps } from './parquet-footer';
import { dropBefore, type Held, heldBuffer } from './parquet-held-bytes';
import { COMPRESSORS, decodeGroup, emitGroup } from './parquet-hyparquet';
import {
  decodeGroupPages,
  emitDecoded,
  type GroupPlan,
  pageDecodable,
  WANTED,
  type Wanted,
} from './parquet-page-rows';
import type { ChunkScratch } from './parquet-pages';
import { checkReadDeadline, InventoryRow, type InventoryRowSink } from './rows';

/** Options of {@link readParquetDataFile}. */
export interface ParquetReadOptions {
  readonly reportId: string;
  readonly deadline: Deadline;
  /** Rows read before this file, for deadline messages. */
  readonly rowsBefore: number;
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

/**
 * What the footer says of the file: its wanted columns, row groups in file
 * order and whether the page decoder reads them.
 *
 * @throws PlatformError (`upstream_error`) for a file without a `key` column or
 *   with a codec no decoder here reads.
 */
function planFile(footer: FileMetaData, file: ManifestFile, reportId: string) {
  const { metadata, perMs } = withRawTimestamps(footer);
  const present = new Set(metadata.schema.map((element) => element.name));
  const columns = WANTED.filter((name) => present.has(name));
  if (!present.has('key')) throw unreadable(reportId, file, 'no key column');
  const codecs = new Set(
    metadata.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec ?? 'UNCOMPRESSED')),
  );
  const unsupported = [...codecs].filter((codec) => codec !== 'UNCOMPRESSED' && !(codec in COMPRESSORS));
  if (unsupported.length > 0)
    throw unreadable(reportId, file, `${unsupported.join(', ')} compression is not supported`);
  return {
    metadata,
    perMs,
    columns,
    plans: planGroups(metadata, columns),
    fromPages: pageDecodable(metadata, columns, perMs),
  };
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
  const opening = openListedFile(reader, file, options.reportId);
  // Handled below (awaited, or closed when the footer refuses the file): never an unhandled rejection.
  opening.catch(() => undefined);
  let planned: ReturnType<typeof planFile>;
  try {
    planned = planFile(await readFooter(reader, file, options.reportId), file, options.reportId);
  } catch (err) {
    opening.then(
      (body) => (body as Readable).destroy(),
      () => undefined,
    );
    throw err;
  }
  const { metadata, perMs, columns, plans, fromPages } = planned;
  const row = new InventoryRow();
  const scratches = new Map<Wanted, ChunkScratch>();
  const integrity = new FileIntegrity(file, options.reportId);
  const body = await opening;
  let position = 0;
  let next = 0;
  let rows = 0;
  const held: Held = { from: 0, pieces: [], length: 0 };

  const completeGroups = async () => {
    for (let plan = plans[next]; plan && position >= plan.end; plan = plans[next]) {
      const count = plan.rowEnd - plan.rowStart;
      try {
        if (fromPages) {
          const keepFrom = plans[next + 1]?.start ?? position;
          const decoded = decodeGroupPages(metadata, plan.group, plan, held, columns, scratches, keepFrom);
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
