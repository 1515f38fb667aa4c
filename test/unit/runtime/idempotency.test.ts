import * as z from 'zod/mini';
import { callKey } from '../../../functions/runtime/call-key';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { PlatformError } from '../../../functions/runtime/errors';
import { effectOf, runToolOnce } from '../../../functions/runtime/idempotency';
import { InMemoryIdempotencyStore } from '../../../functions/runtime/idempotency-layers';
import { logger } from '../../../functions/runtime/logger';
import type { ToolFailure } from '../../../functions/runtime/result';
import { defineTool, defineToolSpec, type Tool } from '../../../functions/runtime/spec';
import { toolInvocation } from '../../helpers/events';

/** A write tool counting its effects; `outcome` says how each call ends. */
function counter(outcome: () => 'ok' | PlatformError, oncePerRunArgs?: readonly string[]) {
  const seen: { resumed?: boolean; key?: string }[] = [];
  const tool = defineTool(
    defineToolSpec({
      name: 'test_write',
      description: 'Counts.',
      inputSchema: () => z.strictObject({ n: z.number(), lead: z.optional(z.string()) }),
      tags: [],
      requiresSecrets: [],
      sideEffects: 'write',
      iam: [],
      ...(oncePerRunArgs ? { oncePerRunArgs } : {}),
    }),
    async (ctx) => {
      seen.push({ resumed: ctx.idempotency?.resumed, key: ctx.idempotency?.key });
      const result = outcome();
      if (result !== 'ok') throw result;
      return { value: { effects: seen.length } };
    },
  ) as unknown as Tool;
  return { tool, seen };
}

const run = (tool: Tool, store: InMemoryIdempotencyStore, overrides = {}) =>
  runToolOnce(
    tool,
    toolInvocation({ tool: 'test_write', args: { n: 1 }, ...overrides }),
    deadlineIn(5_000),
    { logger },
    store.layer,
  );

beforeEach(() => {
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('runToolOnce() with the in-memory store (local runs)', () => {
  it('runs a call once and replays its result', async () => {
    // Prepare
    const store = new InMemoryIdempotencyStore();
    const { tool, seen } = counter(() => 'ok');

    // Act
    const first = await run(tool, store);
    const again = await run(tool, store);

    // Assess
    expect(seen).toEqual([
      { resumed: false, key: callKey('default', 'run-2024-05-01T00-00-00Z', 'collect/0', 'test_write') },
    ]);
    expect(again).toEqual(first);
    expect(store.size).toBe(1);
  });

  it('runs a failure that did nothing again, and stores one whose effect is unknown', async () => {
    // Prepare
    const store = new InMemoryIdempotencyStore();
    const outcomes = [
      new PlatformError('not_found', 'no such channel'),
      new PlatformError('timeout', 'no answer', { retryable: true }),
    ];
    const { tool, seen } = counter(() => outcomes.shift() ?? 'ok');

    // Act
    const nothing = await run(tool, store);
    const unknown = await run(tool, store);
    const replayed = await run(tool, store);

    // Assess
    expect(nothing).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(unknown).toMatchObject({
      ok: false,
      error: { code: 'timeout', retryable: false, details: { effect: 'unknown' } },
    });
    expect(replayed).toEqual(unknown);
    expect(seen).toHaveLength(2);
  });

  it('does not record a call whose args are invalid', async () => {
    // Prepare
    const store = new InMemoryIdempotencyStore();
    const { tool, seen } = counter(() => 'ok');

    // Act
    const result = await run(tool, store, { args: { n: 'one' } });

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(seen).toEqual([]);
    expect(store.size).toBe(0);
  });
});

describe('runToolOnce() of a tool written once per target (oncePerRunArgs)', () => {
  it("answers a second call on the same target with the first call's result, and refuses other arguments", async () => {
    // Prepare
    const store = new InMemoryIdempotencyStore();
    const { tool, seen } = counter(() => 'ok', ['lead']);

    // Act
    const first = await run(tool, store, { callId: 'qualify/0', args: { n: 1, lead: '512' } });
    const same = await run(tool, store, { callId: 'qualify/1', args: { n: 1, lead: '512' } });
    const other = await run(tool, store, { callId: 'qualify/2', args: { n: 2, lead: '512' } });
    const next = await run(tool, store, { callId: 'qualify/3', args: { n: 2, lead: '530' } });

    // Assess: one effect per lead; the marker key is the target's, not a call's.
    expect(seen).toEqual([
      {
        resumed: false,
        key: callKey('default', 'run-2024-05-01T00-00-00Z', 'target:lead=512', 'test_write'),
      },
      {
        resumed: false,
        key: callKey('default', 'run-2024-05-01T00-00-00Z', 'target:lead=530', 'test_write'),
      },
    ]);
    expect(same).toEqual({ ...first, callId: 'qualify/1' });
    expect(other).toMatchObject({
      ok: false,
      callId: 'qualify/2',
      error: {
        code: 'invalid_args',
        message:
          'test_write already wrote lead=512 in run run-2024-05-01T00-00-00Z, with other arguments: it writes each target at most once per run. Put everything for lead=512 in one call',
      },
    });
    expect(next).toMatchObject({ ok: true, value: { effects: 2 } });
    expect(store.size).toBe(2);
  });

  it('writes the same target again in another run', async () => {
    // Prepare
    const store = new InMemoryIdempotencyStore();
    const { tool, seen } = counter(() => 'ok', ['lead']);

    // Act
    await run(tool, store, { args: { n: 1, lead: '512' } });
    await run(tool, store, { runId: 'run-2024-05-02T00-00-00Z', args: { n: 1, lead: '512' } });

    // Assess
    expect(seen).toHaveLength(2);
  });
});

describe('effectOf()', () => {
  const failed = (code: string, details?: Record<string, unknown>) =>
    ({
      ok: false,
      error: { code, message: 'x', retryable: true, ...(details ? { details } : {}) },
    }) as ToolFailure;

  it.each([
    ['timeout', 'unknown'],
    ['network_error', 'unknown'],
    ['upstream_error', 'unknown'],
    ['internal_error', 'unknown'],
    ['throttled', 'none'],
    ['not_found', 'none'],
    ['access_denied', 'none'],
  ])('reads %s as %s', (code, effect) => {
    expect(effectOf(failed(code))).toBe(effect);
  });

  it("lets a tool's own details.effect win", () => {
    expect(effectOf(failed('timeout', { effect: 'none' }))).toBe('none');
    expect(effectOf(failed('not_found', { effect: 'partial' }))).toBe('partial');
  });
});
