/**
 * The rows of the Athena route's query (inventory-sql.ts, `statsQuery`) folded
 * into the figures the single-function path reports (s3-inventory.ts): counts,
 * bytes, delete markers, histograms, added / changed / unchanged / removed,
 * ransom-note names, and the per-extension counts in full for the scan.
 */
import { PlatformError } from '../../../runtime/errors';
import { ExtensionCounts, ExtensionTable, type HistogramEntry, histogram } from '../index/extensions';

/** One result row of `statsQuery` (inventory-sql.ts), as text (Athena's GetQueryResults gives every value as a string). */
export type FigureRow = Readonly<
  Record<'side' | 'delete_marker' | 'change' | 'extension' | 'files' | 'bytes' | 'bytes_before', string>
>;

/** A change set's figures on the Athena route. */
export interface QueryTally {
  readonly count: number;
  readonly bytes: number;
  readonly byExtension: HistogramEntry[];
}

/** The figures of `statsQuery`, as the single-function path reports them. */
export interface QueryFigures {
  readonly newer: { readonly objects: number; readonly bytes: number; readonly deleteMarkers: number };
  readonly older: { readonly objects: number; readonly bytes: number; readonly deleteMarkers: number };
  /** Files and bytes by extension of the newer report: top {@link histogram} lines + `(other)`. */
  readonly newerHistogram: HistogramEntry[];
  readonly added: QueryTally;
  readonly changed: QueryTally & { readonly bytesBefore: number };
  readonly removed: QueryTally;
  readonly unchanged: { readonly count: number; readonly bytes: number };
  readonly deleteMarkersAdded: number;
  /** Ransom-note-like names among added and changed objects, and their folders (0 without an older report). */
  readonly ransomNotes: { readonly count: number; readonly folders: number };
  /**
   * Rows of each report whose Size or LastModifiedDate is not one (inventory-sql.ts,
   * `invalidValueSql`): the figures may not be reported unless both are 0 ({@link refuseInvalidRows}).
   */
  readonly invalidRows: { readonly newer: number; readonly older: number };
  /**
   * Files and bytes by extension in full, before any histogram cut (the scan's
   * extension figures, scan/inventory-step.ts): ids of `table`; delete markers excluded.
   */
  readonly byExtension: {
    readonly table: ExtensionTable;
    readonly added: ExtensionCounts;
    readonly changed: ExtensionCounts;
    readonly older: ExtensionCounts;
  };
}

/**
 * A count or byte sum of a result row: Athena gives it as decimal text (a
 * `bigint`; DuckDB's sum a `HUGEINT`), which may pass 2^53 for a large report's
 * bytes (a sum, while each Size is at most 2^53 − 1): read as the nearest double,
 * rounded once, as the single path's totals are converted once. Empty is 0 (no
 * value, as for a side's `bytes_before`).
 *
 * @throws PlatformError (`upstream_error`) for text that is not a whole number.
 */
function figure(row: FigureRow, column: 'files' | 'bytes' | 'bytes_before'): number {
  return Number(exactFigure(row, column));
}

/** {@link figure} exactly, for sums of sums: the single path's totals are exact until read (`ByteSum`). */
function exactFigure(row: FigureRow, column: 'files' | 'bytes' | 'bytes_before'): bigint {
  const text = row[column] ?? '';
  if (text === '') return 0n;
  if (!/^\d+$/.test(text)) {
    throw new PlatformError(
      'upstream_error',
      `Query result row has non-integer figures (${column} ${JSON.stringify(text)}): ${JSON.stringify(row)}`,
      { service: 'athena' },
    );
  }
  return BigInt(text);
}

/**
 * Folds `statsQuery`'s rows into the tools' figures, histograms cut to
 * `top` lines + `(other)` as on the single-function path.
 *
 * @throws PlatformError (`upstream_error`) for a row that is not one the query makes.
 */
export function foldFigureRows(rows: readonly FigureRow[], top: number): QueryFigures {
  const table = new ExtensionTable();
  // Bytes summed exactly (`bigint`) and rounded once when read, as the single path's `ByteSum`.
  const counts = () => ({ count: 0, bytes: 0n, byExtension: new ExtensionCounts() });
  const newerAll = counts();
  const olderAll = counts();
  const tallies = { added: counts(), changed: counts(), unchanged: counts(), removed: counts() };
  let newerMarkers = 0;
  let olderMarkers = 0;
  let markersAdded = 0;
  let bytesBefore = 0n;
  const ransomNotes = { count: 0, folders: 0 };
  const invalidRows = { newer: 0, older: 0 };
  for (const row of rows) {
    // A report's count of refused rows first: a row of Size 2^53 sums past 2^53, and must be refused as a value.
    if (row.side === 'invalid' && (row.change === 'newer' || row.change === 'older')) {
      invalidRows[row.change] += figure(row, 'files');
      continue;
    }
    const files = figure(row, 'files');
    const bytes = exactFigure(row, 'bytes');
    const marker = row.delete_marker === 'true';
    const extension = table.idOfName(row.extension);
    const into = (tally: ReturnType<typeof counts>) => {
      tally.count += files;
      tally.bytes += bytes;
      tally.byExtension.addTotal(extension, files, bytes);
    };
    if (row.side === 'notes') {
      ransomNotes.count += files;
      ransomNotes.folders += Number(bytes);
    } else if (row.side === 'newer') {
      if (marker) {
        newerMarkers += files;
        if (row.change === 'added') markersAdded += files;
        continue;
      }
      into(newerAll);
      const tally = tallies[row.change as 'added' | 'changed' | 'unchanged'];
      if (!tally)
        throw new PlatformError('upstream_error', `Unexpected change ${row.change}`, { service: 'athena' });
      into(tally);
      if (row.change === 'changed') bytesBefore += exactFigure(row, 'bytes_before');
    } else if (row.side === 'older') {
      if (marker) {
        olderMarkers += files;
        continue;
      }
      into(olderAll);
      if (row.change === 'removed') into(tallies.removed);
    } else {
      throw new PlatformError('upstream_error', `Unexpected side ${row.side}`, { service: 'athena' });
    }
  }
  const view = (tally: ReturnType<typeof counts>): QueryTally => ({
    count: tally.count,
    bytes: Number(tally.bytes),
    byExtension: histogram(tally.byExtension, table, top),
  });
  return {
    newer: { objects: newerAll.count, bytes: Number(newerAll.bytes), deleteMarkers: newerMarkers },
    older: { objects: olderAll.count, bytes: Number(olderAll.bytes), deleteMarkers: olderMarkers },
    newerHistogram: histogram(newerAll.byExtension, table, top),
    added: view(tallies.added),
    changed: { ...view(tallies.changed), bytesBefore: Number(bytesBefore) },
    removed: view(tallies.removed),
    unchanged: { count: tallies.unchanged.count, bytes: Number(tallies.unchanged.bytes) },
    deleteMarkersAdded: markersAdded,
    ransomNotes,
    invalidRows,
    byExtension: {
      table,
      added: tallies.added.byExtension,
      changed: tallies.changed.byExtension,
      older: olderAll.byExtension,
    },
  };
}

/**
 * Refuses figures counted over rows whose values are not ones, as the
 * single-function path refuses such a report (inventory/row-values.ts): a person
 * acts on a figure. Athena does not say which rows, so the message gives their count.
 *
 * @param reports - the snapshot ids of the query's reports, for the message.
 * @throws PlatformError (`upstream_error`, `details.reason: "invalid_row_value"`,
 *   `details.rows`) naming the report.
 */
export function refuseInvalidRows(
  figures: Pick<QueryFigures, 'invalidRows'>,
  reports: { readonly newer: string; readonly older?: string },
): void {
  for (const side of ['newer', 'older'] as const) {
    const rows = figures.invalidRows[side];
    const report = reports[side];
    if (rows === 0 || report === undefined) continue;
    throw new PlatformError(
      'upstream_error',
      `Inventory report ${report}: ${rows} row${rows === 1 ? '' : 's'} with a Size that is not a whole number of ` +
        'bytes from 0 to 2^53 − 1 or a LastModifiedDate that is not a time; ' +
        "are the data files written with the manifest's fileSchema (its columns in that order)? Its figures are not reported",
      { service: 's3', details: { report, rows, reason: 'invalid_row_value' } },
    );
  }
}
