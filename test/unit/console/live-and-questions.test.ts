import { eventsFromWorkspace, liveEvent } from '../../../functions/console/live';
import { answerQuestion, recordsQuestionDesk } from '../../../functions/console/questions';
import { runDetail } from '../../../functions/console/runs';
import type { QuestionRecords, QuestionSummary } from '../../../functions/engine/run-records';
import { PlatformError } from '../../../functions/runtime/errors';
import type { Workspace } from '../../../functions/runtime/workspace';

const SLACK_TOKEN = `xoxb-${'1'.repeat(12)}-${'2'.repeat(12)}-${'a'.repeat(24)}`;

/** A workspace holding `files` (path → JSON value), listed with `lastModified` in the order given. */
function workspaceOf(files: Record<string, unknown>): Workspace {
  const entries = Object.entries(files);
  return {
    uri: 's3://bucket/runs/acme/aws_pulse/run-1/',
    async list() {
      return entries.map(([path], index) => ({
        path,
        bytes: 1,
        lastModified: `2026-11-01T00:00:0${index}.000Z`,
      }));
    },
    async read(path: string) {
      const value = files[path];
      if (value === undefined) throw new PlatformError('not_found', `${path} not found`);
      const content = JSON.stringify(value);
      return { path, content, offset: 0, bytes: content.length, totalBytes: content.length };
    },
  } as unknown as Workspace;
}

describe('a run page', () => {
  it('is not_found for a run that wrote nothing (no such run), and lists the files of one that did', async () => {
    // Act
    const missing = runDetail(() => workspaceOf({}), 'acme', 'aws_pulse', 'nosuch-run');
    const found = await runDetail(
      () => workspaceOf({ 'levels/collect/results.json': [] }),
      'acme',
      'aws_pulse',
      'run-1',
    );

    // Assess
    await expect(missing).rejects.toMatchObject({
      code: 'not_found',
      message: 'Tenant acme has no aws_pulse run nosuch-run with workspace files',
    });
    expect(found.files.map((file) => file.path)).toEqual(['levels/collect/results.json']);
  });
});

describe('live events', () => {
  it('redacts every event, whatever field carries the credential', () => {
    // Act
    const call = liveEvent({
      type: 'call',
      level: 'report',
      callId: 'report/0',
      tool: 'slack_post_message',
      ok: false,
      code: 'auth_failed',
      summary: `auth_failed: token ${SLACK_TOKEN} revoked`,
      durationMs: 3,
    });
    const turn = liveEvent({
      type: 'turn',
      level: 'analyse',
      turn: 1,
      text: `Using ${SLACK_TOKEN}`,
      toolUses: [{ name: 'write_file', input: { path: 'notes.md', content: SLACK_TOKEN, api_key: 'k' } }],
    });

    // Assess
    expect(JSON.stringify([call, turn])).not.toContain(SLACK_TOKEN);
    expect(turn).toMatchObject({ toolUses: [{ input: { path: 'notes.md', api_key: '<redacted>' } }] });
  });

  it("reads a run's events from its workspace in the order they were written, ending with the summary", async () => {
    // Prepare
    const workspace = workspaceOf({
      'levels/collect/0-aws_ec2_inventory.json': {
        ok: true,
        callId: 'collect/0',
        summary: '3 instances',
        durationMs: 40,
      },
      'levels/collect/1-aws_iam_audit.json': {
        ok: false,
        callId: 'collect/1',
        summary: 'access_denied: no',
        durationMs: 5,
        error: { code: 'access_denied' },
      },
      'conversations/analyse/turn-1.json': {
        system: 's',
        messages: [
          { role: 'user', content: [{ text: 'go' }] },
          {
            role: 'assistant',
            content: [{ text: 'Done.' }, { toolUse: { toolUseId: 't', name: 'finish', input: {} } }],
          },
        ],
      },
      'levels/analyse/finish.json': { summary: 'Report' },
      'notes/anything.md': 'not an event',
      'summary.json': { outcome: 'succeeded', levels: [], cost: { totalUsd: 0.5, parts: [], notes: [] } },
    });

    // Act
    const events = await eventsFromWorkspace(workspace);

    // Assess
    expect(events.map((event) => event.type)).toEqual(['call', 'call', 'turn', 'level_ended', 'summary']);
    expect(events[1]).toMatchObject({ tool: 'aws_iam_audit', ok: false, code: 'access_denied' });
    expect(events[2]).toEqual({
      type: 'turn',
      level: 'analyse',
      turn: 1,
      text: 'Done.',
      toolUses: [{ name: 'finish', input: {} }],
    });
  });

  it('leaves out a summary file that is not a run summary', async () => {
    // Act
    const events = await eventsFromWorkspace(workspaceOf({ 'summary.json': { outcome: 'maybe' } }));

    // Assess
    expect(events).toEqual([]);
  });
});

describe('answering questions of deployed runs', () => {
  const question: QuestionSummary = {
    tenant: 'globex',
    runId: 'run-1',
    scenario: 'incident_response',
    level: 'triage',
    turn: 1,
    question: 'Which region?',
    status: 'open',
    askedAt: '2026-11-01T00:00:00.000Z',
    expiresAt: '2026-11-01T01:00:00.000Z',
    posted: false,
  };

  function records(): QuestionRecords & { settled: string[] } {
    const settled: string[] = [];
    return {
      settled,
      openQuestions: async (tenant) => (tenant === undefined || tenant === question.tenant ? [question] : []),
      claimQuestion: async () => ({ ...question, taskToken: 'TOKEN-abc' }),
      settleQuestion: async (_q, status) => {
        settled.push(status);
      },
    };
  }

  it("answers a tenant's question with its token, and lists it without the token", async () => {
    // Prepare
    const store = records();
    const sent: unknown[] = [];
    const desk = recordsQuestionDesk(store, async (input) => sent.push(input));

    // Act
    const listed = await desk.open('globex');
    await desk.answer('globex', 'run-1', 'eu-west-1', 'console:alice');

    // Assess
    expect(JSON.stringify(listed)).not.toContain('TOKEN');
    expect(sent).toEqual([{ taskToken: 'TOKEN-abc', output: expect.stringContaining('"text":"eu-west-1"') }]);
    expect(store.settled).toEqual(['answered']);
  });

  it("refuses another tenant's question before claiming it", async () => {
    // Prepare
    const store = records();
    const send = jest.fn();

    // Act
    const answer = recordsQuestionDesk(store, send).answer('acme', 'run-1', 'x', 'console:mallory');

    // Assess
    await expect(answer).rejects.toMatchObject({
      code: 'not_found',
      message: 'Run run-1 has no open question',
    });
    expect(send).not.toHaveBeenCalled();
    expect(store.settled).toEqual([]);
  });

  it('settles a question whose wait is over as timed out, and never echoes what Step Functions said', async () => {
    // Prepare
    const store = records();
    const send = async () => {
      throw Object.assign(new Error('token TOKEN-abc is gone'), { name: 'TaskTimedOut' });
    };

    // Act
    const answer = answerQuestion(store, send, 'run-1', 'x', 'etp-cli:bob');

    // Assess
    await expect(answer).rejects.toThrow(/no longer waiting \(TaskTimedOut\)/);
    await expect(answerQuestion(records(), send, 'run-1', 'x', 'b')).rejects.not.toThrow(/TOKEN/);
    expect(store.settled).toEqual(['timed_out']);
  });
});
