import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbRunRecords } from '../../../functions/engine/dynamodb-run-records';
import { createRunRecordsTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';

let dynamo: LocalDynamoDb;
let records: DynamoDbRunRecords;
let table: string;
let tables = 0;

const question = (runId: string, tenant = 'acme') => ({
  tenant,
  runId,
  scenario: 'incident_response',
  level: 'triage',
  turn: 2,
  question: 'Is us-west-2 in use?',
  askedAt: '2026-01-01T10:00:00.000Z',
  expiresAt: '2026-01-02T10:00:00.000Z',
  posted: true,
  taskToken: `token-of-${runId}`,
});

beforeAll(async () => {
  dynamo = await startDynalite();
});

afterAll(async () => {
  await dynamo.stop();
});

beforeEach(async () => {
  table = await createRunRecordsTable(dynamo.client, `etp-run-records-${++tables}`);
  records = new DynamoDbRunRecords(table, dynamo.client);
});

describe('DynamoDbRunRecords: findings pointers', () => {
  it('swaps the latest findings per tenant, scenario and level, idempotently per run', async () => {
    // Act
    const first = await records.swapLatestFindings('acme', 'aws_pulse', 'collect', {
      runId: 'r1',
      path: 'p1',
    });
    const retried = await records.swapLatestFindings('acme', 'aws_pulse', 'collect', {
      runId: 'r1',
      path: 'p1',
    });
    const second = await records.swapLatestFindings('acme', 'aws_pulse', 'collect', {
      runId: 'r2',
      path: 'p2',
    });
    const secondRetried = await records.swapLatestFindings('acme', 'aws_pulse', 'collect', {
      runId: 'r2',
      path: 'p2',
    });
    const otherTenant = await records.swapLatestFindings('other', 'aws_pulse', 'collect', {
      runId: 'r3',
      path: 'p3',
    });
    const peek = await records.swapLatestFindings(
      'acme',
      'aws_pulse',
      'collect',
      { runId: 'r4', path: 'p4' },
      { readOnly: true },
    );

    // Assess
    expect([first, retried]).toEqual([undefined, undefined]);
    expect([second, secondRetried]).toEqual([
      { runId: 'r1', path: 'p1' },
      { runId: 'r1', path: 'p1' },
    ]);
    expect(otherTenant).toBeUndefined();
    expect(peek).toEqual({ runId: 'r2', path: 'p2' });
    // The read-only look did not move the pointer.
    expect(
      await records.swapLatestFindings('acme', 'aws_pulse', 'collect', { runId: 'r5', path: 'p5' }),
    ).toEqual({
      runId: 'r2',
      path: 'p2',
    });
  });
});

describe('DynamoDbRunRecords: questions', () => {
  it('lists open questions without their task token, by tenant or all, oldest first', async () => {
    // Prepare
    await records.putQuestion(question('run-b'));
    await records.putQuestion({ ...question('run-a', 'beta'), askedAt: '2026-01-01T09:00:00.000Z' });
    await records.putQuestion(question('run-c'));
    await records.closeQuestion('acme', 'run-c', 'triage', 2, 'timed_out');

    // Act
    const all = await records.openQuestions();
    const acme = await records.openQuestions('acme');

    // Assess
    expect(all.map((q) => q.runId)).toEqual(['run-a', 'run-b']);
    expect(acme).toEqual([
      {
        tenant: 'acme',
        runId: 'run-b',
        scenario: 'incident_response',
        level: 'triage',
        turn: 2,
        question: 'Is us-west-2 in use?',
        status: 'open',
        askedAt: '2026-01-01T10:00:00.000Z',
        expiresAt: '2026-01-02T10:00:00.000Z',
        posted: true,
      },
    ]);
    expect(JSON.stringify(all)).not.toContain('token-of');
  });

  it('lets only one answerer claim a question, and drops the token once it is settled', async () => {
    // Prepare
    await records.putQuestion(question('run-1'));

    // Act
    const [one, two] = await Promise.all([records.claimQuestion('run-1'), records.claimQuestion('run-1')]);
    const claimed = one ?? two;
    if (claimed) await records.settleQuestion(claimed, 'answered');

    // Assess
    expect([one, two].filter(Boolean)).toHaveLength(1);
    expect(claimed).toMatchObject({ runId: 'run-1', status: 'answering', taskToken: 'token-of-run-1' });
    const item = await dynamo.client.send(
      new GetItemCommand({
        TableName: table,
        Key: { tenant_id: { S: 'acme' }, record_id: { S: 'question#run-1#triage#2' } },
      }),
    );
    expect(item.Item?.status?.S).toBe('answered');
    expect(item.Item?.task_token).toBeUndefined();
    expect(Number(item.Item?.expires_ttl?.N)).toBe(
      Date.parse('2026-01-02T10:00:00.000Z') / 1000 + 30 * 86_400,
    );
    // An answered question is not closed again by the engine (a retried turn).
    await records.closeQuestion('acme', 'run-1', 'triage', 2, 'timed_out');
    expect(await records.claimQuestion('run-1')).toBeUndefined();
  });
});
