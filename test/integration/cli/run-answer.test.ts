import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDbRunRecords } from '../../../functions/engine/dynamodb-run-records';
import { createRunRecordsTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';
import { etp } from '../../unit/cli/run-etp';

const sfn = mockClient(SFNClient);
const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAbOdQtBoken-secret-task-token';

let dynamo: LocalDynamoDb;
let records: DynamoDbRunRecords;
let table: string;
let tables = 0;

beforeAll(async () => {
  dynamo = await startDynalite();
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
});

afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
  await dynamo.stop();
});

beforeEach(async () => {
  sfn.reset();
  table = await createRunRecordsTable(dynamo.client, `etp-run-answer-${++tables}`);
  records = new DynamoDbRunRecords(table, dynamo.client);
  await records.putQuestion({
    tenant: 'acme',
    runId: 'run-1',
    scenario: 'incident_response',
    level: 'triage',
    turn: 1,
    question: 'Is us-west-2 in use?',
    askedAt: '2026-01-01T10:00:00.000Z',
    expiresAt: '2026-01-01T11:00:00.000Z',
    posted: false,
    taskToken: TOKEN,
  });
});

describe('etp run answer', () => {
  it('sends the answer with the question’s task token and settles the question', async () => {
    // Prepare
    sfn.on(SendTaskSuccessCommand).resolves({});

    // Act
    const outcome = await etp(['run', 'answer', 'run-1', '--text', 'No, unused.', '--table', table]);

    // Assess
    expect(outcome).toEqual({
      code: 0,
      out: 'Answered the question of run run-1 (incident_response, level triage): the run resumes.\n',
      err: '',
    });
    const [sent] = sfn.commandCalls(SendTaskSuccessCommand);
    expect(sent?.args[0].input.taskToken).toBe(TOKEN);
    expect(JSON.parse(String(sent?.args[0].input.output))).toMatchObject({
      answered: true,
      text: 'No, unused.',
    });
    expect(await records.openQuestions()).toEqual([]);
  });

  it('says the run went on without an answer when the wait is over, never printing the token', async () => {
    // Prepare
    sfn
      .on(SendTaskSuccessCommand)
      .rejects(Object.assign(new Error(`Task Timed Out: '${TOKEN}'`), { name: 'TaskTimedOut' }));

    // Act
    const outcome = await etp(['run', 'answer', 'run-1', '--text', 'Late.', '--table', table]);

    // Assess
    expect(outcome).toEqual({
      code: 1,
      out: '',
      err: 'error: The question of run run-1 is no longer waiting (TaskTimedOut): the run went on without an answer\n',
    });
    expect(await records.openQuestions()).toEqual([]);
  });

  it('puts the question back when Step Functions fails, naming only the error', async () => {
    // Prepare
    sfn
      .on(SendTaskSuccessCommand)
      .rejects(Object.assign(new Error(`boom ${TOKEN}`), { name: 'ServiceUnavailable' }));

    // Act
    const outcome = await etp(['run', 'answer', 'run-1', '--text', 'Yes.', '--table', table]);

    // Assess
    expect(outcome.code).toBe(1);
    expect(outcome.err).toBe('error: Step Functions refused the answer of run run-1 (ServiceUnavailable)\n');
    expect((await records.openQuestions()).map((q) => q.runId)).toEqual(['run-1']);
  });

  it.each([
    [['run-9', '--text', 'Yes.'], 1, 'error: Run run-9 has no open question (see: etp run questions)\n'],
    [
      ['run-1', '--text', ' '],
      2,
      'error: --text is empty; give <text> (the answer, at most 4000 characters)\n',
    ],
    [
      ['run 1', '--text', 'Yes.'],
      2,
      'error: runId "run 1" is not a run id: 1-80 letters, digits, - or _ (a Step Functions execution name, e.g. run-2025-01-02)\n',
    ],
  ])('refuses %j', async (args, code, message) => {
    // Act
    const outcome = await etp(['run', 'answer', ...args, '--table', table]);

    // Assess
    expect(outcome).toEqual({ code, out: '', err: message });
    expect(sfn.calls()).toHaveLength(0);
  });
});

describe('etp run questions', () => {
  it('lists the open questions, or says there are none', async () => {
    // Act
    const listed = await etp(['run', 'questions', '--tenant', 'acme', '--table', table]);
    const none = await etp(['run', 'questions', '--tenant', 'beta', '--table', table]);

    // Assess
    expect(listed.code).toBe(0);
    expect(listed.out.split('\n')[1]?.split(/ {2,}/)).toEqual([
      'acme',
      'run-1',
      'incident_response',
      'triage',
      '2026-01-01T10:00:00.000Z',
      '2026-01-01T11:00:00.000Z',
      'Is us-west-2 in use?',
    ]);
    expect(listed.out).not.toContain(TOKEN);
    expect(none.out).toBe('No open questions for tenant beta.\n');
  });
});
