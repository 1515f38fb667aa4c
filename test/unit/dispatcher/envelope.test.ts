import * as z from 'zod/mini';
import { createDispatcher, LOGGED_ARGS_MAX_BYTES } from '../../../functions/dispatcher/dispatch';
import type { ToolInvoker } from '../../../functions/dispatcher/invoker';
import { MAX_ARGS_BYTES, MAX_ARGS_VALUES } from '../../../functions/runtime/args';
import { fileTool, functionTool, ToolCatalog } from '../../../functions/runtime/catalog';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { invocationOf, MAX_ECHOED_CHARS, type ToolInvocation } from '../../../functions/runtime/invocation';
import { logger } from '../../../functions/runtime/logger';
import type { ToolResult } from '../../../functions/runtime/result';
import { defineToolSpec, type ToolSpec } from '../../../functions/runtime/spec';
import { finishTool } from '../../../functions/tools/files/finish';

/**
 * The dispatcher envelope as an outsider may send it (docs/design.md, "Dispatcher
 * envelope"): names looked up as own properties only, only the envelope's fields
 * forwarded, echoed fields and logged args bounded, args capped before parsing.
 */
const echoSpec = defineToolSpec({
  name: 'echo_args',
  description: 'Echoes its args.',
  inputSchema: () => z.strictObject({ text: z.optional(z.string()) }),
  tags: ['test'],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});
const catalog = new ToolCatalog([functionTool(echoSpec, 'test/echo-args'), fileTool(finishTool)]);

/** An invoker recording what would travel to a tool function. */
function recordingInvoker(): ToolInvoker & { readonly sent: ToolInvocation[] } {
  const sent: ToolInvocation[] = [];
  return {
    sent,
    async invoke(spec: ToolSpec, invocation: ToolInvocation): Promise<ToolResult> {
      sent.push(invocation);
      return {
        ok: true,
        tool: spec.name,
        callId: invocation.callId,
        value: {},
        truncated: false,
        resultRef: null,
        durationMs: 1,
        summary: 'ok',
      };
    },
  };
}

/** Every line the logger wrote during `act`. */
async function logLines<T>(act: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    return { result: await act(), lines };
  } finally {
    jest.restoreAllMocks();
  }
}

function setup() {
  const invoker = recordingInvoker();
  const dispatch = createDispatcher({
    catalog,
    whitelists: { ops_review: { collect: ['echo_args'] } },
    invoker,
    services: { logger },
    logger,
    maxResultBytes: 64 * 1024,
    requireLevel: true,
  });
  return { invoker, dispatch: (envelope: unknown) => dispatch(envelope, deadlineIn(10_000)) };
}

const base = {
  tenant: 'acme',
  scenario: 'ops_review',
  level: 'collect',
  tool: 'echo_args',
  runId: 'run-1',
  callId: 'collect/0',
  args: { text: 'hi' },
};

describe('lookups by a caller-supplied name use own properties only', () => {
  it.each([
    ['scenario', { scenario: 'constructor' }, 'unknown_scenario'],
    ['scenario', { scenario: 'to_string' }, 'unknown_scenario'],
    ['level', { level: 'constructor' }, 'unknown_level'],
    ['level', { level: 'has_own_property' }, 'unknown_level'],
    ['tool', { tool: 'constructor' }, 'unknown_tool'],
    ['tool', { tool: 'value_of' }, 'unknown_tool'],
    ['scenario', { scenario: '__proto__' }, 'invalid_args'],
  ])(
    'a %s named like an Object member (%o) is %s, never an internal error',
    async (_field, override, code) => {
      // Prepare
      const { dispatch, invoker } = setup();

      // Act
      const { result } = await logLines(() => dispatch({ ...base, ...override }));

      // Assess
      expect(result).toMatchObject({ ok: false, error: { code } });
      expect(invoker.sent).toEqual([]);
    },
  );

  it('reads no envelope field from a prototype', async () => {
    // Prepare: every field inherited, none own.
    const { dispatch, invoker } = setup();
    const inherited = Object.create(base) as object;

    // Act
    const { result } = await logLines(() => dispatch(inherited));

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(invoker.sent).toEqual([]);
  });
});

describe('only the envelope’s fields travel on to a tool function', () => {
  it('drops every extra field, however large or deep, and a __proto__ member of the JSON', async () => {
    // Prepare: the event as Lambda parses it (JSON.parse makes __proto__ an own member).
    const { dispatch, invoker } = setup();
    const event = JSON.parse(
      JSON.stringify({
        ...base,
        secrets: { slack_default: 'x' },
        blob: 'y'.repeat(200_000),
        deep: [[[[1]]]],
      }).replace(/^\{/, '{"__proto__":{"polluted":true},'),
    ) as Record<string, unknown>;

    // Act
    const { result } = await logLines(() => dispatch(event));

    // Assess
    expect(result.ok).toBe(true);
    expect(invoker.sent).toEqual([
      {
        tenant: 'acme',
        scenario: 'ops_review',
        level: 'collect',
        tool: 'echo_args',
        runId: 'run-1',
        callId: 'collect/0',
        args: { text: 'hi' },
      },
    ]);
    expect(Object.keys(invoker.sent[0] as object).sort()).toEqual([
      'args',
      'callId',
      'level',
      'runId',
      'scenario',
      'tenant',
      'tool',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('invocationOf() keeps the seven fields and nothing else', () => {
    // Act
    const picked = invocationOf({ ...base, extra: 1 } as ToolInvocation);

    // Assess
    expect(picked).toEqual(base);
  });
});

describe('echoed fields are bounded', () => {
  it.each(['tool', 'callId'] as const)(
    'a 1 MB %s comes back cut, and no log line carries it',
    async (field) => {
      // Prepare
      const { dispatch } = setup();
      const huge = 'z'.repeat(1_000_000);

      // Act
      const { result, lines } = await logLines(() => dispatch({ ...base, [field]: huge }));

      // Assess
      expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
      expect(result[field]).toBe(`${'z'.repeat(MAX_ECHOED_CHARS)}…`);
      expect(JSON.stringify(result).length).toBeLessThan(2_000);
      expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(4_000);
    },
  );
});

describe('args are capped before parsing, and logged bounded', () => {
  it(`refuses a JSON string over ${MAX_ARGS_BYTES} bytes without parsing it`, async () => {
    // Prepare
    const { dispatch, invoker } = setup();
    const args = JSON.stringify({ text: 'a'.repeat(MAX_ARGS_BYTES) });
    const parse = jest.spyOn(JSON, 'parse');

    // Act
    const result = await dispatch({ ...base, args });
    const parsedArgs = parse.mock.calls.filter(([text]) => text === args);
    parse.mockRestore();

    // Assess
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_args',
        message: `args is ${(MAX_ARGS_BYTES + 11).toLocaleString('en-US')} bytes of JSON; at most 262,144 are accepted`,
      },
    });
    expect(parsedArgs).toEqual([]);
    expect(invoker.sent).toEqual([]);
  });

  it('refuses an args object over the byte cap', async () => {
    // Prepare
    const { dispatch } = setup();

    // Act
    const { result } = await logLines(() =>
      dispatch({ ...base, args: { text: 'é'.repeat(MAX_ARGS_BYTES / 2) } }),
    );

    // Assess
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_args',
        message: expect.stringMatching(/^Arguments for echo_args are 262,15\d bytes/),
      },
    });
  });

  it(`refuses a finish call of 100,000 keys fast, logging one short line (cap: ${MAX_ARGS_VALUES} values)`, async () => {
    // Prepare
    const { dispatch } = setup();
    const data = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));

    // Act
    const { result, lines } = await logLines(() =>
      dispatch({ ...base, tool: 'finish', args: { summary: 'done', data } }),
    );

    // Assess
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_args',
        message:
          'Arguments for finish hold more than 10,000 values (object members and array items); send fewer',
      },
    });
    expect(lines.join('').length).toBeLessThan(2_000);
  });

  it('logs large valid args as their size only', async () => {
    // Prepare
    const { dispatch } = setup();
    const data = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]));

    // Act
    const { result, lines } = await logLines(() =>
      dispatch({ ...base, tool: 'finish', args: { summary: 'done', data } }),
    );

    // Assess
    expect(result.ok).toBe(true);
    const call = lines.find((line) => line.includes('"tool call"')) as string;
    expect(call.length).toBeLessThan(LOGGED_ARGS_MAX_BYTES);
    expect(JSON.parse(call).args).toEqual({
      omitted: expect.stringMatching(/^\d+ bytes of JSON, 2 top-level members$/),
    });
  });
});
