import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { scriptedAnswers } from '../../../bin/local/local-answers';
import { createLocalDispatcher } from '../../../bin/local/local-dispatcher';
import {
  createLocalEngine,
  localModelClient,
  localRunId,
  type RunEvent,
  runScenarioLocally,
} from '../../../bin/local/local-run';
import { FileRunRecords } from '../../../bin/local/local-run-records';
import { localWorkspaceProvider } from '../../../bin/local/local-workspace';
import type { Dispatch } from '../../../functions/dispatcher/dispatch';
import type { PlanLevelRecord } from '../../../functions/engine/records';
import { callUse, spentUsd, usdOf } from '../../../functions/engine/run-budget';
import { workspacesOf } from '../../../functions/engine/workspaces';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { logger } from '../../../functions/runtime/logger';
import type { ToolResult } from '../../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { toolCatalog } from '../../../functions/tools/catalog';
import { functionMemory } from '../../../lib/scenarios/engine-config';
import type { Scenario } from '../../../lib/scenarios/model';
import { scenarioOf } from '../../helpers/scenarios';

/** Two levels of `finish` calls; the second reads the first's summary. `collectArgs` are the first call's args. */
function relayScenario(collectArgs: Record<string, unknown> = { summary: '{{input.word}}' }): Scenario {
  return scenarioOf({
    name: 'relay',
    description: 'Passes a word from one level to the next.',
    inputs: {
      tenant: { type: 'string', description: 'Tenant.', default: 'default' },
      word: { type: 'string', description: 'The word passed on.', default: 'hello' },
    },
    levels: [
      { name: 'collect', intra_tools: [], calls: [{ tool: 'finish', args: collectArgs }] },
      {
        name: 'report',
        intra_tools: [],
        calls: [
          { tool: 'finish', args: { summary: '{{levels.collect.results.0.summary}} from {{run.id}}' } },
        ],
      },
    ],
  });
}

const relay = relayScenario();
let localDir: string;

function dispatcherFor(scenario: Scenario, requireLevel = true) {
  return createLocalDispatcher({
    references: new InMemorySecretReferenceStore(),
    scenarios: [scenario],
    requireLevel,
    workspaceDir: localDir,
  });
}

/** Runs `scenario` locally with `dispatch`, every event recorded as a line. */
function run(
  scenario: Scenario,
  options: { input?: Record<string, unknown>; runId: string; dispatch?: Dispatch },
) {
  const events: string[] = [];
  const workspaces = workspacesOf(localWorkspaceProvider(localDir));
  const running = runScenarioLocally(scenario, {
    input: options.input ?? {},
    runId: options.runId,
    scenarios: [scenario],
    dispatch: options.dispatch ?? dispatcherFor(scenario),
    engine: createLocalEngine({
      scenarios: [scenario],
      workspaces,
      records: new FileRunRecords(localDir),
      model: localModelClient('http://127.0.0.1:9'),
    }),
    answers: scriptedAnswers([]),
    onEvent: (event: RunEvent) => {
      if (event.type === 'level_started') events.push(`start ${event.level.name}`);
      if (event.type === 'call_ended') events.push(`call ${event.result.callId} ${event.result.summary}`);
      if (event.type === 'level_ended') events.push(`end ${event.level} ${event.record.summary}`);
    },
  });
  return { running, events };
}

beforeAll(() => {
  logger.setLogLevel('SILENT');
});

beforeEach(() => {
  localDir = mkdtempSync(path.join(tmpdir(), 'etp-local-run-'));
});

afterEach(() => {
  rmSync(localDir, { recursive: true, force: true });
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
  it("runs the scenario's state machine, the dispatcher and the engine answering its Tasks, reporting as it goes", async () => {
    // Act
    const { running, events } = run(relay, { input: { word: 'bonjour' }, runId: 'run-7' });
    const { output, transitions, largestState } = await running;

    // Assess
    expect(events).toEqual([
      'start collect',
      'call collect/0 bonjour',
      'end collect 1 call: 1 ok',
      'start report',
      'call report/0 bonjour from run-7',
      'end report 1 call: 1 ok',
    ]);
    expect(output).toMatchObject({ scenario: 'relay', runId: 'run-7', tenant: 'default' });
    expect(output.input).toEqual({ tenant: 'default', word: 'bonjour' });
    expect((output.levels.report as PlanLevelRecord).calls[0]).toMatchObject({
      ok: true,
      summary: 'bonjour from run-7',
    });
    // Start, 2 × (Pass, budget Choice, Map, a call, done), Summary, PublishRunCompleted, Done
    expect(transitions).toBe(14);
    expect(output.summary.counts.stateTransitions).toBe(transitions);
    expect(largestState.bytes).toBeLessThan(10_000);
  });

  it('runs the budget gate: a level whose call no longer fits the budget_usd input starts nothing', async () => {
    // Prepare: room for what the run spends outside its levels and one finish call, not two
    const memory = functionMemory(toolCatalog);
    const finishUsd = usdOf(callUse(toolCatalog.get('finish'), memory));
    const budget = spentUsd(relay, {}, memory) + finishUsd + 0.00001;

    // Act
    const { running, events } = run(relay, {
      input: { word: 'bonjour', budget_usd: budget },
      runId: 'run-b',
    });
    const { output, transitions } = await running;

    // Assess
    expect(events).toEqual([
      'start collect',
      'call collect/0 bonjour',
      'end collect 1 call: 1 ok',
      'start report',
      'end report 1 call: 0 ok, 1 not started (run budget)',
    ]);
    expect((output.levels.report as PlanLevelRecord).calls).toEqual([
      {
        callId: 'report/0',
        tool: 'finish',
        ok: false,
        code: 'limit_exceeded',
        summary: expect.stringMatching(/^limit_exceeded: finish \(report\/0\) not started: its estimate/),
        durationMs: 0,
        skipped: 'budget',
        estimateUsd: Math.round(finishUsd * 1e6) / 1e6,
      },
    ]);
    expect(output.summary.budget?.skipped.map((skip) => skip.id)).toEqual(['report/0']);
    // Start, collect (Pass, Choice, gate, Map, a call, done), report (Pass, Choice, gate, Map, done), Summary, PublishRunCompleted, Done
    expect(transitions).toBe(15);
    expect(output.summary.counts.stateTransitions).toBe(transitions);
  });

  it('goes on after a failed call: the failure is the call’s result', async () => {
    // Act: an empty word makes the first finish call's summary empty: invalid_args.
    const { output } = await run(relay, { input: { word: '' }, runId: 'run-8' }).running;

    // Assess
    expect(output.levels.collect).toMatchObject({
      outcome: 'failed',
      calls: [{ ok: false, code: 'invalid_args' }],
    });
    expect(output.levels.report).toMatchObject({ outcome: 'ok' });
    expect(output.summary.outcome).toBe('incomplete');
  });

  it('rejects an input the scenario does not accept in its Start state, saying what is accepted', async () => {
    // Act
    const { running } = run(relay, { input: { word: 5 }, runId: 'run-9' });

    // Assess
    await expect(running).rejects.toThrow('Invalid input for relay: word: expected a string, got number 5');
  });
});

describe('runScenarioLocally with a watermark', () => {
  // The mark is what the collect level's finish data says: the next run's `word` when left out.
  const marked = scenarioOf({
    name: 'marked',
    description: 'Carries a mark from run to run.',
    inputs: {
      tenant: { type: 'string', description: 'Tenant.', default: 'default' },
      word: { type: 'string', description: 'The word; left out, the previous run’s mark.' },
    },
    watermark: { input: 'word', value: '{{levels.collect.results.0.value.data.next}}' },
    levels: [
      {
        name: 'collect',
        intra_tools: [],
        calls: [{ tool: 'finish', args: { summary: '{{input.word}}', data: { next: 'n-{{input.word}}' } } }],
      },
    ],
  });

  it("fills the input from the tenant's previous succeeded run, kept in the local run records", async () => {
    // Act / Assess: the first run has no mark to start from.
    await expect(run(marked, { runId: 'mark-0' }).running).rejects.toThrow(
      "word: required on the tenant's first run, which has no previous run's watermark",
    );
    const first = await run(marked, { input: { word: 'a' }, runId: 'mark-1' }).running;
    expect(first.output.watermark).toEqual({ input: 'word', advanced: true, value: 'n-a' });

    const second = await run(marked, { runId: 'mark-2' }).running;
    expect(second.output.input.word).toBe('n-a');
    expect(second.output.watermark).toMatchObject({ advanced: true, value: 'n-n-a' });

    // A run that fails (an empty summary is refused) keeps the mark.
    const failed = await run(marked, { input: { word: '' }, runId: 'mark-3' }).running;
    expect(failed.output.summary.outcome).toBe('incomplete');
    expect(failed.output.watermark).toMatchObject({ advanced: false });
    expect(await new FileRunRecords(localDir).readWatermark('default', 'marked')).toMatchObject({
      value: 'n-n-a',
      runId: 'mark-2',
    });
    // Another tenant has its own mark.
    expect(await new FileRunRecords(localDir).readWatermark('acme', 'marked')).toBeUndefined();
  });
});

describe('runScenarioLocally with slow or failing calls', () => {
  /** Calls waiting on the fake clock: the clock only moves while one is. */
  let waiting = 0;

  /** A dispatcher answering `finish` calls after `delayMs`, or never when `delayMs` is undefined. */
  function slowDispatch(delayMs: number | undefined): Dispatch {
    return (envelope) =>
      new Promise((resolve) => {
        const { callId } = envelope as { callId: string };
        waiting++;
        // A call that never answers stops waiting on the clock once its Task has timed out (90 s).
        if (delayMs === undefined) {
          setTimeout(() => {
            waiting--;
          }, 90_000);
        }
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
          setTimeout(() => {
            waiting--;
            resolve(late);
          }, delayMs);
        }
      });
  }

  /**
   * Runs `relay` with `dispatch` under fake timers. The clock moves a second at a
   * time while a call waits on it (the call's timer, the Task's timeout); otherwise
   * real I/O (the engine's file writes) is left to complete, and no other timer
   * (the execution's own timeout) is reached.
   */
  async function runWithClock(dispatch: Dispatch) {
    waiting = 0;
    const { running, events } = run(relay, { runId: 'run-slow', dispatch });
    let settled = false;
    void running.finally(() => {
      settled = true;
    });
    while (!settled) {
      if (waiting > 0) await jest.advanceTimersByTimeAsync(1_000);
      else await new Promise((resolve) => setImmediate(resolve));
    }
    return { output: (await running).output, events };
  }

  // The clock is fake but the engine's file I/O is real: under a loaded machine that takes seconds.
  jest.setTimeout(30_000);

  beforeEach(() => {
    // Promise jobs and I/O stay real: only the interpreter's and the dispatcher's timers are faked.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it("lets a call run past 60 s, up to its tool's timeout plus the dispatcher margin (finish: 60 + 30 s)", async () => {
    // Act: each call takes 85 s; the interpreter's default Task timeout is 60 s.
    const { output, events } = await runWithClock(slowDispatch(85_000));

    // Assess
    expect(output.levels.collect).toMatchObject({
      outcome: 'ok',
      calls: [{ durationMs: 85_000, summary: 'late' }],
    });
    expect(events.filter((event) => event.startsWith('call'))).toEqual([
      'call collect/0 late',
      'call report/0 late',
    ]);
  });

  it("ends a call that outlives its Task's 90 s through the Catch, and goes on", async () => {
    // Act: no call ever answers.
    const { output } = await runWithClock(slowDispatch(undefined));

    // Assess
    const timedOut = {
      callId: 'collect/0',
      tool: 'finish',
      ok: false,
      code: 'timeout',
      // finish writes finish.json (sideEffects: write): a caught failure may have taken effect (docs/errors.md).
      summary:
        'timeout: The call did not finish within its Task timeout (90 s); not retried: it may have taken effect',
      durationMs: 0,
      caught: true,
    };
    expect((output.levels.collect as PlanLevelRecord).calls).toEqual([timedOut]);
    expect((output.levels.report as PlanLevelRecord).calls).toEqual([{ ...timedOut, callId: 'report/0' }]);
    // Start, 2 × (Pass, budget Choice, Map, a call, its Catch Pass, done), Summary, PublishRunCompleted, Done
    expect(output.summary.counts.stateTransitions).toBe(16);
  });

  it('ends a call whose dispatcher throws through the Catch', async () => {
    // Prepare
    const crashing: Dispatch = async () => {
      throw new TypeError('boom');
    };

    // Act
    const { output } = await runWithClock(crashing);

    // Assess
    expect((output.levels.collect as PlanLevelRecord).calls[0]).toMatchObject({
      ok: false,
      code: 'internal_error',
      summary:
        'internal_error: The dispatcher or the tool function failed (TypeError); not retried: it may have taken effect',
    });
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
