import { deadlineIn } from '../../../functions/runtime/deadline';
import { logger } from '../../../functions/runtime/logger';
import type { ToolResult } from '../../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import {
  createLocalDispatcher,
  type LocalCall,
  localRunId,
  runScenarioLocally,
} from '../../../functions/scenarios/local-run';
import { type Scenario, scenarioSchema } from '../../../functions/scenarios/model';

/**
 * Two levels of `finish` calls; the second reads the first's summary, as aws_pulse
 * does. `collectArgs` are the first call's args.
 */
function relayScenario(collectArgs: Record<string, unknown> = { 'summary.$': '$.input.word' }): Scenario {
  return scenarioSchema.parse({
    name: 'relay',
    description: 'Passes a word from one level to the next.',
    inputs: {
      tenant: { description: 'Tenant.', default: 'default' },
      word: { description: 'The word passed on.', default: 'hello' },
    },
    levels: [
      { name: 'collect', intra_tools: ['finish'], calls: [{ tool: 'finish', args: collectArgs }] },
      {
        name: 'report',
        intra_tools: ['finish'],
        calls: [
          {
            tool: 'finish',
            args: {
              'summary.$': "States.Format('{} from {}', $.results.collect_0.summary, $$.Execution.Name)",
            },
          },
        ],
      },
    ],
  });
}

const relay = relayScenario();

function dispatcherFor(scenario: Scenario, requireLevel = true) {
  return createLocalDispatcher({
    references: new InMemorySecretReferenceStore(),
    scenarios: [scenario],
    requireLevel,
  });
}

beforeAll(() => {
  logger.setLogLevel('SILENT');
});

describe('localRunId', () => {
  it('is local-<UTC timestamp>-<6 hex chars>, a valid execution name', () => {
    // Act
    const first = localRunId(new Date('2025-01-02T03:04:05.678Z'));
    const second = localRunId(new Date('2025-01-02T03:04:05.678Z'));

    // Assess
    expect(first).toMatch(/^local-20250102T030405Z-[0-9a-f]{6}$/);
    expect(second).not.toBe(first);
  });
});

describe('runScenarioLocally', () => {
  it("runs the scenario's state machine, each Task answered by the dispatcher, reporting each call as it goes", async () => {
    // Prepare
    const events: string[] = [];

    // Act
    const output = await runScenarioLocally(relay, {
      input: { word: 'bonjour' },
      runId: 'run-7',
      dispatch: dispatcherFor(relay),
      onCallStart: (call: LocalCall) => events.push(`start ${call.level} ${call.tool} ${call.callId}`),
      onCallEnd: (call: LocalCall, result: ToolResult) => events.push(`end ${call.callId} ${result.summary}`),
    });

    // Assess
    expect(events).toEqual([
      'start collect finish collect/0',
      'end collect/0 bonjour',
      'start report finish report/0',
      'end report/0 bonjour from run-7',
    ]);
    expect(output.scenario).toBe('relay');
    expect(output.input).toEqual({ tenant: 'default', word: 'bonjour' });
    expect(output.results.report_0).toMatchObject({
      ok: true,
      tool: 'finish',
      callId: 'report/0',
      value: { finished: true, summary: 'bonjour from run-7' },
    });
  });

  it('goes on after a failed call: the failure is the call’s result', async () => {
    // Prepare: a finish call without its required summary fails with invalid_args.
    const strict = relayScenario({});

    // Act
    const output = await runScenarioLocally(strict, {
      input: {},
      runId: 'run-8',
      dispatch: dispatcherFor(strict),
    });

    // Assess
    expect(output.results.collect_0).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(output.results.report_0).toMatchObject({ ok: true });
  });

  it('rejects when the execution itself fails', async () => {
    // Prepare
    const broken = relayScenario({ 'summary.$': '$.input.missing' });

    // Act
    const run = runScenarioLocally(broken, { input: {}, runId: 'run-9', dispatch: dispatcherFor(broken) });

    // Assess
    await expect(run).rejects.toThrow("Path expression '$.input.missing' does not point to a value");
  });
});

describe('createLocalDispatcher', () => {
  const envelope = {
    tenant: 'default',
    tool: 'finish',
    args: { summary: 'done' },
    runId: 'r-1',
    callId: 'cli/0',
  };

  it('requires the scenario level when told to, as the deployed dispatcher does', async () => {
    // Act
    const result = await dispatcherFor(relay, true)(envelope, deadlineIn(5_000));

    // Assess
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', message: expect.stringContaining('scenario and level are required') },
    });
  });

  it('runs a call without a level when allowed (etp tools invoke)', async () => {
    // Act
    const result = await dispatcherFor(relay, false)(envelope, deadlineIn(5_000));

    // Assess
    expect(result).toMatchObject({ ok: true, tool: 'finish', callId: 'cli/0', value: { summary: 'done' } });
  });
});
