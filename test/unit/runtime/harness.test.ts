import { z } from 'zod/mini';
import { deadlineIn, hardStopGraceMs, inFlightReserveMs } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import { logger } from '../../../functions/runtime/logger';
import { defineTool, defineToolSpec, type Tool } from '../../../functions/runtime/spec';
import { toolInvocation } from '../../helpers/events';

/** A tool whose handler waits `waitMs` (forever when undefined) before answering. */
function waitingTool(waitMs?: number): Tool {
  const spec = defineToolSpec({
    name: 'aws_waiting_probe',
    description: 'Waits, then answers.',
    inputSchema: () => z.strictObject({}),
    tags: ['aws'],
    service: 'ec2',
    requiresSecrets: [],
    sideEffects: 'none',
    iam: [],
  });
  return defineTool(spec, async () => {
    // A request to an endpoint that never answers: a promise that never settles, or settles late.
    await new Promise<void>((resolve) => {
      if (waitMs !== undefined) setTimeout(resolve, waitMs);
    });
    return { value: { answered: true }, summary: 'answered' };
  }) as unknown as Tool;
}

beforeEach(() => {
  // The harness logs each failure (stderr): keep the output to the test results.
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('runTool() and the deadline', () => {
  it('keeps the partial result of a handler that returns just after the deadline, within the grace', async () => {
    // Prepare: a 300 ms budget gets 250 ms of grace; the handler answers 100 ms late.
    const deadline = deadlineIn(300);

    // Act
    const result = await runTool(waitingTool(400), toolInvocation({ args: {} }), deadline, { logger });

    // Assess
    expect(hardStopGraceMs(300)).toBe(250);
    expect(hardStopGraceMs(118_000)).toBe(1_000);
    expect(result).toMatchObject({ ok: true, value: { answered: true } });
  });

  it('returns timeout at the deadline when the handler never settles, naming the tool and its budget', async () => {
    // Prepare
    const started = Date.now();

    // Act
    const result = await runTool(waitingTool(), toolInvocation({ args: {} }), deadlineIn(300), { logger });

    // Assess
    const wallMs = Date.now() - started;
    expect(result).toMatchObject({
      ok: false,
      tool: 'aws_waiting_probe',
      callId: 'collect/0',
      error: {
        code: 'timeout',
        message: 'Tool aws_waiting_probe did not finish within its budget of 0.3 s',
        retryable: true,
        service: 'ec2',
      },
    });
    expect(wallMs).toBeGreaterThanOrEqual(290);
    expect(wallMs).toBeLessThan(800);
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('returns the handler result when it answers before the deadline', async () => {
    // Act
    const result = await runTool(waitingTool(20), toolInvocation({ args: {} }), deadlineIn(2_000), {
      logger,
    });

    // Assess
    expect(result).toMatchObject({ ok: true, value: { answered: true }, summary: 'answered' });
  });

  it('leaves no timer behind once the handler has answered', async () => {
    // Prepare
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'performance'] });
    try {
      const call = deadlineIn(60_000);
      const done = runTool(waitingTool(10), toolInvocation({ args: {} }), call, { logger });

      // Act
      await jest.advanceTimersByTimeAsync(10);
      const result = await done;

      // Assess: only the caller's own deadline is left, until the caller disposes of it
      expect(result.ok).toBe(true);
      expect(jest.getTimerCount()).toBe(1);
      call.dispose?.();
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('runTool() and a page in flight at the tool deadline', () => {
  it("gives the tool a deadline before the call's, so a page in flight still arrives and the partial result is kept", async () => {
    // Prepare: a 2 s call: the tool's deadline is 1.5 s in (a quarter kept for a request in flight).
    const spec = defineToolSpec({
      name: 'paging_probe',
      description: 'Reads 400 ms pages until its deadline.',
      inputSchema: () => z.strictObject({}),
      tags: [],
      requiresSecrets: [],
      sideEffects: 'none',
      iam: [],
    });
    const tool = defineTool(spec, async (ctx) => {
      let pages = 0;
      while (!ctx.deadline.expired()) {
        await new Promise((resolve) => setTimeout(resolve, 400)); // the page in flight
        pages++;
      }
      return { value: { pages }, truncated: true };
    }) as unknown as Tool;

    // Act
    const result = await runTool(tool, toolInvocation({ args: {} }), deadlineIn(2_000), { logger });

    // Assess: pages started at 0, 0.4, 0.8 and 1.2 s; the last arrives at 1.6 s, before the 2 s stop.
    expect(result).toMatchObject({ ok: true, truncated: true, value: { pages: 4 } });
    expect(inFlightReserveMs(2_000)).toBe(500);
    expect(inFlightReserveMs(118_000)).toBe(16_000);
  });
});
