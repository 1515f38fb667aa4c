import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import { runAthenaQuery } from '../../../../functions/tools/snapshots/athena/athena-runner';
import { type FigureRow, foldFigureRows } from '../../../../functions/tools/snapshots/athena/inventory-sql';

const athena = mockClient(AthenaClient);
const client = new AthenaClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'example' },
});
const SETTINGS = {
  workGroup: 'etp-snapshots',
  database: 'etp_inventory',
  outputLocation: 's3://etp-workspace-123456789012/runs/acme/s3_review/r1/athena/',
};
const COLUMNS = ['side', 'delete_marker', 'change', 'extension', 'files', 'bytes', 'bytes_before'];
const row = (values: string[]) => ({ Data: values.map((VarCharValue) => ({ VarCharValue })) });

beforeEach(() => athena.reset());

describe('runAthenaQuery', () => {
  it('starts in the workgroup with results in the workspace, polls until SUCCEEDED, and reads every page after the header', async () => {
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
      ResultConfiguration: { OutputLocation: SETTINGS.outputLocation },
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

  it.each([
    [{ outputLocation: 's3://etp-workspace/inventory-dest/out/' }, /the run's workspace only/],
    [{ outputLocation: "s3://etp-workspace/runs/a'b/" }, /output prefix/],
    [{ workGroup: 'primary; x' }, /workgroup/],
    [{ database: 'Inventory' }, /database/],
  ])('refuses %j before any call', async (override, message) => {
    await expect(
      runAthenaQuery(client, 'SELECT 1', { ...SETTINGS, ...override }, deadlineIn(30_000)),
    ).rejects.toMatchObject({ code: 'invalid_args', message: expect.stringMatching(message) });
    expect(athena.calls()).toHaveLength(0);
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
