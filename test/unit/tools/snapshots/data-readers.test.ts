import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import { PlatformError } from '../../../../functions/runtime/errors';
import { hashIdentity } from '../../../../functions/tools/snapshots/index/key-hash';
import { readCsvDataFile } from '../../../../functions/tools/snapshots/inventory/csv-reader';
import type { InventoryObjectReader } from '../../../../functions/tools/snapshots/inventory/guarded-reader';
import type { ManifestFile } from '../../../../functions/tools/snapshots/inventory/manifest';
import { readParquetDataFile } from '../../../../functions/tools/snapshots/inventory/parquet-reader';
import {
  columnPositions,
  decodeCsvKey,
  InventoryRow,
  type InventoryRowSink,
  inventoryTimeOfBytes,
  parseInventoryTime,
} from '../../../../functions/tools/snapshots/inventory/rows';
import { csvLine, type InventoryObject, parquetBytes } from '../../../helpers/inventory-fixtures';

type Row = [string, string, boolean, number, number, string];

function collector(): InventoryRowSink & { rows: Row[] } {
  const rows: Row[] = [];
  const text = (bytes: Uint8Array, start: number, end: number) =>
    Buffer.from(bytes.subarray(start, end)).toString('utf8');
  return {
    rows,
    row: (r) =>
      rows.push([
        r.key(),
        r.versionId(),
        r.isDeleteMarker,
        r.size,
        r.lastModifiedMs,
        text(r.eTagBytes, r.eTagStart, r.eTagEnd),
      ]),
  };
}

function fileOf(bytes: Buffer, md5 = createHash('md5').update(bytes).digest('hex')): ManifestFile {
  return {
    key: 'inv/photos/daily/data/939c6d46-85a9-4ba8-87bd-9db705a579ce.csv.gz',
    size: bytes.length,
    md5,
  };
}

/** The bytes as a stream of `chunk`-byte pieces, so lines and row groups straddle chunks. */
function chunked(bytes: Buffer, chunk: number): Readable {
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) pieces.push(bytes.subarray(i, i + chunk));
  return Readable.from(pieces);
}

const options = () => ({
  reportId: 's3_inventory:photos/daily/2026-03-01T01-00Z',
  deadline: deadlineIn(30_000),
  rowsBefore: 0,
});
const CSV_COLUMNS = columnPositions(['bucket', 'key', 'size', 'last_modified_date', 'e_tag']);
const VERSIONED_COLUMNS = columnPositions([
  'bucket',
  'key',
  'version_id',
  'is_latest',
  'is_delete_marker',
  'size',
  'last_modified_date',
  'e_tag',
]);

const objects: InventoryObject[] = [
  {
    key: 'photos/summer 2024/beach+sun.jpg',
    size: 1024,
    lastModifiedMs: Date.UTC(2024, 6, 1, 12, 0, 0, 5),
    eTag: 'a'.repeat(32),
  },
  { key: 'docs/café/résumé.pdf', size: 2048, lastModifiedMs: Date.UTC(2024, 1, 29), eTag: 'b'.repeat(32) },
  {
    key: 'plain.txt',
    size: 0,
    lastModifiedMs: Date.UTC(2025, 11, 31, 23, 59, 59, 999),
    eTag: 'c'.repeat(32),
  },
];

describe('inventory row helpers', () => {
  it.each([
    ['2016-11-06T21:32:30.000Z', Date.UTC(2016, 10, 6, 21, 32, 30)],
    ['2024-02-29T00:00:00.123Z', Date.UTC(2024, 1, 29, 0, 0, 0, 123)],
    ['1999-12-31T23:59:59.999Z', Date.UTC(1999, 11, 31, 23, 59, 59, 999)],
    ['2016-11-06T21:32:30Z', Date.UTC(2016, 10, 6, 21, 32, 30)],
  ])('reads %s as Date.UTC does', (text, ms) => {
    expect(parseInventoryTime(text)).toBe(ms);
  });

  it('reads an empty time as NaN', () => {
    expect(parseInventoryTime('')).toBeNaN();
  });

  it('reads a time from its bytes as from its text, and a 24-character time beyond ASCII as Date.parse does', () => {
    const bytes = Buffer.from('xx2016-11-06T21:32:30.000Zyy');
    expect(inventoryTimeOfBytes(bytes, 2, 26)).toBe(Date.UTC(2016, 10, 6, 21, 32, 30));
    expect(inventoryTimeOfBytes(bytes, 2, 2)).toBeNaN();
    // U+0130's low byte is "0": read as a byte it would pass for a digit.
    expect(parseInventoryTime('2016-11-06T21:32:30.00\u0130Z')).toBeNaN();
  });

  it('decodes form-URL-encoded keys and keeps undecodable ones', () => {
    expect(decodeCsvKey('my+photos%2Fcaf%C3%A9.jpg')).toBe('my photos/café.jpg');
    expect(decodeCsvKey('a%2Bb.txt')).toBe('a+b.txt');
    expect(decodeCsvKey('broken%E0%A4.txt')).toBe('broken%E0%A4.txt');
  });
});

describe('readCsvDataFile', () => {
  it('reads every row, across chunk boundaries and CRLF line ends, decoding keys', async () => {
    const text = objects.map((o) => csvLine('photos', o, false).replace('\n', '\r\n')).join('');
    const bytes = gzipSync(Buffer.from(text));
    const sink = collector();

    const count = await readCsvDataFile(chunked(bytes, 7), fileOf(bytes), CSV_COLUMNS, sink, options());

    expect(count).toBe(3);
    expect(sink.rows).toEqual(objects.map((o) => [o.key, '', false, o.size, o.lastModifiedMs, o.eTag]));
  });

  it('reads versions and delete markers', async () => {
    const rows: InventoryObject[] = [
      {
        key: 'a.txt',
        versionId: 'v2',
        isLatest: false,
        isDeleteMarker: true,
        size: 0,
        lastModifiedMs: 1000,
        eTag: '',
      },
      { key: 'a.txt', versionId: 'v1', isLatest: false, size: 5, lastModifiedMs: 500, eTag: 'd'.repeat(32) },
    ];
    const bytes = gzipSync(Buffer.from(rows.map((o) => csvLine('photos', o, true)).join('')));
    const sink = collector();

    await readCsvDataFile(chunked(bytes, 64), fileOf(bytes), VERSIONED_COLUMNS, sink, options());

    expect(sink.rows).toEqual([
      ['a.txt', 'v2', true, 0, 1000, ''],
      ['a.txt', 'v1', false, 5, 500, 'd'.repeat(32)],
    ]);
  });

  it('hands a line of another shape to csv-parse (an escaped quote, unquoted fields)', async () => {
    const bytes = gzipSync(
      Buffer.from(
        '"photos","say ""hi"".txt","3","2024-01-01T00:00:00.000Z","e"\nphotos,plain.bin,4,2024-01-01T00:00:00.000Z,f\n',
      ),
    );
    const sink = collector();

    await readCsvDataFile(chunked(bytes, 1000), fileOf(bytes), CSV_COLUMNS, sink, options());

    expect(sink.rows.map((r) => [r[0], r[3], r[5]])).toEqual([
      ['say "hi".txt', 3, 'e'],
      ['plain.bin', 4, 'f'],
    ]);
  });

  it('reads raw non-ASCII bytes (through csv-parse) and keys needing decoding to the same row as their encoded forms', async () => {
    const lines = [
      '"photos","caf\u00e9/r\u00e9sum\u00e9.pdf","7","2024-01-01T00:00:00.000Z","e1"',
      '"photos","caf%C3%A9/r%C3%A9sum%C3%A9.pdf","7","2024-01-01T00:00:00.000Z","e1"',
      '"photos","my+photos%2Fa%2Bb.jpg","","2024-02-29T12:00:00Z","e2"',
      '"photos","50%+off.txt","1","","e3"',
      '"photos","a+b","1","","e4"',
    ];
    const bytes = gzipSync(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
    const seed = { a: 1, b: 2 };
    const hashes: string[] = [];
    const sink = collector();
    const hashing: InventoryRowSink = {
      row: (r) => {
        const out = { hi: 0, lo: 0 };
        hashIdentity(seed, r, false, out);
        hashes.push(`${out.hi}:${out.lo}`);
        sink.row(r);
      },
    };

    await readCsvDataFile(chunked(bytes, 5), fileOf(bytes), CSV_COLUMNS, hashing, options());

    expect(sink.rows).toEqual([
      ['café/résumé.pdf', '', false, 7, Date.UTC(2024, 0, 1), 'e1'],
      ['café/résumé.pdf', '', false, 7, Date.UTC(2024, 0, 1), 'e1'],
      ['my photos/a+b.jpg', '', false, 0, Date.UTC(2024, 1, 29, 12), 'e2'],
      // Not well-formed: kept as written, as decodeCsvKey keeps it.
      ['50%+off.txt', '', false, 1, Number.NaN, 'e3'],
      ['a b', '', false, 1, Number.NaN, 'e4'],
    ]);
    expect(hashes[0]).toBe(hashes[1]);
    const fromText = { hi: 0, lo: 0 };
    hashIdentity(seed, new InventoryRow().setText('my photos/a+b.jpg', '', false, 0, 0, ''), false, fromText);
    expect(hashes[2]).toBe(`${fromText.hi}:${fromText.lo}`);
  });

  it('reads a size that is not plain digits, and a time that is not S3 ISO 8601 UTC, as NaN', async () => {
    const bytes = gzipSync(
      Buffer.from('"photos","a.txt","1e3","2024-01-01T00:00:00.000Z","e"\n"photos","b.txt","x","","e"\n'),
    );
    const sink = collector();

    await readCsvDataFile(chunked(bytes, 1000), fileOf(bytes), CSV_COLUMNS, sink, options());

    expect(sink.rows.map((r) => [r[3], r[4]])).toEqual([
      [Number.NaN, Date.UTC(2024, 0, 1)],
      [Number.NaN, Number.NaN],
    ]);
  });

  it('reads mixed lines as csv-parse does, every one cut at every chunk size (in-place lines, CRLF, empty and odd lines, no last newline)', async () => {
    // Dates change from row to row and come back: the reader keeps the last date's days.
    const day = (i: number) => Date.UTC(2024, i % 14, 1 + ((i * 7) % 28), i % 24, i % 60, i % 59, i % 1000);
    const lines: string[] = [];
    const expected: [string, number, number, string][] = [];
    for (let i = 0; i < 60; i++) {
      const o = { key: `dept ${i % 3}/f+${i}%.txt`, size: i * 1000, lastModifiedMs: day(i), eTag: `e${i}` };
      let line = csvLine('photos', o, false);
      if (i % 7 === 3) line = line.replace('\n', '\r\n');
      if (i % 11 === 5)
        line = `photos,${encodeURIComponent(o.key)},${o.size},${new Date(o.lastModifiedMs).toISOString()},e${i}\n`;
      if (i % 13 === 4) line = `\n${line}\r\n`;
      lines.push(line);
      expected.push([o.key, o.size, o.lastModifiedMs, o.eTag]);
    }
    const text = lines.join('').replace(/\n$/, '');
    const bytes = gzipSync(Buffer.from(text));

    for (const size of [1, 3, 17, 64, 1000]) {
      const sink = collector();
      const count = await readCsvDataFile(chunked(bytes, size), fileOf(bytes), CSV_COLUMNS, sink, options());

      expect(count).toBe(60);
      expect(sink.rows.map((r) => [r[0], r[3], r[4], r[5]])).toEqual(expected);
    }
  });

  it('refuses a line with another field count, naming the file and line', async () => {
    const bytes = gzipSync(
      Buffer.from(`${csvLine('photos', objects[0] as InventoryObject, false)}"photos","only-two"\n`),
    );

    const read = readCsvDataFile(chunked(bytes, 1000), fileOf(bytes), CSV_COLUMNS, collector(), options());

    await expect(read).rejects.toMatchObject({
      code: 'upstream_error',
      message: expect.stringContaining('line 2 of inv/photos'),
    });
  });

  it("fails a file whose MD5 is not the manifest's, after reading it", async () => {
    const bytes = gzipSync(Buffer.from(objects.map((o) => csvLine('photos', o, false)).join('')));

    const read = readCsvDataFile(
      chunked(bytes, 100),
      fileOf(bytes, 'f'.repeat(32)),
      CSV_COLUMNS,
      collector(),
      options(),
    );

    await expect(read).rejects.toMatchObject({
      code: 'upstream_error',
      details: { reason: 'checksum_mismatch', expectedMd5: 'f'.repeat(32) },
    });
  });

  it('fails a file that is not gzip with a clear error', async () => {
    const bytes = Buffer.from(objects.map((o) => csvLine('photos', o, false)).join(''));

    const read = readCsvDataFile(chunked(bytes, 100), fileOf(bytes), CSV_COLUMNS, collector(), options());

    await expect(read).rejects.toMatchObject({ code: 'upstream_error', details: { reason: 'not_gzip' } });
  });
});

/** A reader serving one file's bytes in `chunk`-byte pieces (ranges too), as the guarded reader hands S3 bodies on. */
function fakeReader(bytes: Buffer, chunk: number, opened: { count: number }): InventoryObjectReader {
  return {
    configuration: { destinationPrefix: 'inv' },
    openDataFile: async (_key: string, range?: { start: number; end: number }) => {
      opened.count++;
      const part = range ? bytes.subarray(range.start, range.end) : bytes;
      return { body: chunked(part, chunk), contentLength: part.length };
    },
  } as unknown as InventoryObjectReader;
}

describe('readParquetDataFile', () => {
  const many: InventoryObject[] = Array.from({ length: 1050 }, (_, i) => ({
    key: `dept-${i % 7}/file-${i}.${i % 3 === 0 ? 'pdf' : 'jpg'}`,
    size: i * 1000,
    lastModifiedMs: Date.UTC(2026, 0, 1) + i,
    eTag: createHash('md5').update(String(i)).digest('hex'),
    versionId: `v${i}`,
    isDeleteMarker: i % 100 === 99,
  }));

  it.each([
    [100, 4096],
    [1000, 97],
    [5000, 1 << 20],
  ])('reads every row with row groups of %i rows from %i-byte chunks', async (rowGroupSize, chunk) => {
    const bytes = parquetBytes('photos', many, true, rowGroupSize);
    const sink = collector();
    const opened = { count: 0 };

    const count = await readParquetDataFile(fakeReader(bytes, chunk, opened), fileOf(bytes), sink, options());

    expect(count).toBe(1050);
    expect(opened.count).toBe(2); // the footer, then the file once
    expect(sink.rows).toEqual(
      many.map((o) => [
        o.key,
        o.versionId,
        o.isDeleteMarker,
        o.isDeleteMarker ? 0 : o.size,
        o.lastModifiedMs,
        o.isDeleteMarker ? '' : o.eTag,
      ]),
    );
  });

  it('reads nulls in a row group after one that had values in the same rows (arrays reused across groups)', async () => {
    const list: InventoryObject[] = Array.from({ length: 20 }, (_, i) =>
      i < 10
        ? { key: `a/${i}.pdf`, size: i + 1, lastModifiedMs: 1000 + i, eTag: `e${i}`, versionId: `v${i}` }
        : { key: `b/${i}.pdf`, size: 0, lastModifiedMs: 2000 + i, eTag: '', isDeleteMarker: true },
    );
    const bytes = parquetBytes('photos', list, true, 10);
    const sink = collector();

    await readParquetDataFile(fakeReader(bytes, 64, { count: 0 }), fileOf(bytes), sink, options());

    expect(sink.rows.slice(9, 11)).toEqual([
      ['a/9.pdf', 'v9', false, 10, 1009, 'e9'],
      ['b/10.pdf', '', true, 0, 2010, ''],
    ]);
    expect(
      sink.rows
        .slice(10)
        .every(([, version, marker, size, , eTag]) => !version && marker && size === 0 && !eTag),
    ).toBe(true);
  });

  const expected = (list: readonly InventoryObject[]) =>
    list.map((o) => [
      o.key,
      o.versionId,
      o.isDeleteMarker,
      o.isDeleteMarker ? 0 : o.size,
      o.lastModifiedMs,
      o.isDeleteMarker ? '' : o.eTag,
    ]);

  it.each([
    [{ codec: 'UNCOMPRESSED' }],
    [{ codec: 'GZIP' }],
    [{ keyEncoding: 'PLAIN' }],
    // Not read from pages here: hyparquet decodes the file (into strings), with the same rows.
    [{ keyEncoding: 'DELTA_BYTE_ARRAY' }],
    [{ keyEncoding: 'DELTA_LENGTH_BYTE_ARRAY' }],
  ] as const)('reads the same rows from a file written with %j', async (writer) => {
    const bytes = parquetBytes('photos', many, true, 400, writer);
    const sink = collector();

    await readParquetDataFile(fakeReader(bytes, 4096, { count: 0 }), fileOf(bytes), sink, options());

    expect(sink.rows).toEqual(expected(many));
  });

  it('reads a file of another writer (DuckDB: data pages v1, microsecond timestamps)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'etp-parquet-v1-'));
    try {
      const file = path.join(dir, 'v1.parquet');
      const text = (v: string | undefined) => (v === undefined ? 'NULL' : `'${v.replace(/'/g, "''")}'`);
      const values = many
        .map(
          (o) =>
            `(${text(o.key)}, ${text(o.versionId)}, ${o.isDeleteMarker}, ${o.isDeleteMarker ? 'NULL' : o.size}, ` +
            `make_timestamp(${o.lastModifiedMs * 1000}), ${o.isDeleteMarker ? 'NULL' : text(o.eTag)})`,
        )
        .join(', ');
      const connection = await (await DuckDBInstance.create(':memory:')).connect();
      await connection.run(
        `COPY (SELECT * FROM (VALUES ${values}) t(key, version_id, is_delete_marker, size, last_modified_date, e_tag)) ` +
          `TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 300)`,
      );
      connection.closeSync();
      const bytes = readFileSync(file);
      const sink = collector();

      const count = await readParquetDataFile(
        fakeReader(bytes, 1000, { count: 0 }),
        fileOf(bytes),
        sink,
        options(),
      );

      expect(count).toBe(many.length);
      expect(sink.rows).toEqual(expected(many));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails a file whose MD5 is not the manifest's", async () => {
    const bytes = parquetBytes('photos', many.slice(0, 10), false);

    const read = readParquetDataFile(
      fakeReader(bytes, 512, { count: 0 }),
      fileOf(bytes, '0'.repeat(32)),
      collector(),
      options(),
    );

    await expect(read).rejects.toMatchObject({
      code: 'upstream_error',
      details: { reason: 'checksum_mismatch' },
    });
  });

  it("sends the whole file's GET before the footer is answered, so a file costs one request's latency", async () => {
    const bytes = parquetBytes('photos', many, true, 100);
    const calls: string[] = [];
    let answerFooter: () => void = () => undefined;
    const footerHeld = new Promise<void>((resolve) => {
      answerFooter = resolve;
    });
    const reader = {
      configuration: { destinationPrefix: 'inv' },
      openDataFile: async (_key: string, range?: { start: number; end: number }) => {
        calls.push(range ? 'footer' : 'file');
        if (range) await footerHeld;
        const part = range ? bytes.subarray(range.start, range.end) : bytes;
        return { body: chunked(part, 4096), contentLength: part.length };
      },
    } as unknown as InventoryObjectReader;
    const sink = collector();

    const read = readParquetDataFile(reader, fileOf(bytes), sink, options());
    await new Promise((resolve) => setImmediate(resolve));
    const before = [...calls];
    answerFooter();

    await expect(read).resolves.toBe(1050);
    expect(before).toEqual(['file', 'footer']);
    expect(sink.rows).toHaveLength(1050);
  });

  it("closes the whole file's response unread when its footer refuses the file", async () => {
    const bytes = Buffer.from('this is not a parquet file at all');
    const bodies: Readable[] = [];
    const reader = {
      configuration: { destinationPrefix: 'inv' },
      openDataFile: async (_key: string, range?: { start: number; end: number }) => {
        const part = range ? bytes.subarray(range.start, range.end) : bytes;
        const body = chunked(part, 8);
        if (!range) bodies.push(body);
        return { body, contentLength: part.length };
      },
    } as unknown as InventoryObjectReader;

    await expect(readParquetDataFile(reader, fileOf(bytes), collector(), options())).rejects.toThrow(
      'no PAR1 footer',
    );
    await new Promise((resolve) => setImmediate(resolve));

    expect(bodies).toHaveLength(1);
    expect(bodies[0]?.destroyed).toBe(true);
  });

  it('refuses a file that is not Parquet', async () => {
    const bytes = Buffer.from('this is not a parquet file at all');

    const read = readParquetDataFile(
      fakeReader(bytes, 512, { count: 0 }),
      fileOf(bytes),
      collector(),
      options(),
    );

    await expect(read).rejects.toThrow(PlatformError);
    await expect(read).rejects.toThrow('no PAR1 footer');
  });
});
