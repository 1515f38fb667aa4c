/**
 * The Athena route's SQL (functions/tools/snapshots/athena/inventory-sql.ts) run
 * on DuckDB over the same generated reports as the single-function path
 * (s3-inventory.ts, streaming them from the local S3 server): identical counts,
 * bytes, delete markers, histograms and added / changed / removed figures, for
 * a CSV and a Parquet configuration, a first report and later ones.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { LimitExceededError } from '../../../functions/runtime/errors';
import type { Tool } from '../../../functions/runtime/spec';
import type { InventoryQueryEngine } from '../../../functions/tools/snapshots/athena/athena-runner';
import * as inventorySql from '../../../functions/tools/snapshots/athena/inventory-sql';
import {
  createTableStatement,
  type InventoryTableRef,
  type InventoryTableSpec,
  inventoryTableName,
  statsQuery,
} from '../../../functions/tools/snapshots/athena/inventory-sql';
import { foldFigureRows } from '../../../functions/tools/snapshots/athena/query-figures';
import { ATHENA_DIFF_NOTE, ORC_REASON } from '../../../functions/tools/snapshots/athena/route';
import { createDiffSnapshotsTool } from '../../../functions/tools/snapshots/diff-snapshots';
import type {
  FindingsDocument,
  SnapshotFinding,
  SourceScanReport,
} from '../../../functions/tools/snapshots/findings/model';
import { MemoryFindingsStore } from '../../../functions/tools/snapshots/findings/store';
import { MAX_INDEX_OBJECTS } from '../../../functions/tools/snapshots/index/diff-engine';
import { ExtensionTable } from '../../../functions/tools/snapshots/index/extensions';
import {
  type InventoryConfigurationView,
  readInventoryConfiguration,
} from '../../../functions/tools/snapshots/inventory/configuration';
import { openReport } from '../../../functions/tools/snapshots/inventory/report';
import * as singlePath from '../../../functions/tools/snapshots/s3-inventory';
import {
  diffContext,
  HISTOGRAM_TOP,
  type InventoryDiff,
  inventoryDiff,
  inventoryStats,
} from '../../../functions/tools/snapshots/s3-inventory';
import { createScanSnapshotsTool, type scanView } from '../../../functions/tools/snapshots/scan-snapshots';
import { createSnapshotStatsTool } from '../../../functions/tools/snapshots/snapshot-stats';
import {
  awsToolServices,
  EXAMPLE_AWS_SECRET,
  expectFailure,
  expectSuccess,
  runAwsTool,
} from '../../helpers/aws-tool';
import { DuckInventoryEngine, DuckInventoryTable, type LocalReport } from '../../helpers/duckdb-inventory';
import { toolInvocation } from '../../helpers/events';
import { type InventoryObject, writeReport } from '../../helpers/inventory-fixtures';
import { LocalS3Server } from '../../helpers/inventory-s3-server';
import {
  buildInventoryWorld,
  DESTINATION,
  type InventoryWorld,
  WORLD_NOW,
} from '../../helpers/inventory-world';
import { localS3Clients } from '../../helpers/snapshot-tools';

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
          await table.query(
            statsQuery({ ...report, table: REF }, previous && { ...previous, table: REF }, comparison),
          ),
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
        await table.query(statsQuery({ ...newer, table: REF }, { ...older, table: REF }, comparison)),
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
      const figures = foldFigureRows(
        await table.query(statsQuery({ ...b, table: REF }, { ...a, table: REF }, comparison)),
        HISTOGRAM_TOP,
      );
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

describe('the DuckDB stand-in reads each column as the table declares it', () => {
  afterEach(() => jest.restoreAllMocks());

  /** What the view holds in `last_modified_date`: DuckDB's type, and the times as epoch milliseconds. */
  const lastModified = (table: DuckInventoryTable) =>
    table.query(
      'SELECT typeof(last_modified_date) AS type, count(*) AS n, min(epoch_ms(last_modified_date)) AS lo ' +
        'FROM "etp_inventory"."photos_daily" GROUP BY 1',
    );

  it("reads the Parquet report's TIMESTAMP(MILLIS) as the declared timestamp, to the millisecond", async () => {
    const configuration = await readInventoryConfiguration(
      s3,
      'records',
      'daily-parquet',
      deadlineIn(60_000),
    );
    const day = world.records[0] as { reportTime: string; objects: readonly InventoryObject[] };
    const { table } = await localTable(configuration, [day.reportTime]);
    try {
      expect(await lastModified(table)).toEqual([
        {
          type: 'TIMESTAMP',
          n: String(day.objects.length),
          lo: String(Math.min(...day.objects.map((o) => o.lastModifiedMs))),
        },
      ]);
    } finally {
      table.close();
    }
  });

  it.each([
    ['bigint', /Parquet column last_modified_date is TIMESTAMP.* but the table declares it bigint/],
    ['string', /Parquet column last_modified_date is TIMESTAMP.* but the table declares it string/],
  ])('refuses a table declaring the Parquet timestamp %s, as Athena would', async (declared, message) => {
    const real = inventorySql.columnType;
    jest
      .spyOn(inventorySql, 'columnType')
      .mockImplementation((format, column) =>
        column === 'last_modified_date' ? declared : real(format, column),
      );
    const configuration = await readInventoryConfiguration(
      s3,
      'records',
      'daily-parquet',
      deadlineIn(60_000),
    );
    await expect(localTable(configuration, [world.records[0]?.reportTime as string])).rejects.toThrow(
      message,
    );
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
    expect(() => statsQuery({ reportTime: time, manifest, table: ref })).toThrow(message);
  });

  it('never writes a field name that is not an S3 Inventory field into a statement', () => {
    const columns = ['key', "size') --", 'size'];
    const sql = statsQuery({
      reportTime: '2026-03-01T01-00Z',
      manifest: { fileFormat: 'CSV', columns },
      table: REF,
    });
    const ddl = createTableStatement(REF, {
      format: 'CSV',
      columns,
      destinationBucket: 'inventory-dest',
      base: 'inv/records/daily/',
    });

    expect(sql).not.toContain("size')");
    expect(ddl).not.toContain("size')");
    expect(ddl).toContain('(`key` string, `unknown_field_2` string, `size` string)');
  });

  const csvColumns = [
    'bucket',
    'key',
    'version_id',
    'is_latest',
    'is_delete_marker',
    'size',
    'last_modified_date',
  ];
  const layout = { destinationBucket: 'inventory-dest', base: 'inv/photos/daily-csv/' };

  it("writes the S3 User Guide's CSV template: OpenCSVSerde, flags boolean, the rest string, dt projected by minute", () => {
    expect(createTableStatement(REF, { ...layout, format: 'CSV', columns: csvColumns })).toBe(
      'CREATE EXTERNAL TABLE IF NOT EXISTS `etp_inventory`.`photos_daily` (`bucket` string, `key` string, ' +
        '`version_id` string, `is_latest` boolean, `is_delete_marker` boolean, `size` string, ' +
        '`last_modified_date` string) PARTITIONED BY (dt string) ' +
        "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde' " +
        "STORED AS INPUTFORMAT 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat' " +
        "OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.IgnoreKeyTextOutputFormat' " +
        "LOCATION 's3://inventory-dest/inv/photos/daily-csv/hive/' " +
        "TBLPROPERTIES ('projection.enabled' = 'true', 'projection.dt.type' = 'date', " +
        "'projection.dt.format' = 'yyyy-MM-dd-HH-mm', 'projection.dt.range' = '2016-11-01-00-00,NOW', " +
        "'projection.dt.interval' = '1', 'projection.dt.interval.unit' = 'MINUTES')",
    );
  });

  it.each([
    ['Parquet', 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe'],
    ['ORC', 'org.apache.hadoop.hive.ql.io.orc.OrcSerde'],
  ] as const)(
    "writes the Guide's %s template: its SerDe, size bigint, last-modified timestamp, flags boolean",
    (format, serde) => {
      const ddl = createTableStatement(REF, {
        ...layout,
        format,
        columns: [...csvColumns, 'object_lock_retain_until_date'],
      });
      expect(ddl).toContain(
        '(`bucket` string, `key` string, `version_id` string, `is_latest` boolean, `is_delete_marker` boolean, ' +
          '`size` bigint, `last_modified_date` timestamp, `object_lock_retain_until_date` bigint) PARTITIONED BY (dt string) ' +
          `ROW FORMAT SERDE '${serde}' STORED AS INPUTFORMAT 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat'`,
      );
    },
  );

  it('refuses a folder holding a quote', () => {
    expect(() =>
      createTableStatement(REF, { ...layout, format: 'Parquet', columns: ['key', 'size'], base: "inv'/x/" }),
    ).toThrow(/inventory folder .* no '/);
  });

  it('names one table per report layout: same layout, same name; another field or format, another', () => {
    const spec = { ...layout, format: 'CSV' as const, columns: csvColumns };
    expect(inventoryTableName(spec)).toMatch(/^inventory_[0-9a-f]{24}$/);
    expect(inventoryTableName({ ...spec })).toBe(inventoryTableName(spec));
    expect(inventoryTableName({ ...spec, columns: [...csvColumns, 'e_tag'] })).not.toBe(
      inventoryTableName(spec),
    );
    expect(inventoryTableName({ ...spec, format: 'Parquet' })).not.toBe(inventoryTableName(spec));
    expect(inventoryTableName({ ...spec, base: 'inv/photos/weekly/' })).not.toBe(inventoryTableName(spec));
  });
});

describe('snapshot_stats and diff_snapshots on both routes (the Athena route on DuckDB)', () => {
  const written: { run: unknown; file: string; document: unknown; runData: unknown }[] = [];
  const answers = (runData?: unknown) => async (run: unknown, file: string, document: unknown) => {
    written.push({ run, file, document, runData });
    return `memory:${file}`;
  };
  let engine: DuckInventoryEngine;
  let tools: { stats: Tool; diff: Tool };
  const saved = { ...process.env };
  const services = () => awsToolServices({ ...EXAMPLE_AWS_SECRET, region: 'us-east-1' });
  const call = (tool: Tool, args: unknown, env: Record<string, string>) => {
    Object.assign(process.env, env);
    return runAwsTool(tool, args, { services: services() });
  };

  beforeEach(() => {
    written.length = 0;
    engine = new DuckInventoryEngine(server);
    const clients = { ...localS3Clients(server), inventoryQueries: () => engine };
    tools = {
      stats: createSnapshotStatsTool(clients, answers) as Tool,
      diff: createDiffSnapshotsTool(clients, answers) as Tool,
    };
  });

  afterEach(() => {
    engine.close();
    jest.restoreAllMocks();
    for (const name of Object.keys(process.env)) if (name.startsWith('ETP_ATHENA_')) delete process.env[name];
    Object.assign(process.env, saved);
  });

  const withoutRoute = ({ route: _route, ...rest }: Record<string, unknown>) => rest;
  /** A diff's value without sample keys (the Athena route has none). */
  const unsampled = (v: InventoryDiff) => ({
    ...v,
    added: { ...v.added, samples: [] },
    removed: { ...v.removed, samples: [] },
    changed: { ...v.changed, samples: [] },
    deleteMarkersAdded: { ...v.deleteMarkersAdded, samples: [] },
    ransomNoteNames: { ...v.ransomNoteNames, samples: [] },
  });

  it.each([
    ['photos', 'daily-csv', () => world.photos],
    ['records', 'daily-parquet', () => world.records],
  ] as const)(
    'snapshot_stats of %s/%s: the same value; the answer lands in the run workspace',
    async (bucket, id, days) => {
      const args = { id: `s3_inventory:${bucket}/${id}/${days()[3]?.reportTime}` };
      const single = expectSuccess<Record<string, unknown>>(
        await call(tools.stats, args, { ETP_ATHENA_ROUTE: 'off' }),
      );
      expect(single.value.route).toBeUndefined();
      const athena = expectSuccess<Record<string, unknown>>(
        await call(tools.stats, args, { ETP_ATHENA_ROUTE: 'always' }),
      );
      expect(withoutRoute(athena.value)).toEqual(single.value);
      expect(athena.value.route).toEqual({
        engine: 'athena',
        reason: 'ETP_ATHENA_ROUTE=always',
        workGroup: 'etp-snapshots',
        database: 'etp_snapshots',
        table: expect.stringMatching(/^inventory_[0-9a-f]{24}$/),
        queryExecutionIds: ['duckdb-1', 'duckdb-2'],
        dataScannedBytes: 0,
        requests: 2,
        estimatedUsd: 0,
        answer: `memory:snapshot_stats-${days()[3]?.reportTime}.json`,
      });
      // One layout, one table (created once in the call for both reports), then the one query.
      expect(engine.statements.map((s) => s.split(' ')[0])).toEqual(['CREATE', 'WITH']);
      expect(written).toHaveLength(1);
      const invocation = toolInvocation({ tool: 'snapshot_stats', args });
      expect(written[0]?.run).toEqual({
        tenant: invocation.tenant,
        scenario: invocation.scenario,
        runId: invocation.runId,
      });
      expect(written[0]?.document).toMatchObject({ tool: 'snapshot_stats', value: single.value });
    },
  );

  it.each([
    ['photos', 'daily-csv', () => world.photos],
    ['records', 'daily-parquet', () => world.records],
  ] as const)(
    'diff_snapshots of %s/%s: the same figures and ransom-note counts, no samples',
    async (bucket, id, days) => {
      const args = {
        a: `s3_inventory:${bucket}/${id}/${days()[1]?.reportTime}`,
        b: `s3_inventory:${bucket}/${id}/${days()[9]?.reportTime}`,
      };
      const single = expectSuccess<InventoryDiff>(await call(tools.diff, args, { ETP_ATHENA_ROUTE: 'off' }));
      const athena = expectSuccess<InventoryDiff & { note: string }>(
        await call(tools.diff, args, { ETP_ATHENA_ROUTE: 'always' }),
      );
      const { note, ...figures } = withoutRoute(athena.value as unknown as Record<string, unknown>);
      expect(figures).toEqual(unsampled(single.value));
      expect(note).toBe(ATHENA_DIFF_NOTE);
      expect(single.value.added.samples.length).toBeGreaterThan(0);
      expect(athena.summary).toBe(single.summary);
    },
  );

  it('diff_snapshots across a change of format (CSV, then Parquet): the same figures, times compared as instants', async () => {
    const t = Date.UTC(2026, 4, 1, 9, 30, 15, 250);
    const o = (key: string, size: number, lastModifiedMs = t): InventoryObject => ({
      key,
      size,
      lastModifiedMs,
      eTag: size.toString(16).padStart(32, '0'),
    });
    const older = [o('a/kept.txt', 10), o('a/touched.txt', 20), o('a/grown.txt', 30), o('a/gone.txt', 40)];
    // touched: 1 ms later, nothing else; kept: the same instant, written as CSV text then as Parquet millis.
    const newer = [
      o('a/kept.txt', 10),
      o('a/touched.txt', 20, t + 1),
      o('a/grown.txt', 31),
      o('a/new.txt', 50),
    ];
    const id = 'csv-then-parquet';
    server.putInventoryConfiguration('records', { id, destinationBucket: DESTINATION, format: 'Parquet' });
    // Started at minute 32, as S3's own example folder (S3 User Guide, "Locating your inventory list").
    const times = ['2026-05-01T21-32Z', '2026-05-02T21-32Z'] as const;
    for (const [i, objects] of [older, newer].entries()) {
      writeReport(server, {
        sourceBucket: 'records',
        configurationId: id,
        destinationBucket: DESTINATION,
        reportTime: times[i] as string,
        format: i === 0 ? 'CSV' : 'Parquet',
        objects,
      });
    }
    const args = { a: `s3_inventory:records/${id}/${times[0]}`, b: `s3_inventory:records/${id}/${times[1]}` };
    const single = expectSuccess<InventoryDiff>(await call(tools.diff, args, { ETP_ATHENA_ROUTE: 'off' }));
    const athena = expectSuccess<InventoryDiff & { note: string }>(
      await call(tools.diff, args, { ETP_ATHENA_ROUTE: 'always' }),
    );
    const { note: _note, ...figures } = withoutRoute(athena.value as unknown as Record<string, unknown>);
    expect(figures).toEqual(unsampled(single.value));
    expect(single.value.comparedOn).toEqual(['size', 'last_modified', 'e_tag']);
    expect([single.value.added.count, single.value.changed.count, single.value.removed.count]).toEqual([
      1, 2, 1,
    ]);
    expect(single.value.unchanged).toEqual({ count: 1, bytes: 10 });
    // Two layouts, two tables, one query joining them.
    expect(engine.statements.map((s) => s.split(' ')[0])).toEqual(['CREATE', 'CREATE', 'WITH']);
  });

  it('finds the ransom-note-like names the single path finds', async () => {
    const t = Date.UTC(2026, 1, 1);
    const o = (key: string, size: number): InventoryObject => ({
      key,
      size,
      lastModifiedMs: t,
      eTag: size.toString(16).padStart(32, '0'),
    });
    const older = [o('a/report.docx', 10), o('b/c/notes.txt', 20)];
    const newer = [
      o('a/report.docx.locked', 11),
      o('a/HOW_TO_DECRYPT_FILES.txt', 1),
      o('b/c/notes.txt', 21),
      o('b/c/_readme.txt', 2),
      o('README.txt', 3),
      o('restore-my-files.txt', 4),
    ];
    server.putInventoryConfiguration('records', {
      id: 'notes',
      destinationBucket: DESTINATION,
      format: 'CSV',
    });
    const times = ['2026-05-01T01-00Z', '2026-05-02T01-00Z'] as const;
    for (const [i, objects] of [older, newer].entries()) {
      writeReport(server, {
        sourceBucket: 'records',
        configurationId: 'notes',
        destinationBucket: DESTINATION,
        reportTime: times[i] as string,
        format: 'CSV',
        objects,
      });
    }
    const args = { a: `s3_inventory:records/notes/${times[0]}`, b: `s3_inventory:records/notes/${times[1]}` };
    const single = expectSuccess<InventoryDiff>(await call(tools.diff, args, { ETP_ATHENA_ROUTE: 'off' }));
    const athena = expectSuccess<InventoryDiff>(await call(tools.diff, args, { ETP_ATHENA_ROUTE: 'always' }));
    expect(single.value.ransomNoteNames).toMatchObject({ count: 3, folders: 3 });
    expect(athena.value.ransomNoteNames).toEqual({ count: 3, folders: 3, samples: [] });
  });

  it("writes the answer with the call's vended run-data session (ctx.runData), none where none was vended", async () => {
    // Prepare: the session the dispatcher vends for the call (functions/dispatcher/vending-invoker.ts)
    const session = async () => ({ accessKeyId: 'ASIARUNDATA', secretAccessKey: 'fake-run-data-secret' });
    const args = { id: `s3_inventory:photos/daily-csv/${world.photos[3]?.reportTime}` };
    Object.assign(process.env, { ETP_ATHENA_ROUTE: 'always' });

    // Act
    expectSuccess(
      await runAwsTool(tools.stats, args, { services: { ...services(), runData: () => session } }),
    );
    expectSuccess(await call(tools.stats, args, { ETP_ATHENA_ROUTE: 'always' }));

    // Assess
    expect(written.map((answer) => answer.runData)).toEqual([session, undefined]);
  });

  it('takes the Athena route from the manifests’ bytes, and stays single below them', async () => {
    const args = { id: `s3_inventory:photos/daily-csv/${world.photos[2]?.reportTime}` };
    const below = expectSuccess<Record<string, unknown>>(
      await call(tools.stats, args, { ETP_ATHENA_ROUTE: 'auto', ETP_ATHENA_MIN_REPORT_BYTES: '1000000000' }),
    );
    expect(below.value.route).toBeUndefined();
    const above = expectSuccess<{ route: { reason: string } }>(
      await call(tools.stats, args, { ETP_ATHENA_MIN_REPORT_BYTES: '1000' }),
    );
    expect(above.value.route.reason).toMatch(
      /^\d+ bytes of data files, at least the 1000 one function reads/,
    );
  });

  it("moves to Athena when the single function's index fills, unless the route is off", async () => {
    const full = new LimitExceededError('too many', { details: { maxObjects: MAX_INDEX_OBJECTS } });
    jest.spyOn(singlePath, 'statsOfOpened').mockRejectedValue(full);
    const args = { id: `s3_inventory:records/daily-parquet/${world.records[2]?.reportTime}` };
    const moved = expectSuccess<{ route: { reason: string } }>(
      await call(tools.stats, args, { ETP_ATHENA_ROUTE: 'auto' }),
    );
    expect(moved.value.route.reason).toBe(
      `more than ${MAX_INDEX_OBJECTS} objects, past one function's index`,
    );
    const off = expectFailure(await call(tools.stats, args, { ETP_ATHENA_ROUTE: 'off' }));
    expect(off.error.code).toBe('limit_exceeded');
  });

  it('takes an ORC report to Athena whatever its size, with the ORC table; refuses it with the route off', async () => {
    // DuckDB has no ORC reader (and the fixture's ORC files are not real ORC): a recording engine stands in.
    const tables: InventoryTableSpec[] = [];
    const queries: string[] = [];
    const recording: InventoryQueryEngine = {
      ensureTable: async (spec) => {
        tables.push(spec);
        return {
          table: { database: 'etp_snapshots', table: inventoryTableName(spec) },
          stats: { queryExecutionId: 'ddl-1', dataScannedBytes: 0, engineMs: 0, requests: 2 },
        };
      },
      query: async (sql) => {
        queries.push(sql);
        return {
          rows: [
            {
              side: 'newer',
              delete_marker: 'false',
              change: 'added',
              extension: 'csv',
              files: '3',
              bytes: '30',
              bytes_before: '0',
            },
          ],
          stats: { queryExecutionId: 'q-1', dataScannedBytes: 20e6, engineMs: 900, requests: 4 },
        };
      },
    };
    const orcStats = createSnapshotStatsTool(
      { ...localS3Clients(server), inventoryQueries: () => recording },
      answers,
    ) as Tool;
    const args = { id: 's3_inventory:legacy/weekly-orc/2026-03-01T01-00Z' };

    const routed = expectSuccess<{ files: number; route: { reason: string; estimatedUsd: number } }>(
      await call(orcStats, args, { ETP_ATHENA_ROUTE: 'auto' }),
    );
    const off = expectFailure(await call(orcStats, args, { ETP_ATHENA_ROUTE: 'off' }));

    expect(routed.value.route.reason).toBe(ORC_REASON);
    expect(routed.value.files).toBe(3);
    // 20 MB scanned at $5 per TB.
    expect(routed.value.route.estimatedUsd).toBe(0.0001);
    expect(tables.map((t) => t.format)).toEqual(['ORC']);
    expect(createTableStatement(REF, tables[0] as InventoryTableSpec)).toContain(
      "ROW FORMAT SERDE 'org.apache.hadoop.hive.ql.io.orc.OrcSerde'",
    );
    // Typed columns, as the Parquet table: no CSV decoding or casts.
    expect(queries[0]).toContain('coalesce(size, 0) AS size');
    expect(queries[0]).not.toContain('url_decode');
    expect(off.error).toMatchObject({ code: 'upstream_error', details: { format: 'ORC' } });
  });

  it.each([
    [{ ETP_ATHENA_ROUTE: 'sometimes' }, /ETP_ATHENA_ROUTE="sometimes" is not valid: auto, off or always/],
    [{ ETP_ATHENA_WORKGROUP: 'primary' }, /ETP_ATHENA_WORKGROUP="primary" is not valid: .*starting etp-/],
    [{ ETP_ATHENA_DATABASE: 'etp-db' }, /ETP_ATHENA_DATABASE="etp-db" is not valid: .*starting etp_/],
    [
      { ETP_ATHENA_MIN_REPORT_BYTES: '2GB' },
      /ETP_ATHENA_MIN_REPORT_BYTES="2GB" is not valid: a whole number/,
    ],
  ])('refuses the setting %j before reading a report', async (env, message) => {
    server.clearRequests();
    const failure = expectFailure(
      await call(tools.stats, { id: `s3_inventory:photos/daily-csv/${world.photos[2]?.reportTime}` }, env),
    );
    expect(failure.error.code).toBe('internal_error');
    expect(failure.error.message).toMatch(message);
    expect(engine.statements).toEqual([]);
  });
});

describe('scan_snapshots on both routes (the Athena route on DuckDB)', () => {
  const SCANNED = ['s3_inventory:photos/daily-csv', 's3_inventory:records/daily-parquet'];
  let engine: DuckInventoryEngine;
  const saved = { ...process.env };
  const services = () => awsToolServices({ ...EXAMPLE_AWS_SECRET, region: 'us-east-1' });
  const scanOn = async (mode: string, sources: readonly string[] = SCANNED, since = '2026-03-10') => {
    const store = new MemoryFindingsStore();
    const scan = createScanSnapshotsTool({
      clients: { ...localS3Clients(server), inventoryQueries: () => engine },
      findingsStore: () => store,
      now: () => WORLD_NOW,
    }) as Tool;
    process.env.ETP_ATHENA_ROUTE = mode;
    const result = expectSuccess<ReturnType<typeof scanView>>(
      await runAwsTool(scan, { sources, since }, { services: services() }),
    );
    const invocation = toolInvocation({ tool: 'scan_snapshots', args: {} });
    const run = { tenant: invocation.tenant, scenario: invocation.scenario, runId: invocation.runId };
    return { result, document: (await store.get(run)) as FindingsDocument };
  };
  /** A finding without what only the index has: its sample keys (and the verification step naming one). */
  const unsampled = (finding: SnapshotFinding) => {
    const { sampleKeys: _keys, ...evidence } = finding.evidence;
    return { ...finding, evidence, verify: [] };
  };

  beforeEach(() => {
    engine = new DuckInventoryEngine(server);
  });

  afterEach(() => {
    engine.close();
    for (const name of Object.keys(process.env)) if (name.startsWith('ETP_ATHENA_')) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it('finds the same findings, ids and figures included, with no sample keys on Athena', async () => {
    const single = await scanOn('off');
    const athena = await scanOn('always');

    expect(athena.document.findings.map(unsampled)).toEqual(single.document.findings.map(unsampled));
    // The encryption wave and the mass deletion are there on both routes.
    expect(athena.document.findings.map((f) => `${f.source} ${f.check}`)).toEqual(
      expect.arrayContaining([
        's3_inventory:photos/daily-csv ransomware_extension',
        's3_inventory:photos/daily-csv ransom_note_names',
        's3_inventory:records/daily-parquet deletion_spike',
      ]),
    );
    for (const [i, finding] of athena.document.findings.entries()) {
      expect(finding.evidence.sampleKeys ?? []).toEqual([]);
      // As many verification steps, none narrowed to a sample key (the single path's may be: --prefix <key>).
      expect(finding.verify).toHaveLength(single.document.findings[i]?.verify.length ?? -1);
      expect(finding.verify.join('\n')).not.toContain('--prefix');
    }
    expect(single.document.findings.some((f) => (f.evidence.sampleKeys as unknown[])?.length > 0)).toBe(true);
  });

  it("says which sources took the route, with one query per step and each layout's table made once", async () => {
    const single = await scanOn('off');
    const athena = await scanOn('always');

    const strip = ({ athena: _route, notes: _notes, ...rest }: SourceScanReport) => rest;
    expect(athena.document.sources.map(strip)).toEqual(single.document.sources.map(strip));
    const steps = (single.document.sources[0]?.snapshotsRead ?? 0) - 1;
    expect(steps).toBe(8);
    for (const source of athena.document.sources) {
      expect(source.athena).toEqual({
        engine: 'athena',
        reason: 'ETP_ATHENA_ROUTE=always',
        workGroup: 'etp-snapshots',
        database: 'etp_snapshots',
        table: expect.stringMatching(/^inventory_[0-9a-f]{24}$/),
        queryExecutionIds: expect.any(Array),
        dataScannedBytes: 0,
        requests: 1 + steps,
        estimatedUsd: 0,
      });
      expect(source.notes).toContain(
        `${source.source}: compared on Athena (ETP_ATHENA_ROUTE=always); its findings carry no sample keys`,
      );
    }
    expect(single.document.sources.every((s) => s.athena === undefined)).toBe(true);
    // Per source: one CREATE (one layout), then its eight step queries.
    expect(engine.statements.map((s) => s.split(' ')[0])).toEqual([
      'CREATE',
      ...Array(steps).fill('WITH'),
      'CREATE',
      ...Array(steps).fill('WITH'),
    ]);
    expect(athena.result.value.sources[0]?.athena?.requests).toBe(1 + steps);
  });

  it("moves a source to Athena from its reports' bytes, and when the index fills", async () => {
    process.env.ETP_ATHENA_MIN_REPORT_BYTES = '1000';
    const byBytes = await scanOn('auto', [SCANNED[0] as string]);
    expect(byBytes.document.sources[0]?.athena?.reason).toMatch(
      /^\d+ bytes of data files, at least the 1000 one function reads/,
    );
    delete process.env.ETP_ATHENA_MIN_REPORT_BYTES;

    const full = new LimitExceededError('too many', { details: { maxObjects: MAX_INDEX_OBJECTS } });
    jest.spyOn(singlePath, 'readInto').mockRejectedValue(full);
    try {
      const moved = await scanOn('auto', [SCANNED[1] as string]);
      expect(moved.document.sources[0]?.athena?.reason).toBe(
        `more than ${MAX_INDEX_OBJECTS} objects, past one function's index`,
      );
      expect(moved.document.findings.map((f) => f.check)).toEqual(['deletion_spike']);
      const off = await scanOn('off', [SCANNED[1] as string]);
      expect(off.document.sources[0]?.error?.code).toBe('limit_exceeded');
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('reads an ORC source on the Athena route, and skips it with a note when the route is off', async () => {
    const orc = 's3_inventory:legacy/weekly-orc';
    const routed = await scanOn('auto', [orc], '2026-02-01');
    const off = await scanOn('off', [orc], '2026-02-01');

    // One report: nothing to compare, so no query; but it is read, not skipped.
    expect(routed.document.sources[0]).toMatchObject({ ok: true, snapshotsRead: 1 });
    expect(routed.document.sources[0]?.notes.join(' ')).not.toMatch(/ORC/);
    expect(off.document.sources[0]).toMatchObject({ ok: true, snapshotsRead: 0 });
    expect(off.document.sources[0]?.notes).toContain(
      `${orc}/2026-03-01T01-00Z: ORC reports are read by the Athena route only (the single function reads CSV and Parquet)`,
    );
    expect(engine.statements).toEqual([]);
  });

  it('refuses a bad setting before reading anything', async () => {
    server.clearRequests();
    const scan = createScanSnapshotsTool({
      clients: { ...localS3Clients(server), inventoryQueries: () => engine },
      findingsStore: () => new MemoryFindingsStore(),
      now: () => WORLD_NOW,
    }) as Tool;
    process.env.ETP_ATHENA_MIN_REPORT_BYTES = '-1';
    const failure = expectFailure(
      await runAwsTool(scan, { sources: SCANNED, since: '2026-03-10' }, { services: services() }),
    );
    expect(failure.error.message).toMatch(/ETP_ATHENA_MIN_REPORT_BYTES="-1" is not valid: a whole number/);
    expect(server.requests).toEqual([]);
  });
});
