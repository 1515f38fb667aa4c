import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import {
  AthenaQueryEngine,
  runAthenaQuery,
} from '../../../../functions/tools/snapshots/athena/athena-runner';
import {
  createTableStatement,
  inventoryTableName,
} from '../../../../functions/tools/snapshots/athena/inventory-sql';
import { type FigureRow, foldFigureRows } from '../../../../functions/tools/snapshots/athena/query-figures';
import { chooseRoute } from '../../../../functions/tools/snapshots/athena/route';
import {
  athenaRouteSettings,
  DEFAULT_DATABASE,
  DEFAULT_WORKGROUP,
} from '../../../../functions/tools/snapshots/athena/settings';

const athena = mockClient(AthenaClient);
const client = new AthenaClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'example' },
});
const SETTINGS = { workGroup: 'etp-snapshots', database: 'etp_inventory' };
const COLUMNS = ['side', 'delete_marker', 'change', 'extension', 'files', 'bytes', 'bytes_before'];
const row = (values: string[]) => ({ Data: values.map((VarCharValue) => ({ VarCharValue })) });

beforeEach(() => athena.reset());

describe('runAthenaQuery', () => {
  it('starts in the workgroup with no output location (managed query results), polls until SUCCEEDED, and reads every page after the header', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena
      .on(GetQueryExecutionCommand)
      .resolvesOnce({ QueryExecution: { Status: { State: 'RUNNING' } } })
      .resolves({
        QueryExecution: {
          Status: { State: 'SUCCEEDED' },
          Statistics: { DataScannedInBytes: 7_340_032, EngineExecutionTimeInMillis: 2_100 },
        },
      });
    athena
      .on(GetQueryResultsCommand)
      .resolvesOnce({
        ResultSet: {
          ResultSetMetadata: { ColumnInfo: COLUMNS.map((Name) => ({ Name, Type: 'varchar' })) },
          Rows: [row(COLUMNS), row(['newer', 'false', 'added', 'jpg', '3', '300', '0'])],
        },
        NextToken: 'page-2',
      })
      .resolves({ ResultSet: { Rows: [row(['newer', 'false', 'changed', 'pdf', '2', '50', '40'])] } });

    const { rows, stats } = await runAthenaQuery(client, 'SELECT 1', SETTINGS, deadlineIn(30_000));

    expect(athena.commandCalls(StartQueryExecutionCommand)[0]?.args[0].input).toEqual({
      QueryString: 'SELECT 1',
      WorkGroup: 'etp-snapshots',
      QueryExecutionContext: { Database: 'etp_inventory' },
    });
    expect(athena.commandCalls(GetQueryResultsCommand)[1]?.args[0].input).toMatchObject({
      NextToken: 'page-2',
    });
    expect(stats).toEqual({
      queryExecutionId: 'q-1',
      dataScannedBytes: 7_340_032,
      engineMs: 2_100,
      requests: 5,
    });
    const figures = foldFigureRows(rows as unknown as FigureRow[], 15);
    expect(figures.newer).toEqual({ objects: 5, bytes: 350, deleteMarkers: 0 });
    expect(figures.changed).toMatchObject({ count: 2, bytes: 50, bytesBefore: 40 });
    expect(figures.newerHistogram).toEqual([
      { extension: 'jpg', files: 3, bytes: 300 },
      { extension: 'pdf', files: 2, bytes: 50 },
    ]);
  });

  it("answers upstream_error with Athena's reason when the query fails", async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-2' });
    athena.on(GetQueryExecutionCommand).resolves({
      QueryExecution: {
        Status: { State: 'FAILED', StateChangeReason: 'TABLE_NOT_FOUND: etp_inventory.photos' },
      },
    });
    await expect(runAthenaQuery(client, 'SELECT 1', SETTINGS, deadlineIn(30_000))).rejects.toMatchObject({
      code: 'upstream_error',
      message: expect.stringMatching(/q-2 FAILED: TABLE_NOT_FOUND/),
    });
  });

  it("creates a report layout's table once per container (IF NOT EXISTS), then queries it", async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-ddl' });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' } } });
    athena.on(GetQueryResultsCommand).resolves({ ResultSet: { Rows: [] } });
    const engine = new AthenaQueryEngine(client, SETTINGS);
    const spec = {
      format: 'Parquet' as const,
      columns: ['bucket', 'key', 'size'],
      destinationBucket: 'inventory-dest',
      base: 'photos/daily/',
    };

    const first = await engine.ensureTable(spec, deadlineIn(30_000));
    const again = await engine.ensureTable(spec, deadlineIn(30_000));

    expect(first.table).toEqual({ database: 'etp_inventory', table: inventoryTableName(spec) });
    expect(again).toEqual({
      table: first.table,
      stats: { queryExecutionId: '', dataScannedBytes: 0, engineMs: 0, requests: 0 },
    });
    const started = athena.commandCalls(StartQueryExecutionCommand);
    expect(started).toHaveLength(1);
    expect(started[0]?.args[0].input.QueryString).toBe(createTableStatement(first.table, spec));
    expect(started[0]?.args[0].input.QueryString).toMatch(
      /^CREATE EXTERNAL TABLE IF NOT EXISTS `etp_inventory`/,
    );
  });

  it('stops at the deadline while the query still runs', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-3' });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: 'RUNNING' } } });
    await expect(runAthenaQuery(client, 'SELECT 1', SETTINGS, deadlineIn(1_000))).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringMatching(/q-3 still running/),
    });
  });
});

describe('the route decision and its settings', () => {
  it('defaults to auto with the workgroup and database CustomerAccessStack creates and a 2 GiB threshold', () => {
    expect(athenaRouteSettings({})).toEqual({
      mode: 'auto',
      workGroup: DEFAULT_WORKGROUP,
      database: DEFAULT_DATABASE,
      minReportBytes: 2 * 1024 ** 3,
    });
  });

  it.each([
    ['auto', 2 * 1024 ** 3 - 1, 'single'],
    ['auto', 2 * 1024 ** 3, 'athena'],
    ['off', 10 * 1024 ** 4, 'single'],
    ['always', 0, 'athena'],
  ] as const)('%s with %d bytes of data files takes the %s route', (mode, bytes, route) => {
    expect(chooseRoute(bytes, athenaRouteSettings({ ETP_ATHENA_ROUTE: mode })).route).toBe(route);
  });
});

describe('foldFigureRows: the figures as text', () => {
  const row = (fields: Partial<FigureRow>): FigureRow => ({
    side: 'newer',
    delete_marker: 'false',
    change: 'added',
    extension: 'bin',
    files: '2000',
    bytes: '0',
    bytes_before: '0',
    ...fields,
  });

  it('reads a byte sum past 2^53 as the nearest double, once, instead of refusing it', () => {
    const figures = foldFigureRows([row({ bytes: '9999999999998000' })], 15);

    expect(figures.newer).toEqual({ objects: 2000, bytes: 9999999999998000, deleteMarkers: 0 });
    expect(figures.newerHistogram).toEqual([{ extension: 'bin', files: 2000, bytes: 9999999999998000 }]);
  });

  it.each(['1.5', '-3', '1e3', 'NaN', ' 12'])('refuses a figure %s that is not a whole number', (bytes) => {
    expect(() => foldFigureRows([row({ bytes })], 15)).toThrow(
      expect.objectContaining({
        code: 'upstream_error',
        message: expect.stringContaining('Query result row has non-integer figures'),
      }),
    );
  });

  it('reads the count of refused rows whatever the other rows hold', () => {
    const figures = foldFigureRows(
      [
        row({ bytes: '9007199254740992' }),
        row({ side: 'invalid', change: 'newer', files: '1', bytes: '0', extension: '' }),
      ],
      15,
    );

    expect(figures.invalidRows).toEqual({ newer: 1, older: 0 });
  });
});
