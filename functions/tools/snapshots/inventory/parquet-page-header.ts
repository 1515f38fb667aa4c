/**
 * A Parquet page header (Apache Parquet format, parquet.thrift `PageHeader`), read
 * from its Thrift compact-protocol encoding: only the fields the page decoder
 * (`parquet-pages.ts`) uses; the others — statistics, CRC, binaries, lists —
 * are skipped.
 */

/** Parquet `PageType` values. */
export const PAGE = { DATA_PAGE: 0, DICTIONARY_PAGE: 2, DATA_PAGE_V2: 3 } as const;

/** A cursor over bytes. */
export interface Cursor {
  readonly bytes: Uint8Array;
  pos: number;
}

/** An unsigned LEB128 varint (Thrift compact protocol; also the hybrid encoding's run headers). */
export function varint(c: Cursor): number {
  let result = 0;
  let shift = 1;
  for (;;) {
    const byte = c.bytes[c.pos++];
    if (byte === undefined) throw new Error('page header ends inside a number');
    result += (byte & 0x7f) * shift;
    if (byte < 0x80) return result;
    shift *= 128;
  }
}

function zigzag(c: Cursor): number {
  const n = varint(c);
  return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
}

/** A Thrift compact-protocol struct as `{ field id: value }` (numbers, booleans, nested structs; binaries and lists skipped). */
type ThriftStruct = Map<number, number | boolean | ThriftStruct>;

function skipValue(c: Cursor, type: number): void {
  switch (type) {
    case 1:
    case 2:
      return;
    case 3:
      c.pos++;
      return;
    case 4:
    case 5:
    case 6:
      varint(c);
      return;
    case 7:
      c.pos += 8;
      return;
    case 8:
      c.pos += varint(c);
      return;
    case 9:
    case 10: {
      const header = c.bytes[c.pos++] as number;
      let size = header >> 4;
      if (size === 15) size = varint(c);
      const elementType = header & 0x0f;
      for (let i = 0; i < size; i++) {
        if (elementType === 1 || elementType === 2) c.pos++;
        else skipValue(c, elementType);
      }
      return;
    }
    case 11: {
      const size = varint(c);
      if (size === 0) return;
      const types = c.bytes[c.pos++] as number;
      for (let i = 0; i < size; i++) {
        skipValue(c, types >> 4);
        skipValue(c, types & 0x0f);
      }
      return;
    }
    case 12:
      readStruct(c);
      return;
    default:
      throw new Error(`page header has an unknown Thrift type ${type}`);
  }
}

function readStruct(c: Cursor): ThriftStruct {
  const fields: ThriftStruct = new Map();
  let id = 0;
  for (;;) {
    const header = c.bytes[c.pos++];
    if (header === undefined) throw new Error('page header ends inside a struct');
    if (header === 0) return fields;
    const delta = header >> 4;
    const type = header & 0x0f;
    id = delta === 0 ? zigzag(c) : id + delta;
    if (type === 1 || type === 2) fields.set(id, type === 1);
    else if (type >= 3 && type <= 6) fields.set(id, type === 3 ? (c.bytes[c.pos++] as number) : zigzag(c));
    else if (type === 12) fields.set(id, readStruct(c));
    else skipValue(c, type);
  }
}

/** A page header's fields the decoder uses. */
export interface PageHeader {
  readonly type: number;
  readonly uncompressedSize: number;
  readonly compressedSize: number;
  /** Values in the page, nulls included. */
  readonly values: number;
  readonly encoding: number;
  /** v1: the definition levels' encoding. */
  readonly definitionEncoding: number;
  /** v2: byte lengths of the levels, stored uncompressed before the values. */
  readonly definitionBytes: number;
  readonly repetitionBytes: number;
  readonly compressed: boolean;
}

function num(struct: ThriftStruct | undefined, id: number): number {
  const value = struct?.get(id);
  return typeof value === 'number' ? value : 0;
}

/**
 * Reads a `PageHeader` (parquet.thrift) at the cursor and moves past it.
 *
 * @throws Error when the header is cut short or holds an unknown Thrift type.
 */
export function readPageHeader(c: Cursor): PageHeader {
  const fields = readStruct(c);
  const type = num(fields, 1);
  const v1 = fields.get(5) as ThriftStruct | undefined;
  const dictionary = fields.get(7) as ThriftStruct | undefined;
  const v2 = fields.get(8) as ThriftStruct | undefined;
  const body = type === PAGE.DATA_PAGE ? v1 : type === PAGE.DICTIONARY_PAGE ? dictionary : v2;
  return {
    type,
    uncompressedSize: num(fields, 2),
    compressedSize: num(fields, 3),
    values: num(body, 1),
    encoding: num(body, type === PAGE.DATA_PAGE_V2 ? 4 : 2),
    definitionEncoding: num(v1, 3),
    definitionBytes: num(v2, 5),
    repetitionBytes: num(v2, 6),
    compressed: v2?.get(7) !== false,
  };
}
