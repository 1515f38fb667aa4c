/**
 * What the inventory readers hand on: one call per listed object, with
 * positional arguments so that ten million rows allocate no row objects.
 */
import type { Deadline } from '../../../runtime/deadline';
import { DeadlineExceededError } from '../../../runtime/errors';

const NO_BYTES = new Uint8Array(0);

/** UTF-8 bytes `[start, end)` of `bytes` as a string (a copy, sharing no memory with the page). */
function utf8(bytes: Uint8Array, start: number, end: number): string {
  return end === start
    ? ''
    : Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
}

/**
 * One listed object, version or delete marker, as a reader hands it on: one
 * instance per reader, refilled for every row, so ten million rows allocate no
 * row objects. Its key, version id and ETag are UTF-8 byte ranges — of a
 * Parquet page as decoded, or of a scratch buffer the CSV reader encodes its
 * decoded fields into — which the index hashes without making a string; the
 * strings are made only when asked ({@link key}, {@link versionId}: samples,
 * ransom-note names), once per row.
 */
export class InventoryRow {
  /** The object key, decoded (CSV keys are URL-decoded first): `keyBytes[keyStart, keyEnd)`. */
  keyBytes: Uint8Array = NO_BYTES;
  keyStart = 0;
  keyEnd = 0;
  /** Empty for an inventory of current versions only (and for objects written while versioning was off). */
  versionBytes: Uint8Array = NO_BYTES;
  versionStart = 0;
  versionEnd = 0;
  /** Empty when the report does not list it. */
  eTagBytes: Uint8Array = NO_BYTES;
  eTagStart = 0;
  eTagEnd = 0;
  isDeleteMarker = false;
  /** Bytes; 0 for a delete marker. */
  size = 0;
  /** ms since 1970; NaN when the report does not list it. */
  lastModifiedMs = Number.NaN;
  private keyText: string | undefined;
  private versionText: string | undefined;
  private scratch = Buffer.allocUnsafe(1024);

  /** The key as a string (made once per row, on first use). */
  key(): string {
    if (this.keyText === undefined) this.keyText = utf8(this.keyBytes, this.keyStart, this.keyEnd);
    return this.keyText;
  }

  /** The version id as a string, empty when none. */
  versionId(): string {
    if (this.versionText === undefined)
      this.versionText = utf8(this.versionBytes, this.versionStart, this.versionEnd);
    return this.versionText;
  }

  /** Starts a row read from bytes (Parquet): the caller then sets the byte ranges and values. */
  clearText(): void {
    if (this.keyText !== undefined) this.keyText = undefined;
    if (this.versionText !== undefined) this.versionText = undefined;
  }

  /**
   * Sets the key from a string (a CSV key that had to be URL-decoded), encoded
   * as UTF-8 into the scratch buffer; the other byte ranges are left as they are.
   */
  setKeyText(key: string): void {
    if (3 * key.length > this.scratch.length)
      this.scratch = Buffer.allocUnsafe(Math.max(3 * key.length, 2 * this.scratch.length));
    this.keyBytes = this.scratch;
    this.keyStart = 0;
    this.keyEnd = this.scratch.write(key, 0, 'utf8');
    this.keyText = key;
  }

  /**
   * Fills the row from text fields (CSV, tests): the three strings are encoded
   * as UTF-8 into one scratch buffer that the byte ranges point into.
   */
  setText(
    key: string,
    versionId: string,
    isDeleteMarker: boolean,
    size: number,
    lastModifiedMs: number,
    eTag: string,
  ): this {
    const most = 3 * (key.length + versionId.length + eTag.length);
    if (most > this.scratch.length)
      this.scratch = Buffer.allocUnsafe(Math.max(most, 2 * this.scratch.length));
    const scratch = this.scratch;
    const keyEnd = scratch.write(key, 0, 'utf8');
    const versionEnd = keyEnd + scratch.write(versionId, keyEnd, 'utf8');
    const eTagEnd = versionEnd + scratch.write(eTag, versionEnd, 'utf8');
    this.keyBytes = scratch;
    this.keyStart = 0;
    this.keyEnd = keyEnd;
    this.versionBytes = scratch;
    this.versionStart = keyEnd;
    this.versionEnd = versionEnd;
    this.eTagBytes = scratch;
    this.eTagStart = versionEnd;
    this.eTagEnd = eTagEnd;
    this.isDeleteMarker = isDeleteMarker;
    this.size = size;
    this.lastModifiedMs = lastModifiedMs;
    this.keyText = key;
    this.versionText = versionId;
    return this;
  }
}

/** Receives a report's rows in file order. */
export interface InventoryRowSink {
  /** One listed object, version or delete marker; `row` is reused by the reader after the call returns. */
  row(row: InventoryRow): void;
}

/** Rows read between two deadline checks. */
export const ROWS_PER_DEADLINE_CHECK = 65_536;

/**
 * Throws once the deadline has passed: a partial report would give wrong
 * counts, so a report too large for the call's time fails as a whole.
 *
 * @throws DeadlineExceededError (`timeout`) naming the report and the rows read.
 */
export function checkReadDeadline(deadline: Deadline, reportId: string, rowsRead: number): void {
  if (deadline.expired()) {
    throw new DeadlineExceededError(
      `Deadline reached after ${rowsRead} rows of inventory report ${reportId}; a report this large needs a longer ` +
        'timeout or the Athena / Distributed Map route (docs/snapshot-tools.md)',
    );
  }
}

const DIGIT_0 = 48;
const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`), arithmetic only. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The longest time {@link inventoryTimeOfBytes} reads: `YYYY-MM-DDTHH:MM:SS.fffffffffZ`. */
const LONGEST_TIME = 30;

/** Where {@link parseInventoryTime} copies a time to read it as bytes. */
const TIME_SCRATCH = Buffer.alloc(LONGEST_TIME);

/** The two-digit number at `bytes[at]`; -1 when either byte is not a digit. */
function twoDigits(bytes: Uint8Array, at: number): number {
  const high = (bytes[at] as number) - DIGIT_0;
  const low = (bytes[at + 1] as number) - DIGIT_0;
  return high >>> 0 > 9 || low >>> 0 > 9 ? -1 : high * 10 + low;
}

/** Days in each month of a common year, January first; February has 29 in a leap year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Whether `year` is a Gregorian leap year (every 4th, not every 100th, every 400th). */
function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * The last date {@link inventoryTimeOfBytes} computed, as `yyyymmdd`, and its
 * days since 1970: a report's rows share few dates, so most rows skip the
 * calendar checks and arithmetic.
 */
let lastDate = -1;
let lastDays = 0;

/** Where a digit of the fraction is: the byte after `.`, up to 9 of them. */
const FRACTION_START = 20;
const DASH = 45;
const COLON = 58;
const DOT = 46;
const UPPER_T = 84;
const UPPER_Z = 90;

/**
 * Milliseconds since 1970 of the inventory timestamp in ASCII `bytes[start, end)`:
 * S3's CSV form, ISO 8601 in UTC, `2016-11-06T21:32:30.000Z` (S3 User Guide,
 * "Amazon S3 Inventory list", LastModifiedDate: "ISO 8601 format"), also without
 * the fraction (`…T21:32:30Z`) or with 1 to 9 fraction digits, truncated to the
 * millisecond. Upper-case `T` and `Z` only, a year 1000-9999, a real calendar
 * date (month 1-12, the month's days, 29 February in leap years only), hour
 * 0-23, minute and second 0-59. Anything else — another zone or offset, a date
 * without a time, a bare number, empty — gives NaN: `checkedRowSink` refuses it,
 * and the Athena route's `csvTimestamp` (athena/inventory-sql.ts) refuses the
 * same set. Computed from its digits, no regular expression or `Date.parse` (a
 * tenth of `Date.parse`'s cost, which matters at millions of rows).
 */
export function inventoryTimeOfBytes(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (
    length < 20 ||
    length > LONGEST_TIME ||
    length === 21 ||
    bytes[end - 1] !== UPPER_Z ||
    bytes[start + 4] !== DASH ||
    bytes[start + 7] !== DASH ||
    bytes[start + 10] !== UPPER_T ||
    bytes[start + 13] !== COLON ||
    bytes[start + 16] !== COLON
  ) {
    return Number.NaN;
  }
  const century = twoDigits(bytes, start);
  const yearOfCentury = twoDigits(bytes, start + 2);
  const month = twoDigits(bytes, start + 5);
  const day = twoDigits(bytes, start + 8);
  const hour = twoDigits(bytes, start + 11);
  const minute = twoDigits(bytes, start + 14);
  const second = twoDigits(bytes, start + 17);
  if (
    century < 10 ||
    yearOfCentury < 0 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59
  ) {
    return Number.NaN;
  }
  let ms = 0;
  if (length > 20) {
    // `.` then 1-9 digits, then the `Z` checked above: the first three are the milliseconds.
    if (bytes[start + 19] !== DOT) return Number.NaN;
    for (let i = start + FRACTION_START, scale = 100; i < end - 1; i++, scale /= 10) {
      const digit = (bytes[i] as number) - DIGIT_0;
      if (digit >>> 0 > 9) return Number.NaN;
      if (scale >= 1) ms += digit * scale;
    }
  }
  const year = century * 100 + yearOfCentury;
  const date = (year * 100 + month) * 100 + day;
  if (date !== lastDate) {
    const days = month === 2 && isLeapYear(year) ? 29 : (MONTH_DAYS[month - 1] as number);
    if (day > days) return Number.NaN;
    lastDays = daysFromCivil(year, month, day);
    lastDate = date;
  }
  return lastDays * DAY_MS + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
}

/**
 * Milliseconds since 1970 of an inventory timestamp ({@link inventoryTimeOfBytes}
 * of its text: the same forms, NaN for any other, a character beyond ASCII included).
 *
 * @example parseInventoryTime('2016-11-06T21:32:30.000Z') // 1478467950000
 */
export function parseInventoryTime(text: string): number {
  if (text.length < 20 || text.length > LONGEST_TIME) return Number.NaN;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return Number.NaN;
  TIME_SCRATCH.write(text, 0, 'latin1');
  return inventoryTimeOfBytes(TIME_SCRATCH, 0, text.length);
}

/**
 * A CSV `Size` field's bytes (S3 User Guide, "Amazon S3 Inventory list": "The
 * object size in bytes"): 1-16 decimal digits, 0 when empty (a delete marker),
 * NaN for anything else, whitespace, signs, exponents and hex included — as the
 * CSV reader's fast path reads it from bytes.
 *
 * @example inventorySizeOfText('1024') // 1024
 * @example inventorySizeOfText(' 12') // NaN
 */
export function inventorySizeOfText(text: string): number {
  if (text === '') return 0;
  return /^[0-9]{1,16}$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * An object key as a CSV report writes it, decoded. CSV reports URL-encode keys
 * (S3 User Guide, "Amazon S3 Inventory list": "the key name is URL-encoded and
 * must be decoded"), as form values: a space is `+`, a plus `%2B`. A key that
 * does not decode is kept as written.
 *
 * @example decodeCsvKey('my+photos/caf%C3%A9.jpg') // 'my photos/café.jpg'
 */
export function decodeCsvKey(raw: string): string {
  const spaced = raw.indexOf('+') === -1 ? raw : raw.replace(/\+/g, ' ');
  if (spaced.indexOf('%') === -1) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return raw;
  }
}

/** Where each column the tools use sits in a row; -1 when the report does not have it. */
export interface ColumnPositions {
  readonly key: number;
  readonly versionId: number;
  readonly isDeleteMarker: number;
  readonly size: number;
  readonly lastModified: number;
  readonly eTag: number;
  /** Columns per row. */
  readonly count: number;
}

/** The positions of the columns in a schema's (snake_case) column list. */
export function columnPositions(columns: readonly string[]): ColumnPositions {
  return {
    key: columns.indexOf('key'),
    versionId: columns.indexOf('version_id'),
    isDeleteMarker: columns.indexOf('is_delete_marker'),
    size: columns.indexOf('size'),
    lastModified: columns.indexOf('last_modified_date'),
    eTag: columns.indexOf('e_tag'),
    count: columns.length,
  };
}
