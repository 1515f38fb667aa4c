/**
 * A report whose rows hold a size or a date that is not one is refused as a
 * whole, in CSV and Parquet, by snapshot_stats and diff_snapshots alike: before
 * this check such rows were summed (NaN GiB, 1e23 bytes, a negative size) and
 * counted as changed. The Athena route's SQL (run on DuckDB, as in
 * athena-route.test.ts) refuses the same reports, counting the rows.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { S3Client } from '@aws-sdk/client-s3';
import { deadlineIn } from '../../../functions/runtime/deadline';
import type { ToolResult } from '../../../functions/runtime/result';
import type { Tool } from '../../../functions/runtime/spec';
import { type InventoryTableRef, statsQuery } from '../../../functions/tools/snapshots/athena/inventory-sql';
import {
  foldFigureRows,
  type QueryFigures,
  refuseInvalidRows,
} from '../../../functions/tools/snapshots/athena/query-figures';
import { createDiffSnapshotsTool } from '../../../functions/tools/snapshots/diff-snapshots';
import { readInventoryConfiguration } from '../../../functions/tools/snapshots/inventory/configuration';
import { openReport } from '../../../functions/tools/snapshots/inventory/report';
import { createSnapshotStatsTool } from '../../../functions/tools/snapshots/snapshot-stats';
import { awsToolServices, EXAMPLE_AWS_SECRET, expectFailure, runAwsTool } from '../../helpers/aws-tool';
import { DuckInventoryEngine, DuckInventoryTable, type LocalReport } from '../../helpers/duckdb-inventory';
import { type InventoryObject, writeReport } from '../../helpers/inventory-fixtures';
import { LocalS3Server } from '../../helpers/inventory-s3-server';
import { localS3Clients } from '../../helpers/snapshot-tools';

jest.setTimeout(60_000);

const DESTINATION = 'row-values-dest';
const T1 = '2026-03-01T01-00Z';
const T2 = '2026-03-02T01-00Z';
const server = new LocalS3Server();
let tools: { stats: Tool; diff: Tool };
const run = (tool: Tool, args: unknown): Promise<ToolResult> =>
  runAwsTool(tool, args, { services: awsToolServices({ ...EXAMPLE_AWS_SECRET, region: 'us-east-1' }) });

const objects = (count: number): InventoryObject[] =>
  Array.from({ length: count }, (_, i) => ({
    key: `logs/${i}.txt`,
    size: 100 + i,
    lastModifiedMs: Date.UTC(2026, 1, 1, 0, i),
    eTag: createHash('md5').update(String(i)).digest('hex'),
  }));

/**
 * A CSV report of 3 good objects whose data file is replaced by `lines` (the
 * manifest's size and MD5 follow), and its fileSchema by `fileSchema` when given.
 */
function csvReport(
  source: string,
  reportTime: string,
  lines: readonly string[],
  fileSchema?: string,
): { manifestKey: string; manifest: Record<string, unknown> } {
  server.createBucket(source);
  server.putInventoryConfiguration(source, { id: 'daily', destinationBucket: DESTINATION, format: 'CSV' });
  const written = writeReport(server, {
    sourceBucket: source,
    configurationId: 'daily',
    destinationBucket: DESTINATION,
    reportTime,
    format: 'CSV',
    objects: objects(3),
  });
  const body = gzipSync(Buffer.from(lines.join('')));
  const [dataKey] = written.dataKeys as [string];
  server.putObject(DESTINATION, dataKey, body);
  const manifest = {
    ...written.manifest,
    ...(fileSchema === undefined ? {} : { fileSchema }),
    files: [{ key: dataKey, size: body.length, MD5checksum: createHash('md5').update(body).digest('hex') }],
  };
  server.putObject(DESTINATION, written.manifestKey, Buffer.from(JSON.stringify(manifest)));
  return { manifestKey: written.manifestKey, manifest };
}

/** A Parquet report of 3 objects, the second of `size` bytes. */
function parquetReport(source: string, reportTime: string, size: number): void {
  server.createBucket(source);
  server.putInventoryConfiguration(source, {
    id: 'daily',
    destinationBucket: DESTINATION,
    format: 'Parquet',
  });
  const rows = objects(3).map((o, i) => (i === 1 ? { ...o, size } : o));
  writeReport(server, {
    sourceBucket: source,
    configurationId: 'daily',
    destinationBucket: DESTINATION,
    reportTime,
    format: 'Parquet',
    objects: rows,
  });
}

const good = (source: string) => line(source, 'a.txt', '10', '2026-02-01T00:00:00.000Z');
const line = (source: string, key: string, size: string, date: string) =>
  `"${source}","${key}","${size}","${date}","0123456789abcdef0123456789abcdef"\n`;

const GOOD_TIME = '2026-02-01T00:00:00.000Z';

/**
 * A second row's Size and LastModifiedDate, and whether both paths must read it
 * (its bytes, 10 + Size) or refuse it (the column): S3 writes Size as decimal
 * digits and LastModifiedDate as ISO 8601 UTC `YYYY-MM-DDTHH:MM:SS.sssZ` (S3 User
 * Guide, "Amazon S3 Inventory list"); anything else once passed on one path or both.
 */
const VALUE_CASES: readonly (readonly [string, string, string, number | 'Size' | 'LastModifiedDate'])[] = [
  ['30 February', '10', '2026-02-30T00:00:00.000Z', 'LastModifiedDate'],
  ['29 February of a common year', '10', '2026-02-29T00:00:00.000Z', 'LastModifiedDate'],
  ['29 February 1900 (not leap)', '10', '1900-02-29T00:00:00.000Z', 'LastModifiedDate'],
  ['31 April', '10', '2026-04-31T00:00:00.000Z', 'LastModifiedDate'],
  ['month 13', '10', '2026-13-01T00:00:00.000Z', 'LastModifiedDate'],
  ['month 00', '10', '2026-00-01T00:00:00.000Z', 'LastModifiedDate'],
  ['day 00', '10', '2026-01-00T00:00:00.000Z', 'LastModifiedDate'],
  ['second 60', '10', '2026-01-01T23:59:60.000Z', 'LastModifiedDate'],
  ['hour 24', '10', '2026-01-01T24:00:00.000Z', 'LastModifiedDate'],
  ['minute 60', '10', '2026-01-01T00:60:00.000Z', 'LastModifiedDate'],
  ['lower-case t and z', '10', '2026-01-01t00:00:00.000z', 'LastModifiedDate'],
  ['lower-case z', '10', '2026-01-01T00:00:00.000z', 'LastModifiedDate'],
  ['a space for T', '10', '2026-01-01 00:00:00.000Z', 'LastModifiedDate'],
  ['an offset', '10', '2026-03-01T01:02:03.000+02:00', 'LastModifiedDate'],
  ['an offset, no fraction', '10', '2026-03-01T01:02:03+02:00', 'LastModifiedDate'],
  ['no zone', '10', '2026-03-01T01:02:03.000', 'LastModifiedDate'],
  ['a date alone', '10', '2026-03-01', 'LastModifiedDate'],
  ['Mar 1 2026', '10', 'Mar 1 2026', 'LastModifiedDate'],
  ['a year alone', '10', '2026', 'LastModifiedDate'],
  ['a bare number', '10', '1', 'LastModifiedDate'],
  ['a dot without digits', '10', '2026-03-01T01:02:03.Z', 'LastModifiedDate'],
  ['10 fraction digits', '10', '2026-03-01T01:02:03.1234567890Z', 'LastModifiedDate'],
  ['year 0999', '10', '0999-03-01T01:02:03.000Z', 'LastModifiedDate'],
  ['other separators', '10', '2026/03/01T01.02.03.000Z', 'LastModifiedDate'],
  ['an empty date', '10', '', 'LastModifiedDate'],
  ['Size 1e3', '1e3', GOOD_TIME, 'Size'],
  ['Size 0x10', '0x10', GOOD_TIME, 'Size'],
  ['Size 0b11', '0b11', GOOD_TIME, 'Size'],
  ['Size 1.0', '1.0', GOOD_TIME, 'Size'],
  ['Size 1.5', '1.5', GOOD_TIME, 'Size'],
  ['Size 1_000', '1_000', GOOD_TIME, 'Size'],
  ['Size with a leading space', ' 12', GOOD_TIME, 'Size'],
  ['Size with a trailing space', '12 ', GOOD_TIME, 'Size'],
  ['Size +5', '+5', GOOD_TIME, 'Size'],
  ['Size -0', '-0', GOOD_TIME, 'Size'],
  ['Size of spaces only', '   ', GOOD_TIME, 'Size'],
  ['Size of 17 digits', '00000000000000012', GOOD_TIME, 'Size'],
  // The route's sum passes 2^53: its count of refused rows is read before the sum is checked.
  ['Size 2^53', '9007199254740992', GOOD_TIME, 'Size'],
  // 2^53 + 9 bytes in all: both paths round it once, to the same double.
  ['Size 2^53 − 1', '9007199254740991', GOOD_TIME, 9007199254740991 + 10],
  ['Size with leading zeros', '0012', GOOD_TIME, 22],
  ['a time without a fraction', '5', '2026-03-01T01:02:03Z', 15],
  ['a time with one fraction digit', '5', '2026-03-01T01:02:03.1Z', 15],
  ['a time with nine fraction digits', '5', '2026-03-01T01:02:03.123456789Z', 15],
  ['29 February of a leap year', '5', '2024-02-29T23:59:59.999Z', 15],
  ['29 February 2000', '5', '2000-02-29T00:00:00.000Z', 15],
];

/** An object's LastModifiedDate in the older and the newer report: the same millisecond, written differently. */
const FRACTION_CASES: readonly (readonly [string, string, string])[] = [
  ['.123 and .123999 (cut to milliseconds)', '2026-02-01T00:00:00.123Z', '2026-02-01T00:00:00.123999Z'],
  ['no fraction and .000', '2026-02-01T00:00:00Z', '2026-02-01T00:00:00.000Z'],
  ['.5 and .500000000', '2026-02-01T00:00:00.5Z', '2026-02-01T00:00:00.500000000Z'],
];

/**
 * Reports with fields the tools do not know, named as no S3 field is (the route
 * refused the first as `invalid_args`) or as the route's partition column `dt`
 * (the route counted 0 files).
 */
const UNKNOWN_FIELD_SCHEMAS = [
  ['unknown-names', 'Bucket, Key, Object-Lock, Size, Größe, LastModifiedDate, 2ndField, ETag'],
  ['unknown-dt', 'Bucket, Key, Dt, Size, LastModifiedDate, ETag'],
] as const;

beforeAll(async () => {
  await server.start();
  s3 = new S3Client({
    endpoint: server.url,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'example' },
  });
  server.createBucket(DESTINATION);
  tools = {
    stats: createSnapshotStatsTool(localS3Clients(server)) as Tool,
    diff: createDiffSnapshotsTool(localS3Clients(server)) as Tool,
  };
  csvReport('csv-nan', T1, [good('csv-nan')]);
  csvReport('csv-nan', T2, [good('csv-nan'), line('csv-nan', 'b.txt', 'NaN', '2026-02-01T00:00:00.000Z')]);
  csvReport('csv-huge', T2, [
    good('csv-huge'),
    line('csv-huge', 'b.txt', '99999999999999999999999', '2026-02-01T00:00:00.000Z'),
  ]);
  csvReport('csv-negative', T2, [
    good('csv-negative'),
    good('csv-negative'),
    line('csv-negative', 'c.txt', '-5', '2026-02-01T00:00:00.000Z'),
  ]);
  csvReport('csv-date', T2, [good('csv-date'), line('csv-date', 'b.txt', '10', 'not-a-date')]);
  // fileSchema Bucket, Key, Size, LastModifiedDate, ETag; the data written Bucket, Key, ETag, LastModifiedDate, Size.
  csvReport('csv-reordered', T2, [
    `"csv-reordered","a.txt","0123456789abcdef0123456789abcdef","2026-02-01T00:00:00.000Z","10"\n`,
  ]);
  csvReport('csv-delete-marker-size', T2, [
    good('csv-delete-marker-size'),
    line('csv-delete-marker-size', 'b.txt', '', '2026-02-01T00:00:00.000Z'),
  ]);
  parquetReport('parquet-negative', T1, 7);
  parquetReport('parquet-negative', T2, -7);
  for (const [i, [, size, date]] of VALUE_CASES.entries()) {
    const source = `value-case-${i}`;
    csvReport(source, T2, [good(source), line(source, 'b.txt', size, date)]);
  }
  for (const [source, schema] of UNKNOWN_FIELD_SCHEMAS) {
    const fields = (key: string, size: string) =>
      schema
        .split(', ')
        .map((field) =>
          field === 'Bucket'
            ? source
            : field === 'Key'
              ? key
              : field === 'Size'
                ? size
                : field === 'LastModifiedDate'
                  ? GOOD_TIME
                  : field === 'ETag'
                    ? '0123456789abcdef0123456789abcdef'
                    : 'x',
        );
    const csv = (values: string[]) => `${values.map((v) => `"${v}"`).join(',')}\n`;
    csvReport(source, T2, [csv(fields('a.txt', '10')), csv(fields('b.pdf', '25'))], schema);
  }
  csvReport(
    'large-sum',
    T2,
    Array.from({ length: 2000 }, (_, i) => line('large-sum', `disk-${i}.img`, '4999999999999', GOOD_TIME)),
  );
  // A manifest that lists no data file (an empty source bucket's report): no rows on either path.
  const noFiles = csvReport('no-files', T2, [good('no-files')]);
  server.putObject(
    DESTINATION,
    noFiles.manifestKey,
    Buffer.from(JSON.stringify({ ...noFiles.manifest, files: [] })),
  );
  for (const [i, [, older, newer]] of FRACTION_CASES.entries()) {
    const source = `fraction-case-${i}`;
    csvReport(source, T1, [line(source, 'a.txt', '10', older)]);
    csvReport(source, T2, [line(source, 'a.txt', '10', newer)]);
  }
});

afterAll(() => {
  s3.destroy();
  return server.stop();
});

describe('a row whose Size or LastModifiedDate is not one', () => {
  it.each([
    ['CSV, Size NaN', 'csv-nan', 2, 'Size', 'its Size reads as NaN'],
    ['CSV, Size past 2^53', 'csv-huge', 2, 'Size', 'its Size reads as NaN,'],
    ['CSV, a negative Size', 'csv-negative', 3, 'Size', 'its Size reads as NaN,'],
    ['CSV, a date that is not one', 'csv-date', 2, 'LastModifiedDate', 'its LastModifiedDate is not a time'],
    [
      'CSV, columns in another order than the fileSchema',
      'csv-reordered',
      1,
      'Size',
      'its Size reads as NaN',
    ],
    ['Parquet, a negative size', 'parquet-negative', 2, 'Size', 'its Size reads as -7'],
  ])('refuses the report naming the row and column (%s)', async (_case, source, row, column, says) => {
    // Act
    const failure = expectFailure(await run(tools.stats, { id: `s3_inventory:${source}/daily/${T2}` }));

    // Assess
    expect(failure.error).toMatchObject({
      code: 'upstream_error',
      details: { reason: 'invalid_row_value', row, column, report: `s3_inventory:${source}/daily/${T2}` },
    });
    expect(failure.error.message).toContain(`row ${row} of `);
    expect(failure.error.message).toContain(says);
    expect(failure.error.message).toContain("the manifest's fileSchema");
  });

  it('refuses a diff whose newer report holds one, rather than counting the row changed', async () => {
    // Act
    const failure = expectFailure(
      await run(tools.diff, { a: `s3_inventory:csv-nan/daily/${T1}`, b: `s3_inventory:csv-nan/daily/${T2}` }),
    );

    // Assess
    expect(failure.error).toMatchObject({
      code: 'upstream_error',
      details: { reason: 'invalid_row_value', row: 2 },
    });
  });

  it('refuses a Parquet diff whose newer report holds a negative size', async () => {
    // Act
    const failure = expectFailure(
      await run(tools.diff, {
        a: `s3_inventory:parquet-negative/daily/${T1}`,
        b: `s3_inventory:parquet-negative/daily/${T2}`,
      }),
    );

    // Assess
    expect(failure.error).toMatchObject({ details: { reason: 'invalid_row_value', row: 2, column: 'Size' } });
  });

  it('reads an empty Size (a delete marker) as 0 bytes', async () => {
    // Act
    const result = await run(tools.stats, { id: `s3_inventory:csv-delete-marker-size/daily/${T2}` });

    // Assess
    expect(result.ok).toBe(true);
    expect(result.ok && (result.value as { files: number; bytes: number })).toMatchObject({
      files: 2,
      bytes: 10,
    });
  });
});

const REF: InventoryTableRef = { database: 'etp_inventory', table: 'row_values' };
let s3: S3Client;

/** The figures of the Athena route's query over `source`'s reports at `times` (the last the newer). */
async function athenaFigures(source: string, times: readonly string[]): Promise<QueryFigures> {
  const deadline = deadlineIn(60_000);
  const configuration = await readInventoryConfiguration(s3, source, 'daily', deadline);
  const reports: LocalReport[] = [];
  for (const reportTime of times) {
    reports.push({
      reportTime,
      manifest: (await openReport(s3, configuration, reportTime, deadline)).manifest,
    });
  }
  const table = await DuckInventoryTable.fromServer(server, DESTINATION, REF, reports);
  try {
    const [newer, older] = [reports.at(-1) as LocalReport, reports.length > 1 ? reports[0] : undefined];
    return foldFigureRows(
      await table.query(statsQuery({ ...newer, table: REF }, older && { ...older, table: REF })),
      15,
    );
  } finally {
    table.close();
  }
}

describe('the Athena route (its SQL on DuckDB) on the same reports', () => {
  it.each([
    ['CSV, Size NaN', 'csv-nan', 1],
    ['CSV, Size past 2^53', 'csv-huge', 1],
    ['CSV, a negative Size', 'csv-negative', 1],
    ['CSV, a date that is not one', 'csv-date', 1],
    ['CSV, columns in another order than the fileSchema', 'csv-reordered', 1],
    ['Parquet, a negative size', 'parquet-negative', 1],
  ])('counts the rows and refuses the report (%s)', async (_case, source, rows) => {
    // Act
    const figures = await athenaFigures(source, [T2]);
    const id = `s3_inventory:${source}/daily/${T2}`;

    // Assess
    expect(figures.invalidRows).toEqual({ newer: rows, older: 0 });
    expect(() => refuseInvalidRows(figures, { newer: id })).toThrow(
      expect.objectContaining({
        code: 'upstream_error',
        message: expect.stringContaining(`Inventory report ${id}: 1 row with a Size that is not`),
        details: { report: id, rows, reason: 'invalid_row_value' },
      }),
    );
  });

  it('refuses a diff whose newer report holds one, and counts none in the good older one', async () => {
    // Act
    const figures = await athenaFigures('csv-nan', [T1, T2]);

    // Assess
    expect(figures.invalidRows).toEqual({ newer: 1, older: 0 });
    expect(() =>
      refuseInvalidRows(figures, {
        newer: `s3_inventory:csv-nan/daily/${T2}`,
        older: `s3_inventory:csv-nan/daily/${T1}`,
      }),
    ).toThrow(`Inventory report s3_inventory:csv-nan/daily/${T2}: 1 row`);
  });

  it('makes snapshot_stats and diff_snapshots on the route refuse the report, writing no answer', async () => {
    // Prepare
    const engine = new DuckInventoryEngine(server);
    const written: string[] = [];
    const clients = { ...localS3Clients(server), inventoryQueries: () => engine };
    const answers = () => async (_run: unknown, file: string) => {
      written.push(file);
      return `memory:${file}`;
    };
    const onRoute = {
      stats: createSnapshotStatsTool(clients, answers),
      diff: createDiffSnapshotsTool(clients, answers),
    };
    process.env.ETP_ATHENA_ROUTE = 'always';
    try {
      // Act
      const stats = expectFailure(
        await run(onRoute.stats as Tool, { id: `s3_inventory:csv-negative/daily/${T2}` }),
      );
      const diff = expectFailure(
        await run(onRoute.diff as Tool, {
          a: `s3_inventory:csv-nan/daily/${T1}`,
          b: `s3_inventory:csv-nan/daily/${T2}`,
        }),
      );

      // Assess
      expect(stats.error).toMatchObject({
        code: 'upstream_error',
        details: { report: `s3_inventory:csv-negative/daily/${T2}`, rows: 1, reason: 'invalid_row_value' },
      });
      expect(diff.error).toMatchObject({
        code: 'upstream_error',
        details: { report: `s3_inventory:csv-nan/daily/${T2}`, rows: 1, reason: 'invalid_row_value' },
      });
      expect(written).toEqual([]);
    } finally {
      delete process.env.ETP_ATHENA_ROUTE;
      engine.close();
    }
  });

  it('counts no rows for a manifest that lists no data file, as the single-function path', async () => {
    // Act
    const single = await run(tools.stats, { id: `s3_inventory:no-files/daily/${T2}` });
    const figures = await athenaFigures('no-files', [T2]);

    // Assess
    expect(single.ok && (single.value as { files: number; bytes: number })).toMatchObject({
      files: 0,
      bytes: 0,
    });
    expect(figures.newer).toEqual({ objects: 0, bytes: 0, deleteMarkers: 0 });
    expect(figures.invalidRows).toEqual({ newer: 0, older: 0 });
  });

  it('reads an empty Size (a delete marker) as 0 bytes, as the single-function path', async () => {
    // Act
    const figures = await athenaFigures('csv-delete-marker-size', [T2]);

    // Assess
    expect(figures.invalidRows).toEqual({ newer: 0, older: 0 });
    expect(figures.newer).toEqual({ objects: 2, bytes: 10, deleteMarkers: 0 });
  });
});

describe('the values S3 writes, and the others, on both paths', () => {
  const refused = VALUE_CASES.flatMap(([name, , , verdict], i) =>
    typeof verdict === 'string' ? [[name, i, verdict] as const] : [],
  );
  const read = VALUE_CASES.flatMap(([name, , , verdict], i) =>
    typeof verdict === 'number' ? [[name, i, verdict] as const] : [],
  );

  it.each(refused)('refuses %s on the single-function path and on the route', async (_name, i, column) => {
    // Act
    const id = `s3_inventory:value-case-${i}/daily/${T2}`;
    const failure = expectFailure(await run(tools.stats, { id }));
    const figures = await athenaFigures(`value-case-${i}`, [T2]);

    // Assess
    expect(failure.error).toMatchObject({
      code: 'upstream_error',
      details: { reason: 'invalid_row_value', row: 2, column, report: id },
    });
    expect(figures.invalidRows).toEqual({ newer: 1, older: 0 });
  });

  it.each(read)('reads %s with the same figures on both paths', async (_name, i, bytes) => {
    // Act
    const result = await run(tools.stats, { id: `s3_inventory:value-case-${i}/daily/${T2}` });
    const figures = await athenaFigures(`value-case-${i}`, [T2]);

    // Assess
    expect(result.ok && (result.value as { files: number; bytes: number })).toMatchObject({
      files: 2,
      bytes,
    });
    expect(figures.invalidRows).toEqual({ newer: 0, older: 0 });
    expect(figures.newer).toEqual({ objects: 2, bytes, deleteMarkers: 0 });
  });

  it.each(FRACTION_CASES.map(([name], i) => [name, i] as const))(
    'finds an object unchanged on both paths when its time is %s',
    async (_name, i) => {
      // Act
      const source = `fraction-case-${i}`;
      const diff = await run(tools.diff, {
        a: `s3_inventory:${source}/daily/${T1}`,
        b: `s3_inventory:${source}/daily/${T2}`,
      });
      const figures = await athenaFigures(source, [T1, T2]);

      // Assess
      expect(diff.ok && (diff.value as { unchanged: unknown }).unchanged).toEqual({ count: 1, bytes: 10 });
      expect(figures.unchanged).toEqual({ count: 1, bytes: 10 });
    },
  );
});

describe('fields the tools do not know, whatever their names', () => {
  it.each(UNKNOWN_FIELD_SCHEMAS)('reads %s (%s) with the same figures on both paths', async (source) => {
    // Act
    const result = await run(tools.stats, { id: `s3_inventory:${source}/daily/${T2}` });
    const figures = await athenaFigures(source, [T2]);

    // Assess
    expect(result.ok && (result.value as { files: number; bytes: number })).toMatchObject({
      files: 2,
      bytes: 35,
    });
    expect(figures.invalidRows).toEqual({ newer: 0, older: 0 });
    expect(figures.newer).toEqual({ objects: 2, bytes: 35, deleteMarkers: 0 });
  });
});

describe('byte totals past 2^53', () => {
  it('adds 2,000 sizes of 4,999,999,999,999 bytes exactly on both paths, rounding once', async () => {
    // Act
    const result = await run(tools.stats, { id: `s3_inventory:large-sum/daily/${T2}` });
    const figures = await athenaFigures('large-sum', [T2]);

    // Assess: a `+=` of doubles gave 9,999,999,999,998,196.
    expect(result.ok && (result.value as { files: number; bytes: number })).toMatchObject({
      files: 2000,
      bytes: 9_999_999_999_998_000,
    });
    expect(JSON.stringify(result.ok && result.value)).toContain(
      '"extension":"img","files":2000,"bytes":9999999999998000',
    );
    expect(figures.newer).toEqual({ objects: 2000, bytes: 9_999_999_999_998_000, deleteMarkers: 0 });
    expect(figures.newerHistogram).toEqual([{ extension: 'img', files: 2000, bytes: 9_999_999_999_998_000 }]);
  });
});
