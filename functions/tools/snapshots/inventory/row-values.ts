/**
 * The values every row must hold before it is added up, whatever the format:
 * a wrong size or date is not a figure to report (a person acts on a figure),
 * so a report holding one is refused as a whole, naming the row.
 */
import { PlatformError } from '../../../runtime/errors';
import type { ColumnPositions, InventoryRow, InventoryRowSink } from './rows';

/** Where a row was read: its report, data file and which optional columns the report lists. */
export interface RowOrigin {
  readonly reportId: string;
  /** The data file's key in the destination bucket. */
  readonly fileKey: string;
  readonly positions: ColumnPositions;
}

/**
 * `sink` behind the checks of each row's values, counting rows from 1 in the file:
 *
 * - `Size` a whole number of bytes, 0 to 2^53 − 1 (S3 User Guide, "Amazon S3
 *   Inventory list": "Size – The object size in bytes"; empty, as for a delete
 *   marker, reads as 0);
 * - `LastModifiedDate`, when the report lists it, a time (the same page: "the
 *   date the object was created or the last modified date, whichever is the latest").
 *
 * A value that fails is mostly a data file written with another schema than the
 * manifest's `fileSchema` (columns in another order), so the message says so.
 *
 * @throws PlatformError (`upstream_error`, `details.reason: "invalid_row_value"`,
 *   `details.column`, `details.row`) from `row()` for a row that fails.
 */
export function checkedRowSink(sink: InventoryRowSink, origin: RowOrigin): InventoryRowSink {
  const listsLastModified = origin.positions.lastModified >= 0;
  let rowNumber = 0;
  return {
    row(row: InventoryRow): void {
      rowNumber++;
      if (!(Number.isSafeInteger(row.size) && row.size >= 0)) {
        throw invalidValue(
          origin,
          rowNumber,
          'Size',
          `its Size reads as ${row.size}, not a whole number of bytes from 0 to 2^53 − 1`,
        );
      }
      if (listsLastModified && Number.isNaN(row.lastModifiedMs)) {
        throw invalidValue(
          origin,
          rowNumber,
          'LastModifiedDate',
          'its LastModifiedDate is not a time (S3 writes ISO 8601 UTC such as 2026-03-01T01:02:03.000Z)',
        );
      }
      sink.row(row);
    },
  };
}

function invalidValue(origin: RowOrigin, row: number, column: string, what: string): PlatformError {
  return new PlatformError(
    'upstream_error',
    `Inventory report ${origin.reportId}: row ${row} of ${origin.fileKey}: ${what}; ` +
      "is the data file written with the manifest's fileSchema (its columns in that order)? Its figures are not reported",
    {
      service: 's3',
      details: { report: origin.reportId, key: origin.fileKey, row, column, reason: 'invalid_row_value' },
    },
  );
}
