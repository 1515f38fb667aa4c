/**
 * Decodes the column chunks an inventory reader needs straight from a Parquet
 * file's pages, without a JavaScript value per row: a text column (key,
 * version id, ETag) becomes three integer arrays pointing into the
 * decompressed pages (or the dictionary page) where each value's UTF-8 bytes
 * lie, a number column (size, last-modified) a Float64Array, a boolean column
 * (delete marker) a Uint8Array. The index hashes the bytes in place, so a
 * report of ten million keys makes no string for a key that is neither
 * sampled nor new.
 *
 * Covers what Parquet writers put in S3 Inventory's flat schema (Apache
 * Parquet format, "Encodings", "Data Pages"): data pages v1 and v2,
 * dictionary pages, PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY and RLE
 * (booleans) values, RLE definition levels of optional columns. A chunk using
 * another encoding is read by hyparquet instead ({@link fastPathReadable}).
 */

import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import { type Cursor, PAGE, readPageHeader, varint } from './parquet-page-header';
import { snappyUncompress } from './snappy';

/** Parquet `Encoding` values (parquet.thrift). */
const ENCODING = { PLAIN: 0, PLAIN_DICTIONARY: 2, RLE: 3, RLE_DICTIONARY: 8 } as const;

/** Encodings (as hyparquet names them in the metadata) this decoder reads. */
// BIT_PACKED is listed by writers (parquet-mr) as the repetition levels' encoding of flat columns, which have none.
const FAST_ENCODINGS = new Set(['PLAIN', 'PLAIN_DICTIONARY', 'RLE_DICTIONARY', 'RLE', 'BIT_PACKED']);
/** Codecs this decoder decompresses. */
const FAST_CODECS = new Set(['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'ZSTD']);

/** What a column must be for this decoder: its physical type. */
export type FastType = 'BYTE_ARRAY' | 'INT64' | 'BOOLEAN';

/** A column chunk's metadata as the decoder needs it (from hyparquet's `FileMetaData`). */
export interface ChunkInfo {
  readonly type: string;
  readonly optional: boolean;
  readonly codec: string;
  readonly encodings: readonly string[];
}

/**
 * Whether the decoder here reads a column chunk: one of its types, flat
 * (required or optional), with only its encodings and codecs.
 */
export function fastPathReadable(chunk: ChunkInfo, expected: FastType): boolean {
  return (
    chunk.type === expected &&
    FAST_CODECS.has(chunk.codec) &&
    chunk.encodings.every((encoding) => FAST_ENCODINGS.has(encoding))
  );
}

/** Text values: value `i` is `pages[page[i]][start[i], end[i])`; a null is empty. */
export interface TextColumn {
  readonly pages: Uint8Array[];
  readonly page: Int32Array;
  readonly start: Int32Array;
  readonly end: Int32Array;
}

/** A decoded chunk of `rows` values. */
export type DecodedColumn =
  | { readonly kind: 'text'; readonly values: TextColumn }
  | { readonly kind: 'number'; readonly values: Float64Array }
  | { readonly kind: 'boolean'; readonly values: Uint8Array };

// ------------------------------------------------------------ codecs and levels

function decompress(codec: string, input: Uint8Array, size: number): Uint8Array {
  switch (codec) {
    case 'UNCOMPRESSED':
      return input;
    case 'SNAPPY':
      return snappyUncompress(input, size);
    case 'GZIP':
      return gunzipSync(input);
    case 'BROTLI':
      return brotliDecompressSync(input);
    case 'ZSTD':
      return zstdDecompressSync(input);
    default:
      throw new Error(`${codec} compression is not supported`);
  }
}

/**
 * Reads `count` values of the RLE / bit-packed hybrid encoding of `width` bits
 * from `bytes[pos…end)` into `out[from…]`.
 *
 * @returns the position after the values read.
 */
function readHybrid(
  bytes: Uint8Array,
  start: number,
  end: number,
  width: number,
  count: number,
  out: Int32Array | Uint8Array,
  from: number,
): number {
  const c: Cursor = { bytes, pos: start };
  let written = 0;
  const byteWidth = (width + 7) >> 3;
  while (written < count && c.pos < end) {
    const header = varint(c);
    if (header % 2 === 0) {
      // An RLE run: one value repeated.
      const run = header / 2;
      let value = 0;
      for (let b = 0; b < byteWidth; b++) value += (bytes[c.pos++] as number) * 2 ** (8 * b);
      const stop = Math.min(count, written + run);
      out.fill(value, from + written, from + stop);
      written = stop;
    } else {
      // Bit-packed groups of 8 values, least significant bit first.
      const values = ((header - 1) / 2) * 8;
      let buffer = 0;
      let bits = 0;
      const mask = width > 24 ? 0 : (1 << width) - 1;
      for (let i = 0; i < values; i++) {
        while (bits < width) {
          buffer += (bytes[c.pos++] ?? 0) * 2 ** bits;
          bits += 8;
        }
        if (written < count) out[from + written++] = width > 24 ? buffer % 2 ** width : buffer & mask;
        buffer = Math.floor(buffer / 2 ** width);
        bits -= width;
      }
    }
  }
  if (written < count) throw new Error(`hybrid run ends after ${written} of ${count} values`);
  return c.pos;
}

// ------------------------------------------------------------ values

/**
 * Arrays one column's chunks are decoded into, kept from one row group to the
 * next: a row group's values are dropped once its rows are handed on, so the
 * next group of the same column reuses them instead of allocating (and making
 * V8 collect) a fresh set per group.
 */
export class ChunkScratch {
  page: Int32Array = new Int32Array(0);
  start: Int32Array = new Int32Array(0);
  end: Int32Array = new Int32Array(0);
  numbers: Float64Array = new Float64Array(0);
  booleans: Uint8Array = new Uint8Array(0);
  /** The column chunk's compressed bytes, copied out of the file's pieces. */
  bytes: Uint8Array = new Uint8Array(0);

  /** `rows` entries of a kept array, or a new one (kept) when it is too short. */
  static fit<T extends Int32Array | Float64Array | Uint8Array>(
    kept: T,
    rows: number,
    make: (n: number) => T,
  ): T {
    return (kept.length >= rows ? kept.subarray(0, rows) : make(rows)) as T;
  }
}

/** Where values go while a chunk is decoded. */
class ChunkBuilder {
  /** Page 0 is empty: the rows of nulls point there. */
  readonly pages: Uint8Array[] = [new Uint8Array(0)];
  readonly page: Int32Array;
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly numbers: Float64Array;
  readonly booleans: Uint8Array;
  /** The dictionary, when the chunk has one: text ranges in `dictionaryPage`, or numbers. */
  dictionaryPage = -1;
  dictionaryStart = new Int32Array(0);
  dictionaryEnd = new Int32Array(0);
  dictionaryNumbers = new Float64Array(0);
  /** Rows filled so far. */
  filled = 0;

  constructor(
    readonly type: FastType,
    readonly rows: number,
    scratch: ChunkScratch,
  ) {
    const text = type === 'BYTE_ARRAY';
    const ints = (n: number) => new Int32Array(n);
    this.page = text ? ChunkScratch.fit(scratch.page, rows, ints) : new Int32Array(0);
    this.start = text ? ChunkScratch.fit(scratch.start, rows, ints) : new Int32Array(0);
    this.end = text ? ChunkScratch.fit(scratch.end, rows, ints) : new Int32Array(0);
    this.numbers =
      type === 'INT64'
        ? ChunkScratch.fit(scratch.numbers, rows, (n) => new Float64Array(n))
        : new Float64Array(0);
    this.booleans =
      type === 'BOOLEAN'
        ? ChunkScratch.fit(scratch.booleans, rows, (n) => new Uint8Array(n))
        : new Uint8Array(0);
    // A reused array holds the last group's values: nulls are written explicitly and every row is filled.
    if (text && scratch.page.length < rows) {
      scratch.page = this.page;
      scratch.start = this.start;
      scratch.end = this.end;
    }
    if (type === 'INT64' && scratch.numbers.length < rows) scratch.numbers = this.numbers;
    if (type === 'BOOLEAN' && scratch.booleans.length < rows) scratch.booleans = this.booleans;
  }

  column(): DecodedColumn {
    if (this.type === 'BYTE_ARRAY')
      return {
        kind: 'text',
        values: { pages: this.pages, page: this.page, start: this.start, end: this.end },
      };
    return this.type === 'INT64'
      ? { kind: 'number', values: this.numbers }
      : { kind: 'boolean', values: this.booleans };
  }
}

function int64At(view: DataView, offset: number): number {
  return view.getInt32(offset + 4, true) * 0x100000000 + view.getUint32(offset, true);
}

function readDictionary(builder: ChunkBuilder, data: Uint8Array, count: number): void {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (builder.type === 'BYTE_ARRAY') {
    builder.pages.push(data);
    builder.dictionaryPage = builder.pages.length - 1;
    builder.dictionaryStart = new Int32Array(count);
    builder.dictionaryEnd = new Int32Array(count);
    let pos = 0;
    for (let i = 0; i < count; i++) {
      const length = view.getUint32(pos, true);
      builder.dictionaryStart[i] = pos + 4;
      pos += 4 + length;
      builder.dictionaryEnd[i] = pos;
    }
    if (pos > data.length) throw new Error('dictionary page ends inside a value');
  } else if (builder.type === 'INT64') {
    builder.dictionaryNumbers = new Float64Array(count);
    for (let i = 0; i < count; i++) builder.dictionaryNumbers[i] = int64At(view, 8 * i);
  } else {
    throw new Error('a BOOLEAN column has no dictionary');
  }
}

/** Nulls of a page: `present[i]` is 1 when value `i` is there (all 1 for a required column). */
function readValues(
  builder: ChunkBuilder,
  data: Uint8Array,
  pos: number,
  encoding: number,
  present: Uint8Array | null,
  count: number,
): void {
  const base = builder.filled;
  let nonNull = count;
  if (present) {
    nonNull = 0;
    for (let i = 0; i < count; i++) nonNull += present[i] as number;
  }
  // Values of the non-null rows, in order; spread over the rows afterwards.
  const rowOf = (n: number): number => n;
  let rowIndex: Int32Array | null = null;
  if (present && nonNull < count) {
    rowIndex = new Int32Array(nonNull);
    for (let i = 0, n = 0; i < count; i++) if (present[i]) rowIndex[n++] = i;
    // Nulls: empty text (page 0), NaN numbers, false booleans; written, since the arrays may be reused.
    for (let i = 0; i < count; i++) {
      if (present[i]) continue;
      if (builder.type === 'INT64') builder.numbers[base + i] = Number.NaN;
      else if (builder.type === 'BOOLEAN') builder.booleans[base + i] = 0;
      else {
        builder.page[base + i] = 0;
        builder.start[base + i] = 0;
        builder.end[base + i] = 0;
      }
    }
  }
  const at = rowIndex ? (n: number) => rowIndex[n] as number : rowOf;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (encoding === ENCODING.PLAIN) {
    if (builder.type === 'BYTE_ARRAY') {
      builder.pages.push(data);
      const page = builder.pages.length - 1;
      let p = pos;
      for (let n = 0; n < nonNull; n++) {
        const length = view.getUint32(p, true);
        const row = base + at(n);
        builder.page[row] = page;
        builder.start[row] = p + 4;
        p += 4 + length;
        builder.end[row] = p;
      }
      if (p > data.length) throw new Error('data page ends inside a value');
    } else if (builder.type === 'INT64') {
      if (pos + 8 * nonNull > data.length) throw new Error('data page ends inside a value');
      for (let n = 0; n < nonNull; n++) builder.numbers[base + at(n)] = int64At(view, pos + 8 * n);
    } else {
      for (let n = 0; n < nonNull; n++)
        builder.booleans[base + at(n)] = ((data[pos + (n >> 3)] as number) >> (n & 7)) & 1;
    }
  } else if (encoding === ENCODING.RLE && builder.type === 'BOOLEAN') {
    const length = view.getUint32(pos, true);
    const bits = new Uint8Array(nonNull);
    readHybrid(data, pos + 4, pos + 4 + length, 1, nonNull, bits, 0);
    for (let n = 0; n < nonNull; n++) builder.booleans[base + at(n)] = bits[n] as number;
  } else if (encoding === ENCODING.PLAIN_DICTIONARY || encoding === ENCODING.RLE_DICTIONARY) {
    const width = data[pos] as number;
    const indexes = new Int32Array(nonNull);
    if (width > 0) readHybrid(data, pos + 1, data.length, width, nonNull, indexes, 0);
    if (builder.type === 'BYTE_ARRAY') {
      if (builder.dictionaryPage < 0) throw new Error('dictionary-encoded page without a dictionary');
      const { dictionaryStart, dictionaryEnd } = builder;
      for (let n = 0; n < nonNull; n++) {
        const index = indexes[n] as number;
        if (index >= dictionaryStart.length) throw new Error('dictionary index out of range');
        const row = base + at(n);
        builder.page[row] = builder.dictionaryPage;
        builder.start[row] = dictionaryStart[index] as number;
        builder.end[row] = dictionaryEnd[index] as number;
      }
    } else if (builder.type === 'INT64') {
      const dictionary = builder.dictionaryNumbers;
      for (let n = 0; n < nonNull; n++) {
        const index = indexes[n] as number;
        if (index >= dictionary.length) throw new Error('dictionary index out of range');
        builder.numbers[base + at(n)] = dictionary[index] as number;
      }
    } else throw new Error('a dictionary-encoded BOOLEAN page');
  } else {
    throw new Error(`encoding ${encoding} is not supported here`);
  }
  builder.filled += count;
}

/**
 * Decodes one column chunk of a row group.
 *
 * @param bytes - the chunk's bytes, from its first page header (dictionary or data) to its end.
 * @param rows - the row group's rows (the chunk holds one value per row).
 * @param scratch - arrays to decode into, reused from the column's previous row
 *   group (the values returned are valid until the next call with it).
 * @throws Error naming what is malformed or unsupported; the reader turns it into `upstream_error`.
 */
export function decodeChunk(
  bytes: Uint8Array,
  info: ChunkInfo,
  type: FastType,
  rows: number,
  scratch: ChunkScratch = new ChunkScratch(),
): DecodedColumn {
  const builder = new ChunkBuilder(type, rows, scratch);
  const c: Cursor = { bytes, pos: 0 };
  while (builder.filled < rows) {
    if (c.pos >= bytes.length) throw new Error(`column chunk ends after ${builder.filled} of ${rows} values`);
    const header = readPageHeader(c);
    const pageStart = c.pos;
    const pageEnd = pageStart + header.compressedSize;
    if (pageEnd > bytes.length) throw new Error('page longer than its column chunk');
    c.pos = pageEnd;
    if (header.type === PAGE.DICTIONARY_PAGE) {
      const data = decompress(info.codec, bytes.subarray(pageStart, pageEnd), header.uncompressedSize);
      readDictionary(builder, data, header.values);
    } else if (header.type === PAGE.DATA_PAGE || header.type === PAGE.DATA_PAGE_V2) {
      const count = header.values;
      if (builder.filled + count > rows) throw new Error('more values than the row group has rows');
      let present: Uint8Array | null = null;
      let data: Uint8Array;
      let pos = 0;
      if (header.type === PAGE.DATA_PAGE) {
        data = decompress(info.codec, bytes.subarray(pageStart, pageEnd), header.uncompressedSize);
        if (info.optional) {
          if (header.definitionEncoding !== ENCODING.RLE)
            throw new Error(
              `definition levels in encoding ${header.definitionEncoding} are not supported here`,
            );
          const length = new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true);
          present = new Uint8Array(count);
          readHybrid(data, 4, 4 + length, 1, count, present, 0);
          pos = 4 + length;
        }
      } else {
        const levelsEnd = pageStart + header.repetitionBytes + header.definitionBytes;
        if (header.repetitionBytes > 0) throw new Error('repeated values in a flat column');
        if (info.optional) {
          present = new Uint8Array(count);
          readHybrid(bytes, pageStart, levelsEnd, 1, count, present, 0);
        }
        const values = bytes.subarray(levelsEnd, pageEnd);
        data = header.compressed
          ? decompress(info.codec, values, header.uncompressedSize - (levelsEnd - pageStart))
          : values;
      }
      readValues(builder, data, pos, header.encoding, present, count);
    }
    // Index pages and unknown page types carry no values: skipped.
  }
  return builder.column();
}
