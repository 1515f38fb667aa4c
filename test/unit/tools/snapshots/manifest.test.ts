/**
 * parseManifest's checks (S3 User Guide, "Inventory manifest", "Amazon S3
 * Inventory list"): a data file listed twice, a fileSchema written in another
 * format's style, a missing Key or Size field, and field names S3 adds later.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import {
  createTableStatement,
  inventoryTableName,
  statsQuery,
} from '../../../../functions/tools/snapshots/athena/inventory-sql';
import { configurationView } from '../../../../functions/tools/snapshots/inventory/configuration';
import { readCsvDataFile } from '../../../../functions/tools/snapshots/inventory/csv-reader';
import {
  type InventoryManifest,
  parseManifest,
  schemaStyle,
} from '../../../../functions/tools/snapshots/inventory/manifest';
import {
  columnPositions,
  type InventoryRow,
  type InventoryRowSink,
} from '../../../../functions/tools/snapshots/inventory/rows';
import { fileSchemaOf } from '../../../helpers/inventory-fixtures';

const REPORT = 's3_inventory:photos/daily/2026-03-01T01-00Z';
const configuration = configurationView('photos', {
  Id: 'daily',
  IsEnabled: true,
  IncludedObjectVersions: 'Current',
  Schedule: { Frequency: 'Daily' },
  Destination: {
    S3BucketDestination: { Bucket: 'arn:aws:s3:::inventory-dest', Format: 'CSV', Prefix: 'inv' },
  },
});
const FILE_A = 'inv/photos/daily/data/939c6d46-85a9-4ba8-87bd-9db705a579ce.csv.gz';
const FILE_B = 'inv/photos/daily/data/ea8268b2-a6ba-42de-8694-91a9833b4ff1.csv.gz';
const MD5 = 'f11166069f1990abeb9c97ace9cdfabc';

function manifestBytes(fields: Record<string, unknown> = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      sourceBucket: 'photos',
      destinationBucket: 'arn:aws:s3:::inventory-dest',
      version: '2016-11-30',
      creationTimestamp: '1772326800000',
      fileFormat: 'CSV',
      fileSchema: 'Bucket, Key, Size, LastModifiedDate, ETag',
      files: [{ key: FILE_A, size: 100, MD5checksum: MD5 }],
      ...fields,
    }),
  );
}

const parse = (fields: Record<string, unknown> = {}): InventoryManifest =>
  parseManifest(manifestBytes(fields), configuration, REPORT);

/** The error `parse` throws (fails the test when it throws none). */
function refusal(fields: Record<string, unknown>): { code: string; message: string; details: unknown } {
  try {
    parse(fields);
  } catch (err) {
    return err as { code: string; message: string; details: unknown };
  }
  throw new Error('parseManifest accepted the manifest');
}

describe('parseManifest: files', () => {
  it('refuses a data file listed twice, naming it, instead of counting its rows twice', () => {
    const error = refusal({
      files: [
        { key: FILE_A, size: 100, MD5checksum: MD5 },
        { key: FILE_B, size: 100, MD5checksum: MD5 },
        { key: FILE_A, size: 100, MD5checksum: MD5 },
      ],
    });

    expect(error).toMatchObject({
      code: 'upstream_error',
      details: { report: REPORT, reason: 'duplicate_file', key: FILE_A },
    });
    expect(error.message).toBe(
      `Inventory report ${REPORT}: manifest.json lists the data file ${FILE_A} more than once; ` +
        'S3 lists each data file of a report once, so the report is refused rather than counted twice',
    );
  });

  it('accepts distinct files and sums their sizes', () => {
    const manifest = parse({
      files: [
        { key: FILE_A, size: 100, MD5checksum: MD5 },
        { key: FILE_B, size: 50, MD5checksum: MD5.toUpperCase() },
      ],
    });

    expect(manifest.files.map((file) => file.key)).toEqual([FILE_A, FILE_B]);
    expect(manifest.reportBytes).toBe(150);
    expect(manifest.files[1]?.md5).toBe(MD5);
  });
});

describe('parseManifest: fileSchema against fileFormat', () => {
  it.each([
    ['CSV', fileSchemaOf('CSV', true)],
    ['Parquet', fileSchemaOf('Parquet', true)],
    ['ORC', fileSchemaOf('ORC', true)],
  ] as const)('tells the style of a %s schema', (style, schema) => {
    expect(schemaStyle(schema)).toBe(style);
  });

  it('refuses Parquet with a CSV-style schema, saying what a Parquet schema looks like', () => {
    const error = refusal({ fileFormat: 'Parquet', fileSchema: 'Bucket, Key, Size, LastModifiedDate, ETag' });

    expect(error).toMatchObject({
      code: 'upstream_error',
      details: { reason: 'schema_format_mismatch', fileFormat: 'Parquet' },
    });
    expect(error.message).toContain(
      'its fileFormat Parquet does not match its CSV-style (comma-separated) fileSchema (Bucket, Key, Size, LastModifiedDate, ETag); ' +
        'a Parquet fileSchema is a Parquet message schema, e.g. "message s3.inventory { required binary bucket (STRING);',
    );
    expect(error.message).not.toContain('add the Size');
  });

  it('refuses CSV with a Parquet message schema, saying what a CSV schema looks like', () => {
    const error = refusal({ fileFormat: 'CSV', fileSchema: fileSchemaOf('Parquet', false) });

    expect(error.message).toContain(
      'its fileFormat CSV does not match its Parquet-style fileSchema (message s3.inventory {',
    );
    expect(error.message).toContain(
      'a CSV fileSchema is a CSV-style (comma-separated) list of field names, e.g. "Bucket, Key, Size, LastModifiedDate, ETag"',
    );
    expect(error.message).not.toContain('add the Size');
  });

  it.each([
    ['ORC', fileSchemaOf('CSV', false), 'its fileFormat ORC does not match its CSV-style (comma-separated)'],
    ['ORC', fileSchemaOf('Parquet', false), 'its fileFormat ORC does not match its Parquet-style'],
    ['Parquet', fileSchemaOf('ORC', false), 'its fileFormat Parquet does not match its ORC-style'],
    ['CSV', fileSchemaOf('ORC', false), 'its fileFormat CSV does not match its ORC-style'],
  ])('refuses %s with the schema %s', (fileFormat, fileSchema, fragment) => {
    expect(refusal({ fileFormat, fileSchema }).message).toContain(fragment);
  });

  it.each(['CSV', 'Parquet', 'ORC'] as const)('reads a %s schema in its own style', (format) => {
    expect(parse({ fileFormat: format, fileSchema: fileSchemaOf(format, true) }).columns).toEqual([
      'bucket',
      'key',
      'version_id',
      'is_latest',
      'is_delete_marker',
      'size',
      'last_modified_date',
      'e_tag',
    ]);
  });
});

describe('parseManifest: creationTimestamp', () => {
  it.each(['9999999999999999', '8640000000000001'])(
    'refuses %s, past the last time a Date holds, as a manifest problem (not an internal error later)',
    (creationTimestamp) => {
      const error = refusal({ creationTimestamp });

      expect(error).toMatchObject({
        code: 'upstream_error',
        details: { report: REPORT, reason: 'invalid_creation_timestamp', creationTimestamp },
      });
      expect(error.message).toContain(`creationTimestamp ${creationTimestamp} is not a time`);
    },
  );

  it('reads the last time a Date holds', () => {
    const manifest = parse({ creationTimestamp: '8640000000000000' });

    expect(new Date(manifest.createdAtMs).toISOString()).toBe('+275760-09-13T00:00:00.000Z');
  });
});

describe('parseManifest: field names', () => {
  it.each([
    ['CSV', 'Bucket, Key, Size, LastModifiedDate, Size', 'size'],
    ['CSV', 'Bucket, Key, Size, KEY', 'key'],
    ['CSV', 'Bucket, Key, ETag, Size, E_Tag', 'e_tag'],
    [
      'Parquet',
      'message s3.inventory { required binary bucket (STRING); required binary key (STRING); optional int64 size; optional int64 Size; }',
      'Size',
    ],
    ['ORC', 'struct<bucket:string,key:string,size:bigint,key:string>', 'key'],
  ])('refuses a %s fileSchema listing a field twice (%s)', (fileFormat, fileSchema, field) => {
    const error = refusal({ fileFormat, fileSchema });

    expect(error).toMatchObject({
      code: 'upstream_error',
      details: { report: REPORT, reason: 'duplicate_field', field, fileSchema },
    });
    expect(error.message).toContain(`lists the field ${field} more than once`);
  });

  it.each([
    ['CSV', 'Bucket, Key, , Size', 3],
    ['CSV', 'Bucket, Key, Size,', 4],
    ['CSV', ',Bucket, Key, Size', 1],
    ['ORC', 'struct<bucket:string,,key:string,size:bigint>', 2],
  ])('refuses a %s fileSchema with an empty field name (%s)', (fileFormat, fileSchema, position) => {
    const error = refusal({ fileFormat, fileSchema });

    expect(error).toMatchObject({
      code: 'upstream_error',
      details: { report: REPORT, reason: 'empty_field_name', position, fileSchema },
    });
    expect(error.message).toContain(`an empty field name at position ${position}`);
  });
});

describe('parseManifest: required fields', () => {
  it('advises adding Size only when Size is the field missing', () => {
    const error = refusal({ fileSchema: 'Bucket, Key, LastModifiedDate, ETag' });

    expect(error).toMatchObject({
      code: 'upstream_error',
      details: { reason: 'missing_field', field: 'Size' },
    });
    expect(error.message).toContain(
      'its fileSchema has no Size field (Bucket, Key, LastModifiedDate, ETag); add the Size optional field to the inventory configuration',
    );
  });

  it.each([
    ['CSV', 'Bucket, Size, LastModifiedDate, ETag'],
    ['Parquet', 'message s3.inventory { required binary bucket (STRING); optional int64 size; }'],
  ])(
    'says a %s schema without Key is not an inventory schema, without the Size advice',
    (fileFormat, fileSchema) => {
      const error = refusal({ fileFormat, fileSchema });

      expect(error).toMatchObject({ details: { reason: 'missing_field', field: 'Key' } });
      expect(error.message).toContain(
        `its fileSchema has no Key field (${fileSchema}); every S3 Inventory list has Bucket and Key, so this is not an inventory schema`,
      );
      expect(error.message).not.toContain('Size optional field');
    },
  );
});

describe('parseManifest: fields S3 adds later', () => {
  const SCHEMA = 'Bucket, Key, Size, LastModifiedDate, ETag, FrobnicateLevel';

  it('keeps an unknown field as a column', () => {
    expect(parse({ fileSchema: SCHEMA }).columns).toEqual([
      'bucket',
      'key',
      'size',
      'last_modified_date',
      'e_tag',
      'frobnicate_level',
    ]);
  });

  it('reads data lines with as many fields as the schema, the unknown column read past', async () => {
    const manifest = parse({ fileSchema: SCHEMA });
    const data = Buffer.from(
      '"photos","a%2Fb.jpg","1024","2024-07-01T12:00:00.000Z","aaaa","high"\n' +
        '"photos","c+d.pdf","20","2025-01-01T00:00:00.000Z","bbbb",""\n',
    );
    const bytes = gzipSync(data);
    const file = { key: FILE_A, size: bytes.length, md5: createHash('md5').update(bytes).digest('hex') };
    const rows: [string, number, number][] = [];
    const sink: InventoryRowSink = {
      row: (r: InventoryRow) => rows.push([r.key(), r.size, r.lastModifiedMs]),
    };

    const read = await readCsvDataFile(
      Readable.from([bytes]),
      file,
      columnPositions(manifest.columns),
      sink,
      {
        reportId: REPORT,
        deadline: deadlineIn(10_000),
        rowsBefore: 0,
      },
    );

    expect(read).toBe(2);
    expect(rows).toEqual([
      ['a/b.jpg', 1024, Date.UTC(2024, 6, 1, 12)],
      ['c d.pdf', 20, Date.UTC(2025, 0, 1)],
    ]);
  });
});

describe('the Athena table of a report with a field S3 added later', () => {
  const TABLE = { database: 'etp_snapshots', table: 'photos_daily' };
  const columns = ['bucket', 'key', 'size', 'last_modified_date', 'e_tag', 'frobnicate_level'];
  const spec = (format: 'CSV' | 'Parquet' | 'ORC') => ({
    format,
    columns,
    destinationBucket: 'inventory-dest',
    base: 'inv/photos/daily/',
  });

  it.each(['CSV', 'Parquet', 'ORC'] as const)(
    'declares the unknown %s column string, by its position',
    (format) => {
      const statement = createTableStatement(TABLE, spec(format));

      expect(statement).toContain('`e_tag` string, `unknown_field_6` string)');
      expect(statement).not.toContain('frobnicate_level');
    },
  );

  it('never reads the unknown column in the query', () => {
    const sql = statsQuery({
      reportTime: '2026-03-01T01-00Z',
      manifest: { fileFormat: 'Parquet', columns },
      table: TABLE,
    });

    expect(sql).not.toContain('frobnicate_level');
  });

  it.each([
    ['object-lock', 'a name that is not an identifier'],
    ['größe', 'a name beyond ASCII'],
    ['2nd_field', 'a name starting with a digit'],
    ['dt', "the partition column's name"],
  ])('declares %s (%s) by its position, as the single path reads it past', (name) => {
    const withField = ['bucket', 'key', name, 'size', 'last_modified_date'];
    const statement = createTableStatement(TABLE, { ...spec('CSV'), columns: withField });
    const sql = statsQuery({
      reportTime: '2026-03-01T01-00Z',
      manifest: { fileFormat: 'CSV', columns: withField },
      table: TABLE,
    });

    expect(statement).toContain(
      '(`bucket` string, `key` string, `unknown_field_3` string, `size` string, `last_modified_date` string) PARTITIONED BY (dt string)',
    );
    expect(statement).not.toContain(`\`${name}\``);
    expect(sql).not.toContain(name === 'dt' ? '`dt`' : name);
  });

  it('names layouts apart by their known fields and the positions of the others, not by unknown names', () => {
    const name = (columns: string[]) => inventoryTableName({ ...spec('CSV'), columns });

    expect(name(['key', 'size', 'object_owner'])).not.toBe(name(['key', 'size', 'frobnicate']));
    expect(name(['key', 'size', 'frobnicate'])).toBe(name(['key', 'size', 'Object-Lock']));
    expect(name(['key', 'size', 'frobnicate'])).not.toBe(name(['key', 'frobnicate', 'size']));
    expect(name(['key', 'size', 'frobnicate'])).not.toBe(name(['key', 'size']));
    expect(name(['key', 'size', 'frobnicate'])).not.toBe(name(['key', 'size', 'frobnicate', 'other']));
  });
});
