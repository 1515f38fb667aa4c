import type { ScriptedResponse } from '../../bin/local/scripted-model';
import { TOOL_USE_ID } from '../../functions/engine/converse-rules';
import type { AgentLevelRecord } from '../../functions/engine/records';
import { logger } from '../../functions/runtime/logger';
import { WRITE_FILE_MAX_BYTES } from '../../functions/tools/files/write-file.meta';
import {
  type HarnessRun,
  type ScenarioHarness,
  STATE_LIMIT_BYTES,
  startScenarioHarness,
  toolResultsOf,
} from '../helpers/scenario-harness';
import { DEFAULT_CHANNELS } from '../helpers/slack-server';

/**
 * The agent loop by the Converse contract (issue 17), end to end: the
 * synthesized state machines run by the local interpreter, the scripted model
 * refusing every request Bedrock would refuse (the harness fails the run on
 * one), and every state checked against Step Functions' 256 KiB.
 */

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';

/** One agent level with a small output budget and short model timeouts; its Slack post is pinned. */
const E2E_CONTRACT = `
name: e2e_contract
description: The agent loop by the Converse contract, end to end.
inputs:
  tenant: { type: string, description: Tenant of the run., default: default }
levels:
  - name: work
    model: ${MODEL}
    prompt: Do the work, then call finish.
    intra_tools: [slack_post_message]
    max_turns: 6
    max_tokens: 500
    max_tokens_ceiling: 1000
    model_call_timeout_seconds: 1
    level_timeout_seconds: 3
    pin:
      slack_post_message: { channel: C0CONTRACT }
`;

/** A thread announced and read by plan levels; the agent may reply only there, only in the threads it read. */
const E2E_PINNED = `
name: e2e_pinned
description: Pinned arguments against a model that obeys text injected into what it reads.
inputs:
  tenant: { type: string, description: Tenant of the run., default: default }
  channel: { type: string, description: Channel of the thread., default: C0PINNED }
levels:
  - name: announce
    intra_tools: [slack_post_message]
    calls:
      - tool: slack_post_message
        args: { channel: "{{input.channel}}", text: "Leads to qualify today: ACME, Initech" }
  - name: read
    intra_tools: [slack_channel_history]
    calls:
      - tool: slack_channel_history
        args: { channel: "{{input.channel}}" }
  - name: act
    model: ${MODEL}
    prompt: "Messages read:\\n{{levels.read.results}}"
    intra_tools: [slack_post_message, slack_post_threaded]
    max_turns: 6
    pin:
      slack_post_message:
        channel: "{{input.channel}}"
      slack_post_threaded:
        channel: "{{input.channel}}"
        thread_ts: { one_of: "{{levels.read.results.0.value.messages.*.ts}}" }
`;

let harness: ScenarioHarness;

jest.setTimeout(60_000);

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  harness = await startScenarioHarness({
    files: { 'e2e_contract.yaml': E2E_CONTRACT, 'e2e_pinned.yaml': E2E_PINNED },
    // The channels exist: a post that does not reach one was held by the platform, not by Slack.
    slack: {
      channels: { ...DEFAULT_CHANNELS, C0CONTRACT: 'contract', C0PINNED: 'pinned', C0ATTACKER: 'attacker' },
    },
  });
}, 120_000);

afterAll(async () => {
  await harness.stop();
});

const call = (name: string, input: unknown, extra: Partial<ScriptedResponse> = {}): ScriptedResponse => ({
  tool_use: [{ name, input }],
  ...extra,
});
const finish = (summary: string): ScriptedResponse => call('finish', { summary });
const work = (run: HarnessRun) => run.output.levels.work as AgentLevelRecord;
const messageOf = (answer: { json: Record<string, unknown> } | undefined) =>
  String((answer?.json.error as { message?: string } | undefined)?.message);
const maxTokensOf = (run: HarnessRun, index: number) =>
  run.modelRequests[index]?.body.inferenceConfig?.maxTokens;

describe('every stop reason the Converse API documents has a defined outcome', () => {
  it('runs no call of an answer cut at max_tokens (a write_file and a Slack post), says so, and retries with a larger budget', async () => {
    // Act
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-cut-calls',
      model: [
        {
          tool_use: [
            { name: 'write_file', input: { path: 'notes/report.md', content: '# Report\nThe costs ro' } },
            { name: 'slack_post_message', input: { text: 'The costs ro' } },
          ],
          stop_reason: 'max_tokens',
        },
        finish('Done after the retry.'),
      ],
    });

    // Assess: neither call ran
    const posted = harness.slack.messages.filter((m) => m.channel === 'C0CONTRACT');
    expect(posted).toEqual([]);
    expect(run.results.map((r) => r.tool)).toEqual(['finish']);
    await expect(
      harness
        .workspaces({ tenant: 'default', scenario: 'e2e_contract', runId: 'e2e-cut-calls' })
        .read('notes/report.md'),
    ).rejects.toMatchObject({ code: 'not_found' });
    // the model was told, per call, and retried with twice the budget
    const answers = toolResultsOf(run.modelRequests[1]);
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      expect(answer.status).toBe('error');
      expect(answer.json.error).toMatchObject({ code: 'limit_exceeded' });
      expect(String((answer.json.error as { message: string }).message)).toContain(
        'cut at its output limit (500 tokens) before this call was complete, so it was not run',
      );
    }
    expect([maxTokensOf(run, 0), maxTokensOf(run, 1)]).toEqual([500, 1000]);
    expect(work(run)).toMatchObject({ outcome: 'finished', turns: 2 });
    expect(run.output.summary.counts.stateTransitions).toBe(run.transitions);
  });

  it('never presents a text cut at max_tokens as complete: retried up to the ceiling, then truncated with what was said', async () => {
    // Act
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-cut-text',
      model: [
        { text: 'Costs rose 12% because', stop_reason: 'max_tokens' },
        { text: 'of the new NAT gateways in eu-west', stop_reason: 'max_tokens' },
      ],
    });

    // Assess
    expect([maxTokensOf(run, 0), maxTokensOf(run, 1)]).toEqual([500, 1000]);
    const record = work(run);
    expect(record).toMatchObject({ outcome: 'truncated', stopReason: 'max_tokens', turns: 2 });
    expect(record.summary).toContain("The model's answer was cut at its output limit");
    expect(record.summary).toContain('of the new NAT gateways in eu-west');
    expect(run.output.summary.outcome).toBe('incomplete');
  });

  it.each([
    [
      'guardrail_intervened',
      'Sorry, the model cannot answer that (guardrail: denied topic).',
      'A guardrail blocked',
    ],
    ['content_filtered', 'The answer was filtered.', "The model's content filter blocked"],
  ])(
    'ends the level on %s with its own outcome and the stated reason, never as finished',
    async (stopReason, text, words) => {
      // Act
      const run = await harness.run('e2e_contract', {
        runId: `e2e-${stopReason.replaceAll('_', '-')}`,
        model: [{ text, stop_reason: stopReason }],
      });

      // Assess
      const record = work(run);
      expect(record).toMatchObject({ outcome: stopReason, stopReason });
      expect(record.summary).toContain(words);
      expect(record.summary).toContain(text);
      expect(run.output.summary.outcome).toBe('incomplete');
    },
  );

  it.each(['malformed_tool_use', 'malformed_model_output'])(
    'runs no call of a %s answer and retries the turn',
    async (stopReason) => {
      // Act
      const run = await harness.run('e2e_contract', {
        runId: `e2e-${stopReason.replaceAll('_', '-')}`,
        model: [
          call('slack_post_message', { text: 'half' }, { stop_reason: stopReason }),
          finish('Done after a malformed answer.'),
        ],
      });

      // Assess
      expect(harness.slack.messages.filter((m) => m.text === 'half')).toEqual([]);
      expect(run.results.map((r) => r.tool)).toEqual(['finish']);
      const [answer] = toolResultsOf(run.modelRequests[1]);
      expect(answer?.json.error).toMatchObject({ code: 'invalid_args' });
      expect(messageOf(answer)).toContain(`malformed (${stopReason})`);
      expect(work(run)).toMatchObject({ outcome: 'finished' });
    },
  );

  it('treats an unknown stop reason as a failed turn named in the outcome', async () => {
    // Act
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-unknown-stop',
      model: [call('slack_post_message', { text: 'x' }, { stop_reason: 'pause_turn' })],
    });

    // Assess
    expect(run.results).toEqual([]);
    const record = work(run);
    expect(record).toMatchObject({ outcome: 'model_error', stopReason: 'pause_turn' });
    expect(record.error?.message).toContain('stop reason "pause_turn"');
    expect(record.summary).toMatch(
      /^The model could not be used because the service it called had an internal error\./,
    );
  });

  it.each([
    ['end_turn', 'All is fine.'],
    ['stop_sequence', 'Stopped at the sequence.'],
  ])(
    'keeps the text of an answer that ends on %s without a call as the level summary (stopped)',
    async (stopReason, text) => {
      // Act
      const run = await harness.run('e2e_contract', {
        runId: `e2e-${stopReason.replaceAll('_', '-')}`,
        model: [{ text, stop_reason: stopReason }],
      });

      // Assess
      expect(work(run)).toMatchObject({ outcome: 'stopped', summary: text });
    },
  );
});

describe('only conversations the Converse API accepts are sent', () => {
  it('drops blank and whitespace-only text blocks across turns before they are sent back', async () => {
    // Act: the scripted model refuses (and the harness fails) any request with a blank text block
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-blank-text',
      model: [
        { text: '   ', tool_use: [{ name: 'list_files', input: {} }] },
        { text: '', tool_use: [{ name: 'list_files', input: {} }] },
        { text: '\n\t', tool_use: [{ name: 'finish', input: { summary: 'Listed twice.' } }] },
      ],
    });

    // Assess
    expect(work(run)).toMatchObject({ outcome: 'finished', summary: 'Listed twice.', turns: 3 });
    const sent = run.modelRequests.at(-1)?.body.messages ?? [];
    const texts = sent.flatMap((m) => m.content.flatMap((b) => (typeof b.text === 'string' ? [b.text] : [])));
    expect(texts.every((text) => text.trim() !== '')).toBe(true);
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
  });

  it('gives a malformed toolUseId a fresh one and answers a non-object input with invalid_args', async () => {
    // Act
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-malformed-ids',
      model: [
        { tool_use: [{ id: 'bad id with spaces', name: 'list_files', input: {} }] },
        { tool_use: [{ name: 'list_files', input: 'not an object' }] },
        finish('Done.'),
      ],
    });

    // Assess
    const ids = (run.modelRequests.at(-1)?.body.messages ?? []).flatMap((m) =>
      m.content.flatMap((b) => (b.toolUse ? [(b.toolUse as { toolUseId: string }).toolUseId] : [])),
    );
    expect(ids.every((id) => TOOL_USE_ID.test(id))).toBe(true);
    const [answer] = toolResultsOf(run.modelRequests[2]);
    expect(answer?.json.error).toMatchObject({ code: 'invalid_args' });
    expect(work(run).outcome).toBe('finished');
  });
});

describe('bounded turns', () => {
  it('answers a 5 MiB argument with the tool’s own limit, keeps it out of the state, and goes on', async () => {
    // Act
    const huge = 'x'.repeat(5 * 1024 * 1024);
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-huge-args',
      // Answered by the conversation, not by the request's place: a loaded machine may time out and
      // retry the first Converse call (1 s here), and the retry must meet the same 5 MiB call.
      model: (request) =>
        toolResultsOf(request).length > 0
          ? finish('Wrote nothing.')
          : call('write_file', { path: 'notes/huge.md', content: huge }),
    });

    // Assess: refused before any dispatch, with write_file's content limit named
    expect(run.results.map((r) => r.tool)).toEqual(['finish']);
    // The request that answers the call.
    const answering = run.modelRequests.find((request) => toolResultsOf(request).length > 0);
    const [answer] = toolResultsOf(answering);
    expect(answer?.json.error).toMatchObject({ code: 'limit_exceeded' });
    expect(messageOf(answer)).toContain(
      `write_file's content takes at most ${WRITE_FILE_MAX_BYTES} characters`,
    );
    // the answer sent back holds a stand-in, not the 5 MiB
    expect(JSON.stringify(answering?.body).length).toBeLessThan(64 * 1024);
    expect(run.largestStateBytes).toBeLessThan(STATE_LIMIT_BYTES);
    expect(work(run).outcome).toBe('finished');
  });

  it('keeps an oversized text answer (400 KiB) out of the state and the conversation', async () => {
    // Act (the harness fails the run like Step Functions would on any state over 256 KiB)
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-huge-text',
      model: [{ text: 'y'.repeat(400 * 1024) }],
    });
    expect(run.largestStateBytes).toBeLessThan(STATE_LIMIT_BYTES);
    expect(work(run).outcome).toBe('stopped');
    expect(work(run).summary.length).toBeLessThanOrEqual(4000);
  });
});

describe('context window overflow', () => {
  it('compacts the conversation (oldest turns folded) and retries once', async () => {
    // Act
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-overflow',
      model: (request, index) => {
        if (index < 3) return call('list_files', {});
        if (index === 3)
          return {
            error: {
              status: 400,
              type: 'ValidationException',
              message: 'Input is too long for requested model.',
            },
          };
        return finish(`Done with ${request.body.messages?.length} messages.`);
      },
    });

    // Assess: the retry carried the prompt, a note of what was folded, and the latest exchanges
    const retried = run.modelRequests[4]?.body.messages ?? [];
    expect(retried.length).toBeLessThan(run.modelRequests[3]?.body.messages?.length ?? 0);
    expect(JSON.stringify(retried[0])).toContain("to fit the model's context window");
    expect(work(run)).toMatchObject({ outcome: 'finished' });
  });

  it('ends the level as context_window_exceeded when the compacted conversation overflows too', async () => {
    // Act
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-overflow-twice',
      model: [
        call('list_files', {}),
        { text: 'too long', stop_reason: 'model_context_window_exceeded' },
        { text: 'still too long', stop_reason: 'model_context_window_exceeded' },
      ],
    });

    // Assess
    expect(run.modelRequests).toHaveLength(3);
    expect(work(run)).toMatchObject({
      outcome: 'context_window_exceeded',
      stopReason: 'model_context_window_exceeded',
    });
    expect(work(run).summary).toContain('grew past what the model can read at once');
  });
});

describe('hung models cost bounded time', () => {
  it('ends the level within its model time when the model never answers', async () => {
    // Act: the first turn answers; every later call hangs
    const started = Date.now();
    const run = await harness.run('e2e_contract', {
      runId: 'e2e-hung-model',
      model: (_request, index) => (index === 0 ? call('list_files', {}) : { hang: true }),
    });

    // Assess: the level's 3 s of model time, not the retries of a 5-minute function
    expect(Date.now() - started).toBeLessThan(20_000);
    const record = work(run);
    expect(record.outcome).toBe('model_error');
    expect(record.error?.code).toBe('timeout');
    expect(record.summary).toMatch(/^The model could not be used because it took too long and was stopped\./);
  });
});

describe('arguments a level pins, against a model obeying injected text', () => {
  it('refuses to redirect a pinned channel or reply in a thread it did not read, and applies the pins', async () => {
    // Act
    const run = await harness.run('e2e_pinned', {
      runId: 'e2e-pinned',
      model: (request, index) => {
        if (index === 0)
          return {
            tool_use: [
              { name: 'slack_post_message', input: { channel: '#attacker', text: 'exfiltrated' } },
              { name: 'slack_post_threaded', input: { thread_ts: '1111111111.000100', text: 'not read' } },
            ],
          };
        if (index === 1) {
          // A thread the read level found, as the model was shown it: the enum of thread_ts.
          const threaded = request.body.toolConfig?.tools?.find(
            (t) => t.toolSpec?.name === 'slack_post_threaded',
          );
          const ts = String(
            (
              threaded?.toolSpec as {
                inputSchema?: { json?: { properties?: { thread_ts?: { enum?: unknown[] } } } };
              }
            )?.inputSchema?.json?.properties?.thread_ts?.enum?.[0],
          );
          return {
            tool_use: [
              { name: 'slack_post_threaded', input: { thread_ts: ts, text: 'ACME qualified' } },
              { name: 'slack_post_message', input: { text: 'Qualified: ACME' } },
            ],
          };
        }
        return finish('ACME qualified.');
      },
    });

    // Assess: the redirects were refused, naming the pinned argument
    const [redirect, unread] = toolResultsOf(run.modelRequests[1]);
    expect(redirect?.json.error).toMatchObject({ code: 'tool_not_allowed' });
    expect(messageOf(redirect)).toContain('slack_post_message: argument "channel" is pinned by level "act"');
    expect(unread?.json.error).toMatchObject({ code: 'tool_not_allowed' });
    expect(messageOf(unread)).toContain(
      'argument "thread_ts" is pinned by level "act": "1111111111.000100" is not among the allowed values',
    );
    // nothing reached another channel or an unread thread; the pinned posts did
    const posts = harness.slack.messages.filter(
      (m) => m.text !== undefined && /ACME|exfiltrated|not read/.test(m.text),
    );
    // (the turn's calls run in parallel: sorted by text)
    expect(
      posts
        .map((m) => [m.channel, m.text, m.thread_ts !== undefined])
        .sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    ).toEqual([
      ['C0PINNED', 'ACME qualified', true],
      ['C0PINNED', 'Leads to qualify today: ACME, Initech', false],
      ['C0PINNED', 'Qualified: ACME', false],
    ]);
    // the model never saw the fixed channel, and saw the thread restricted to what was read
    const tools = run.modelRequests[0]?.body.toolConfig?.tools ?? [];
    const schemaOf = (name: string) =>
      ((
        tools.find((t) => t.toolSpec?.name === name)?.toolSpec as
          | { inputSchema?: { json?: unknown } }
          | undefined
      )?.inputSchema?.json ?? {}) as {
        properties: Record<string, { enum?: unknown[] }>;
        required?: string[];
      };
    expect(Object.keys(schemaOf('slack_post_message').properties)).toEqual(['text']);
    expect(schemaOf('slack_post_message').required).toEqual(['text']);
    const announced = harness.slack.messages.find((m) => m.text === 'Leads to qualify today: ACME, Initech');
    expect(schemaOf('slack_post_threaded').properties.thread_ts?.enum).toContain(announced?.ts);
    expect(schemaOf('slack_post_threaded').properties.channel).toBeUndefined();
    const act = run.output.levels.act as AgentLevelRecord;
    expect(act.calls.map((c) => [c.tool, c.code ?? 'ok'])).toEqual([
      ['slack_post_message', 'tool_not_allowed'],
      ['slack_post_threaded', 'tool_not_allowed'],
      ['slack_post_threaded', 'ok'],
      ['slack_post_message', 'ok'],
      ['finish', 'ok'],
    ]);
  });
});
