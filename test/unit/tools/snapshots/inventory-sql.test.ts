/**
 * The Athena table of the snapshot tools (athena/inventory-sql.ts,
 * `createTableStatement`) held to the S3 User Guide's templates, "Querying
 * Amazon S3 Inventory with Amazon Athena" (storage-inventory-athena-query):
 * every column's type, the SerDe, input and output formats and the projection;
 * and the projected `dt` grid held to the Athena User Guide, "Supported types
 * for partition projection" (date type).
 */
import { createHash } from 'node:crypto';
import {
  createTableStatement,
  type InventoryTableSpec,
  inventoryTableName,
  PROJECTION_START,
  partitionOf,
  statsQuery,
} from '../../../../functions/tools/snapshots/athena/inventory-sql';

/**
 * The Guide's ORC template, column by column, as the page stands (its Parquet
 * table is "the sample query for an ORC-formatted report" with the Parquet
 * SerDe). Its earlier text (awsdocs/amazon-s3-userguide, archived 2023) declared
 * `last_modified_date bigint` and stepped `dt` by 1 DAYS.
 */
const GUIDE_ORC_TEMPLATE: readonly (readonly [string, string])[] = [
  ['bucket', 'string'],
  ['key', 'string'],
  ['version_id', 'string'],
  ['is_latest', 'boolean'],
  ['is_delete_marker', 'boolean'],
  ['size', 'bigint'],
  ['last_modified_date', 'timestamp'],
  ['e_tag', 'string'],
  ['storage_class', 'string'],
  ['is_multipart_uploaded', 'boolean'],
  ['replication_status', 'string'],
  ['encryption_status', 'string'],
  ['object_lock_retain_until_date', 'bigint'],
  ['object_lock_mode', 'string'],
  ['object_lock_legal_hold_status', 'string'],
  ['intelligent_tiering_access_tier', 'string'],
  ['bucket_key_status', 'string'],
  ['checksum_algorithm', 'string'],
  ['object_access_control_list', 'string'],
  ['object_owner', 'string'],
  ['lifecycle_expiration_date', 'timestamp'],
];

/** The Guide's CSV template: every column `string` but the three flags. */
const GUIDE_CSV_TEMPLATE: readonly (readonly [string, string])[] = GUIDE_ORC_TEMPLATE.map(([column]) => [
  column,
  ['is_latest', 'is_delete_marker', 'is_multipart_uploaded'].includes(column) ? 'boolean' : 'string',
]);

const GUIDE = {
  CSV: { columns: GUIDE_CSV_TEMPLATE, serde: 'org.apache.hadoop.hive.serde2.OpenCSVSerde' },
  Parquet: {
    columns: GUIDE_ORC_TEMPLATE,
    serde: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
  },
  ORC: { columns: GUIDE_ORC_TEMPLATE, serde: 'org.apache.hadoop.hive.ql.io.orc.OrcSerde' },
} as const;

const REF = { database: 'etp_snapshots', table: 'inventory_0123456789abcdef01234567' };
const spec = (format: InventoryTableSpec['format']): InventoryTableSpec => ({
  format,
  columns: GUIDE_ORC_TEMPLATE.map(([column]) => column),
  destinationBucket: 'inventory-dest',
  base: 'inv/photos/daily/',
});

/** The `(name type, …)` list of a statement, as pairs. */
function declaredColumns(ddl: string): [string, string][] {
  const list =
    /^CREATE EXTERNAL TABLE IF NOT EXISTS `[a-z0-9_]+`\.`[a-z0-9_]+` \((.*?)\) PARTITIONED BY/.exec(ddl)?.[1];
  return (list ?? '').split(', ').map((pair) => {
    const [name, type] = pair.split(' ');
    return [String(name).replace(/`/g, ''), String(type)];
  });
}

/** The `TBLPROPERTIES` of a statement. */
function tableProperties(ddl: string): Record<string, string> {
  const list = /TBLPROPERTIES \((.*)\)$/.exec(ddl)?.[1] ?? '';
  return Object.fromEntries([...list.matchAll(/'([^']+)' = '([^']*)'/g)].map((m) => [m[1], m[2]]));
}

describe("the inventory table, held to the S3 User Guide's templates", () => {
  it('names the table after its definition, so a changed type or projection makes a new table', () => {
    const ddl = createTableStatement(REF, spec('ORC'));
    const definition = ddl.slice(ddl.indexOf(' (') + 1);
    expect(definition.startsWith('(`bucket` string, ')).toBe(true);
    expect(inventoryTableName(spec('ORC'))).toBe(
      `inventory_${createHash('sha256').update(definition).digest('hex').slice(0, 24)}`,
    );
  });

  it.each(['CSV', 'Parquet', 'ORC'] as const)(
    'declares every %s column with the type of the Guide’s template',
    (format) => {
      expect(declaredColumns(createTableStatement(REF, spec(format)))).toEqual(GUIDE[format].columns);
    },
  );

  it.each(['CSV', 'Parquet', 'ORC'] as const)(
    "stores %s as the Guide's template: its SerDe, the symlink input format, over the hive/ folder",
    (format) => {
      expect(createTableStatement(REF, spec(format))).toContain(
        `PARTITIONED BY (dt string) ROW FORMAT SERDE '${GUIDE[format].serde}' ` +
          "STORED AS INPUTFORMAT 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat' " +
          "OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.IgnoreKeyTextOutputFormat' " +
          "LOCATION 's3://inventory-dest/inv/photos/daily/hive/' TBLPROPERTIES (",
      );
    },
  );

  it('projects dt as a yyyy-MM-dd-HH-mm date from 2016-11-01, every minute (the Guide: from the first report, every hour)', () => {
    expect(tableProperties(createTableStatement(REF, spec('Parquet')))).toEqual({
      'projection.enabled': 'true',
      'projection.dt.type': 'date',
      'projection.dt.format': 'yyyy-MM-dd-HH-mm',
      'projection.dt.range': '2016-11-01-00-00,NOW',
      'projection.dt.interval': '1',
      'projection.dt.interval.unit': 'MINUTES',
    });
  });

  it.each([
    [
      'CSV',
      "THEN try_cast(substr(last_modified_date, 1, 10) || ' ' || substr(last_modified_date, 12, 8) || '.' || " +
        "rpad(coalesce(regexp_extract(last_modified_date, '\\.([0-9]+)Z', 1), ''), 3, '0') AS timestamp) END AS lm",
    ],
    ['Parquet', 'last_modified_date AS lm'],
    ['ORC', 'last_modified_date AS lm'],
  ] as const)(
    'reads %s last-modified times as the timestamp the ORC and Parquet tables declare',
    (fileFormat, lm) => {
      const columns = ['bucket', 'key', 'size', 'last_modified_date', 'e_tag'];
      expect(
        statsQuery({ reportTime: '2026-03-01T01-00Z', manifest: { fileFormat, columns }, table: REF }),
      ).toContain(lm);
    },
  );
});

/** Minutes from `from` to `to`, both `yyyy-MM-dd-HH-mm` in UTC (projected dates are UTC). */
function minutesBetween(from: string, to: string): number {
  const ms = (dt: string) => {
    const [y, mo, d, h, mi] = dt.split('-').map(Number) as [number, number, number, number, number];
    return Date.UTC(y, mo - 1, d, h, mi);
  };
  return (ms(to) - ms(from)) / 60_000;
}

/**
 * Whether Athena generates `dt` for a date projection from `start` every 1
 * `unit`: "a positive integer that specifies the interval between successive
 * partition values" from the range's first value (Athena User Guide, "Supported
 * types for partition projection"); a value between two of them is not one.
 */
function generated(dt: string, start: string, unit: string): boolean {
  const step = { MINUTES: 1, HOURS: 60, DAYS: 1440 }[unit];
  if (step === undefined) throw new Error(`no step for ${unit}`);
  const minutes = minutesBetween(start, dt);
  return minutes >= 0 && minutes % step === 0;
}

describe('the projected dt of each report', () => {
  // S3's own example folder (S3 User Guide, "Locating your inventory list"), one at 01:00, one at midnight.
  const times = ['2016-11-06T21-32Z', '2026-03-01T01-00Z', '2026-03-02T00-00Z'];

  it("is one of the values the table's projection generates, whatever its hour and minute", () => {
    const properties = tableProperties(createTableStatement(REF, spec('CSV')));
    const [start] = String(properties['projection.dt.range']).split(',') as [string];
    expect(properties['projection.dt.interval']).toBe('1');
    const unit = String(properties['projection.dt.interval.unit']);
    expect(times.map((t) => generated(partitionOf(t), start, unit))).toEqual([true, true, true]);
  });

  it("is missed by the Guide's 1 HOURS (minute 32) and by 1 DAYS (anything after midnight)", () => {
    const dts = times.map(partitionOf);
    expect(dts).toEqual(['2016-11-06-21-32', '2026-03-01-01-00', '2026-03-02-00-00']);
    expect(dts.map((dt) => generated(dt, PROJECTION_START, 'HOURS'))).toEqual([false, true, true]);
    expect(dts.map((dt) => generated(dt, PROJECTION_START, 'DAYS'))).toEqual([false, false, true]);
  });

  it('refuses a report time before the projection starts, which Athena would answer with no rows', () => {
    expect(partitionOf('2016-11-01T00-00Z')).toBe('2016-11-01-00-00');
    expect(() => partitionOf('2016-10-31T23-59Z')).toThrow(
      /report time "2016-10-31T23-59Z" is not valid: not before 2016-11-01-00-00/,
    );
  });
});
