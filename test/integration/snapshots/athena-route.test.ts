/**
 * The Athena route's SQL (functions/tools/snapshots/athena/inventory-sql.ts) run
 * on DuckDB over the same generated reports as the single-function path
 * (s3-inventory.ts, streaming them from the local S3 server): identical counts,
 * bytes, delete markers, histograms and added / changed / removed figures, for
 * a CSV and a Parquet configuration, a first report and later ones.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { deadlineIn } from '../../../functions/runtime/deadline';
import {
  createTableStatement,
  foldFigureRows,
  type InventoryTableRef,
  statsQuery,
} from '../../../functions/tools/snapshots/athena/inventory-sql';
import { ExtensionTable } from '../../../functions/tools/snapshots/index/extensions';
import {
  type InventoryConfigurationView,
  readInventoryConfiguration,
} from '../../../functions/tools/snapshots/inventory/configuration';
import { openReport } from '../../../functions/tools/snapshots/inventory/report';
import {
  diffContext,
  HISTOGRAM_TOP,
  inventoryDiff,
  inventoryStats,
} from '../../../functions/tools/snapshots/s3-inventory';
import { DuckInventoryTable, type LocalReport } from '../../helpers/duckdb-inventory';
import { type InventoryObject, writeReport } from '../../helpers/inventory-fixtures';
import { LocalS3Server } from '../../helpers/inventory-s3-server';
import { buildInventoryWorld, DESTINATION, type InventoryWorld } from '../../helpers/inventory-world';

jest.setTimeout(120_000);

const server = new LocalS3Server();
let world: InventoryWorld;
let s3: S3Client;
const REF: InventoryTableRef = { database: 'etp_inventory', table: 'photos_daily' };

beforeAll(async () => {
  await server.start();
  world = buildInventoryWorld(server);
  s3 = new S3Client({
    endpoint: server.url,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'example' },
  });
});

afterAll(async () => {
  s3.destroy();
  await server.stop();
});

async function localTable(configuration: InventoryConfigurationView, times: readonly string[]) {
  const reports: LocalReport[] = [];
  for (const time of times) {
    const { manifest } = await openReport(s3, configuration, time, deadlineIn(60_000));
    reports.push({ reportTime: time, manifest });
  }
  return { reports, table: await DuckInventoryTable.fromServer(server, DESTINATION, REF, reports) };
}

describe.each([
  ['photos', 'daily-csv', () => world.photos],
  ['records', 'daily-parquet', () => world.records],
] as const)('s3_inventory:%s/%s on DuckDB', (bucket, id, days) => {
  it('gives snapshot_stats the same figures as the single-function path, first report and later ones', async () => {
    const deadline = deadlineIn(60_000);
    const configuration = await readInventoryConfiguration(s3, bucket, id, deadline);
    const times = [0, 1, 2].map((i) => days()[i]?.reportTime as string);
    const { reports, table } = await localTable(configuration, times);
    try {
      for (const [i, report] of reports.entries()) {
        const expected = await inventoryStats(s3, configuration, report.reportTime, deadline);
        // The first report has no baseline; each later one is compared with the day before.
        const previous = reports[i - 1];
        expect(expected.baseline?.id.endsWith(`/${previous?.reportTime}`) ?? false).toBe(
          previous !== undefined,
        );
        const comparison = previous
          ? diffContext(previous.manifest, report.manifest, new ExtensionTable(), 1)
          : undefined;
        const figures = foldFigureRows(
          await table.query(statsQuery(REF, report, previous, comparison)),
          HISTOGRAM_TOP,
        );
        expect({
          files: figures.newer.objects,
          bytes: figures.newer.bytes,
          new_bytes: previous ? figures.added.bytes + figures.changed.bytes : figures.newer.bytes,
          file_type_histogram: figures.newerHistogram,
          new_files: previous ? figures.added.count : figures.newer.objects,
          changed_files: figures.changed.count,
          removed_files: previous ? figures.removed.count : null,
          delete_markers: figures.newer.deleteMarkers,
          baseline: previous ? { files: figures.older.objects, bytes: figures.older.bytes } : null,
        }).toEqual({
          files: expected.files,
          bytes: expected.bytes,
          new_bytes: expected.new_bytes,
          file_type_histogram: expected.file_type_histogram,
          new_files: expected.new_files,
          changed_files: expected.changed_files,
          removed_files: expected.removed_files,
          delete_markers: expected.delete_markers,
          baseline: expected.baseline
            ? { files: expected.baseline.files, bytes: expected.baseline.bytes }
            : null,
        });
        expect(figures.newer.objects).toBe(days()[i]?.objects.length);
      }
    } finally {
      table.close();
    }
  });

  it("gives diff_snapshots' figures and histograms across eight days", async () => {
    const deadline = deadlineIn(60_000);
    const configuration = await readInventoryConfiguration(s3, bucket, id, deadline);
    const [a, b] = [1, 9].map((i) => days()[i]?.reportTime as string) as [string, string];
    const { reports, table } = await localTable(configuration, [a, b]);
    try {
      const [older, newer] = reports as [LocalReport, LocalReport];
      const expected = await inventoryDiff(s3, configuration, a, b, deadline);
      const comparison = diffContext(older.manifest, newer.manifest, new ExtensionTable(), 1);
      const figures = foldFigureRows(
        await table.query(statsQuery(REF, newer, older, comparison)),
        HISTOGRAM_TOP,
      );
      const pick = (v: { count: number; bytes: number; byExtension: unknown }) => ({
        count: v.count,
        bytes: v.bytes,
        byExtension: v.byExtension,
      });
      expect({
        a: {
          files: figures.older.objects,
          bytes: figures.older.bytes,
          deleteMarkers: figures.older.deleteMarkers,
        },
        b: {
          files: figures.newer.objects,
          bytes: figures.newer.bytes,
          deleteMarkers: figures.newer.deleteMarkers,
        },
        added: pick(figures.added),
        removed: pick(figures.removed),
        changed: { ...pick(figures.changed), bytesBefore: figures.changed.bytesBefore },
        unchanged: figures.unchanged,
        deleteMarkersAdded: figures.deleteMarkersAdded,
      }).toEqual({
        ...expected.totals,
        added: pick(expected.added),
        removed: pick(expected.removed),
        changed: { ...pick(expected.changed), bytesBefore: expected.changed.bytesBefore },
        unchanged: expected.unchanged,
        deleteMarkersAdded: expected.deleteMarkersAdded.count,
      });
      expect(figures.added.count + figures.changed.count).toBeGreaterThan(0);
    } finally {
      table.close();
    }
  });
});

describe.each(['CSV', 'Parquet'] as const)('an inventory of every version in %s on DuckDB', (format) => {
  it('gives the same figures with version ids, delete markers and awkward keys', async () => {
    const id = `versions-${format.toLowerCase()}`;
    const t = Date.UTC(2026, 1, 1);
    const o = (
      key: string,
      versionId: string,
      size: number,
      extra: Partial<InventoryObject> = {},
    ): InventoryObject => ({
      key,
      versionId,
      size,
      lastModifiedMs: t,
      eTag: `${size.toString(16).padStart(32, '0')}`,
      ...extra,
    });
    const older = [
      o('docs/a report.PDF', 'v1', 100),
      o('docs/b.docx', 'v1', 200),
      o('docs/b.docx', 'v2', 210),
      o('photos/été/IMG 01.JPG', 'v1', 300),
      o('home/.bashrc', 'v1', 10),
      o('gone/c.tar.gz', 'v1', 400),
    ];
    const newer = [
      o('docs/a report.PDF', 'v1', 100),
      o('docs/b.docx', 'v2', 210, { lastModifiedMs: t + 1000 }),
      o('docs/b.docx', 'v3', 0, { isDeleteMarker: true, isLatest: true }),
      o('photos/été/IMG 01.JPG', 'v1', 300),
      o('photos/été/IMG 01.JPG', 'v2', 333),
      o('home/.bashrc', 'v1', 10),
      o('notes/README', 'v1', 5),
      o('x/y.', 'v1', 6),
    ];
    server.putInventoryConfiguration('records', {
      id,
      destinationBucket: DESTINATION,
      format,
      includedObjectVersions: 'All',
    });
    const times = ['2026-04-01T01-00Z', '2026-04-02T01-00Z'] as const;
    for (const [i, objects] of [older, newer].entries()) {
      writeReport(server, {
        sourceBucket: 'records',
        configurationId: id,
        destinationBucket: DESTINATION,
        reportTime: times[i] as string,
        format,
        objects,
        versioned: true,
        objectsPerFile: 3,
      });
    }
    const deadline = deadlineIn(60_000);
    const configuration = await readInventoryConfiguration(s3, 'records', id, deadline);
    const { reports, table } = await localTable(configuration, times);
    try {
      const [a, b] = reports as [LocalReport, LocalReport];
      const expected = await inventoryDiff(s3, configuration, times[0], times[1], deadline);
      expect(expected.identity).toBe('key+version_id');
      const comparison = diffContext(a.manifest, b.manifest, new ExtensionTable(), 1);
      const figures = foldFigureRows(await table.query(statsQuery(REF, b, a, comparison)), HISTOGRAM_TOP);
      const stats = await inventoryStats(s3, configuration, times[1], deadline);
      expect(figures.newerHistogram).toEqual(stats.file_type_histogram);
      expect({
        b: figures.newer,
        a: figures.older,
        added: [figures.added.count, figures.added.bytes, figures.added.byExtension],
        changed: [figures.changed.count, figures.changed.bytes, figures.changed.bytesBefore],
        removed: [figures.removed.count, figures.removed.bytes, figures.removed.byExtension],
        unchanged: figures.unchanged,
        markers: figures.deleteMarkersAdded,
      }).toEqual({
        b: { objects: 7, bytes: 964, deleteMarkers: 1 },
        a: { objects: 6, bytes: 1220, deleteMarkers: 0 },
        added: [expected.added.count, expected.added.bytes, expected.added.byExtension],
        changed: [expected.changed.count, expected.changed.bytes, expected.changed.bytesBefore],
        removed: [expected.removed.count, expected.removed.bytes, expected.removed.byExtension],
        unchanged: expected.unchanged,
        markers: expected.deleteMarkersAdded.count,
      });
      expect([expected.added.count, expected.changed.count, expected.removed.count]).toEqual([3, 1, 2]);
      expect(expected.totals.b).toEqual({ files: 7, bytes: 964, deleteMarkers: 1 });
    } finally {
      table.close();
    }
  });
});

describe('the query text', () => {
  const manifest = { fileFormat: 'CSV', columns: ['bucket', 'key', 'size', 'last_modified_date', 'e_tag'] };

  it.each([
    [
      { database: 'x"; DROP TABLE t; --', table: 't' },
      '2026-03-01T01-00Z',
      /database .* is not valid: Glue names/,
    ],
    [{ database: 'db', table: 'T' }, '2026-03-01T01-00Z', /table "T" is not valid/],
    [REF, "2026-03-01T01-00Z' OR '1'='1", /report time .* YYYY-MM-DDTHH-MMZ/],
  ])('refuses %j at %s before building anything', (ref, time, message) => {
    expect(() => statsQuery(ref, { reportTime: time, manifest })).toThrow(message);
  });

  it('refuses a column that is not an S3 Inventory field', () => {
    expect(() =>
      statsQuery(REF, {
        reportTime: '2026-03-01T01-00Z',
        manifest: { fileFormat: 'CSV', columns: ['key', "size') --"] },
      }),
    ).toThrow(/inventory column .* S3 Inventory fields: bucket, key/);
  });

  it("writes the S3 User Guide's table: symlink input over hive/, dt projected, CSV columns as strings", () => {
    const ddl = createTableStatement(REF, 'CSV', manifest.columns, {
      destinationBucket: 'inventory-dest',
      base: 'inv/photos/daily-csv/',
      firstReportTime: '2026-03-01T01-00Z',
    });
    expect(ddl).toBe(
      'CREATE EXTERNAL TABLE IF NOT EXISTS `etp_inventory`.`photos_daily` (`bucket` string, `key` string, `size` string, ' +
        '`last_modified_date` string, `e_tag` string) PARTITIONED BY (dt string) ' +
        "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde' WITH SERDEPROPERTIES " +
        "('separatorChar' = ',', 'quoteChar' = '\"', 'escapeChar' = '\\\\') " +
        "STORED AS INPUTFORMAT 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat' " +
        "OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.IgnoreKeyTextOutputFormat' " +
        "LOCATION 's3://inventory-dest/inv/photos/daily-csv/hive/' " +
        "TBLPROPERTIES ('projection.enabled' = 'true', 'projection.dt.type' = 'date', " +
        "'projection.dt.format' = 'yyyy-MM-dd-HH-mm', 'projection.dt.range' = '2026-03-01-01-00,NOW', " +
        "'projection.dt.interval' = '1', 'projection.dt.interval.unit' = 'HOURS')",
    );
    expect(() =>
      createTableStatement(REF, 'Parquet', ['key', 'size'], {
        destinationBucket: 'inventory-dest',
        base: "inv'/x/",
        firstReportTime: '2026-03-01T01-00Z',
      }),
    ).toThrow(/inventory folder .* no '/);
  });
});
