import {
  createLocalDispatcher,
  type LocalCall,
  localRunId,
  runScenarioLocally,
} from '../../../bin/local/local-run';
import type { Dispatch } from '../../../functions/dispatcher/dispatch';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { logger } from '../../../functions/runtime/logger';
import type { ToolResult } from '../../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { type Scenario, scenarioSchema } from '../../../lib/scenarios/model';

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

describe('runScenarioLocally with slow or failing calls', () => {
  /** A dispatcher answering `finish` calls after `delayMs`, or never when `delayMs` is undefined. */
  function slowDispatch(delayMs: number | undefined): Dispatch {
    return (envelope) =>
      new Promise((resolve) => {
        const { callId } = envelope as { callId: string };
        if (delayMs !== undefined) {
          const late: ToolResult = {
            ok: true,
            tool: 'finish',
            callId,
            value: { finished: true },
            truncated: false,
            resultRef: null,
            durationMs: delayMs,
            summary: 'late',
          };
          setTimeout(() => resolve(late), delayMs);
        }
      });
  }

  /** Runs `relay` with `dispatch` under fake timers, advancing the clock `advanceMs`; every call's start and end. */
  async function runWithClock(dispatch: Dispatch, advanceMs: number) {
    const events: string[] = [];
    const run = runScenarioLocally(relay, {
      input: {},
      runId: 'run-slow',
      dispatch,
      onCallStart: (call) => events.push(`start ${call.callId}`),
      onCallEnd: (call, result) => events.push(`end ${call.callId} ${result.summary}`),
    });
    await jest.advanceTimersByTimeAsync(advanceMs);
    return { output: await run, events };
  }

  beforeEach(() => {
    // Promise jobs stay real: only the interpreter's and the dispatcher's timers are faked.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it("lets a call run past 60 s, up to its tool's timeout plus the dispatcher margin (finish: 60 + 30 s)", async () => {
    // Act: each call takes 85 s; the interpreter's default Task timeout is 60 s.
    const { output, events } = await runWithClock(slowDispatch(85_000), 2 * 85_000);

    // Assess
    expect(output.results.collect_0).toMatchObject({ ok: true, durationMs: 85_000, summary: 'late' });
    expect(output.results.report_0).toMatchObject({ ok: true, summary: 'late' });
    expect(events).toEqual(['start collect/0', 'end collect/0 late', 'start report/0', 'end report/0 late']);
  });

  it("ends a call that outlives its Task's 90 s through the Catch, reporting it, and goes on", async () => {
    // Act: no call ever answers.
    const { output, events } = await runWithClock(slowDispatch(undefined), 2 * 90_000);

    // Assess
    const timedOut = {
      ok: false,
      tool: 'finish',
      callId: 'collect/0',
      durationMs: 0,
      summary: 'timeout: The call did not finish within its Task timeout (90 s)',
      error: {
        code: 'timeout',
        message: 'The call did not finish within its Task timeout (90 s)',
        retryable: true,
      },
    };
    expect(output.results.collect_0).toEqual(timedOut);
    expect(output.results.report_0).toEqual({ ...timedOut, callId: 'report/0' });
    expect(events).toEqual([
      'start collect/0',
      'end collect/0 timeout: The call did not finish within its Task timeout (90 s)',
      'start report/0',
      'end report/0 timeout: The call did not finish within its Task timeout (90 s)',
    ]);
  });

  it('ends a call whose dispatcher throws through the Catch, reporting it', async () => {
    // Prepare
    const crashing: Dispatch = async () => {
      throw new TypeError('boom');
    };

    // Act
    const { output, events } = await runWithClock(crashing, 0);

    // Assess
    expect(output.results.collect_0).toMatchObject({
      ok: false,
      error: { code: 'internal_error', message: 'The dispatcher failed (TypeError)' },
    });
    expect(events).toEqual([
      'start collect/0',
      'end collect/0 internal_error: The dispatcher failed (TypeError)',
      'start report/0',
      'end report/0 internal_error: The dispatcher failed (TypeError)',
    ]);
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
