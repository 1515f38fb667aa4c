import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import * as z from 'zod/mini';
import { createDispatcher, type DispatcherOptions } from '../../../functions/dispatcher/dispatch';
import type { ToolInvoker } from '../../../functions/dispatcher/invoker';
import type { LevelWhitelists } from '../../../functions/dispatcher/levels';
import { fileTool, functionTool, ToolCatalog } from '../../../functions/runtime/catalog';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import type { ToolInvocation } from '../../../functions/runtime/invocation';
import { logger } from '../../../functions/runtime/logger';
import type { ToolFailure, ToolResult, ToolSuccess } from '../../../functions/runtime/result';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { defaultProviders, EnvSecretProvider } from '../../../functions/runtime/secrets/providers';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import { defineTool, defineToolSpec, type Tool, type ToolSpec } from '../../../functions/runtime/spec';
import { toolHostServices } from '../../../functions/runtime/tool-host';
import { ec2InventoryTool } from '../../../functions/tools/aws/ec2-inventory';
import { finishTool } from '../../../functions/tools/files/finish';
import { nativeEnvelope } from '../../helpers/events';

const ec2Mock = mockClient(EC2Client);

// Credentials that look real to the redaction patterns (Slack's documented token shape).
const SLACK_TOKEN = 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const WEBHOOK_URL = 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX';

/** Every args object each test tool's handler received, by tool. */
const received: Record<string, unknown[]> = {};

function recordingTool<S extends z.ZodMiniObject<z.core.$ZodShape, z.core.$strict>>(
  name: string,
  inputSchema: S,
  output: (args: z.output<S>) => unknown = (args) => ({ echoed: args }),
): Tool {
  const spec = defineToolSpec({
    name,
    description: `Test tool ${name}.`,
    inputSchema,
    tags: ['test'],
    requiresSecrets: [],
    sideEffects: 'none',
    iam: [],
  });
  return defineTool(spec, async (_ctx, args) => {
    received[name]?.push(args);
    return { value: output(args) };
  }) as unknown as Tool;
}

const ROWS_IN_BIG_RESULT = 60_000;
const bigValue = () => ({
  total: ROWS_IN_BIG_RESULT,
  rows: Array.from({ length: ROWS_IN_BIG_RESULT }, (_, i) => ({ id: `row-${i}`, payload: 'x'.repeat(96) })),
});

const functionTools: Tool[] = [
  ec2InventoryTool as unknown as Tool,
  recordingTool(
    'echo_args',
    z.strictObject({ count: z.int().check(z.minimum(0)), label: z.optional(z.string()) }),
  ),
  recordingTool('no_params', z.strictObject({})),
  recordingTool('echo_text', z.strictObject({ text: z.string(), api_key: z.optional(z.string()) })),
  recordingTool('big_result', z.strictObject({}), bigValue),
  {
    ...recordingTool('exploder', z.strictObject({})),
    handler: async () => {
      throw new Error(`cannot reach ${WEBHOOK_URL} with ${SLACK_TOKEN}`);
    },
  },
];

const whitelists: LevelWhitelists = {
  ops_review: {
    collect: ['aws_ec2_inventory', 'echo_args', 'no_params', 'echo_text', 'big_result', 'exploder'],
    report: ['echo_text'],
  },
  cost_review: { analyze: ['echo_args'] },
};

const catalog = new ToolCatalog([
  ...functionTools.map((tool) => functionTool(tool, 'test/recording-tool')),
  fileTool(finishTool as unknown as Tool),
]);
const REGISTERED = 'aws_ec2_inventory, big_result, echo_args, echo_text, exploder, finish, no_params';

/** The tenant's aws_default: static keys from a private environment, never process.env. */
const services = toolHostServices(
  new SecretResolver(
    new InMemorySecretReferenceStore([
      { tenant_id: 'default', secret_name: 'aws_default', ref_kind: 'env', ref_value: 'TEST_AWS_DEFAULT' },
    ]),
    {
      providers: {
        ...defaultProviders(),
        env: new EnvSecretProvider({
          TEST_AWS_DEFAULT: JSON.stringify({
            access_key_id: 'AKIAIOSFODNN7EXAMPLE',
            secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
            region: 'eu-west-1',
          }),
        }),
      },
    },
  ),
);

/**
 * Runs the tools in this process through the harness, unbounded, and records
 * every call: what a tool's function would do, minus Lambda, so the dispatcher's
 * own checks and bound are what is tested.
 */
class RecordingInvoker implements ToolInvoker {
  readonly calls: ToolInvocation[] = [];
  readonly #tools = new Map(functionTools.map((tool) => [tool.name, tool]));

  async invoke(spec: ToolSpec, invocation: ToolInvocation): Promise<ToolResult> {
    this.calls.push(invocation);
    const tool = this.#tools.get(spec.name) as Tool;
    return runTool(tool, invocation, deadlineIn(60_000), services, Number.MAX_SAFE_INTEGER);
  }
}

const MAX_RESULT_BYTES = 64 * 1024;
let invoker: RecordingInvoker;
/** JSON log lines Powertools wrote (INFO to stdout, WARN and ERROR to stderr). */
let logLines: string[];

function dispatcher(overrides: Partial<DispatcherOptions> = {}) {
  return createDispatcher({
    catalog,
    whitelists,
    invoker,
    services,
    logger,
    maxResultBytes: MAX_RESULT_BYTES,
    requireLevel: true,
    ...overrides,
  });
}

function call(envelope: unknown, overrides: Partial<DispatcherOptions> = {}): Promise<ToolResult> {
  return dispatcher(overrides)(envelope, deadlineIn(60_000));
}

function envelope(tool: string, args: unknown, level = 'collect') {
  return nativeEnvelope({ scenario: 'ops_review', level, tool, args, callId: `${level}/0` });
}

function failure(result: ToolResult): ToolFailure {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

function success(result: ToolResult): ToolSuccess {
  if (!result.ok) throw new Error(`expected a success, got ${JSON.stringify(result.error)}`);
  return result;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

beforeEach(() => {
  ec2Mock.reset();
  invoker = new RecordingInvoker();
  for (const tool of catalog.names()) received[tool] = [];
  // Capture Powertools' JSON lines (and keep the test output clean).
  logLines = [];
  for (const stream of [process.stdout, process.stderr]) {
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logLines.push(...String(chunk).trim().split('\n'));
      return true;
    });
  }
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('tool lookup and level whitelist', () => {
  it('answers unknown_tool listing every registered name, before any invocation', async () => {
    // Act
    const result = failure(await call(envelope('aws_ec2_inventroy', {})));

    // Assess
    expect(result).toMatchObject({ tool: 'aws_ec2_inventroy', callId: 'collect/0' });
    expect(result.error).toEqual({
      code: 'unknown_tool',
      message: `Unknown tool "aws_ec2_inventroy". Registered tools: ${REGISTERED}`,
      retryable: false,
      details: { registered: REGISTERED.split(', ') },
    });
    expect(invoker.calls).toHaveLength(0);
  });

  it('answers tool_not_allowed for a registered tool outside the level whitelist', async () => {
    // Act
    const result = failure(await call(envelope('echo_args', { count: 1 }, 'report')));

    // Assess
    expect(result.error).toEqual({
      code: 'tool_not_allowed',
      message:
        'Tool "echo_args" is not allowed at level "report" of scenario "ops_review". Allowed: echo_text, finish',
      retryable: false,
      details: { allowed: ['echo_text', 'finish'] },
    });
    expect(invoker.calls).toHaveLength(0);
    expect(received.echo_args).toEqual([]);
  });

  it('always allows finish, a file tool, and runs it inside the dispatcher', async () => {
    // Act
    const result = success(
      await call(envelope('finish', { summary: 'All 12 instances are tagged.' }, 'report')),
    );

    // Assess
    expect(result.value).toEqual({ finished: true, summary: 'All 12 instances are tagged.' });
    expect(result.summary).toBe('All 12 instances are tagged.');
    expect(invoker.calls).toHaveLength(0);
  });

  it('answers unknown_scenario listing the known scenarios', async () => {
    // Act
    const result = failure(await call({ ...envelope('echo_args', { count: 1 }), scenario: 'aws_pluse' }));

    // Assess
    expect(result.error.code).toBe('unknown_scenario');
    expect(result.error.message).toBe(
      'Unknown scenario "aws_pluse". Known scenarios: cost_review, ops_review',
    );
    expect(invoker.calls).toHaveLength(0);
  });

  it('answers unknown_level listing the scenario levels', async () => {
    // Act
    const result = failure(await call(envelope('echo_args', { count: 1 }, 'analyze')));

    // Assess
    expect(result.error.code).toBe('unknown_level');
    expect(result.error.message).toBe(
      'Scenario "ops_review" has no level "analyze". Levels: collect, report',
    );
    expect(invoker.calls).toHaveLength(0);
  });

  it('with requireLevel, rejects an envelope without scenario and level as invalid_args', async () => {
    // Act
    const result = failure(
      await call(nativeEnvelope({ scenario: undefined, level: undefined, tool: 'no_params' })),
    );

    // Assess
    expect(result.error).toEqual({
      code: 'invalid_args',
      message: 'scenario and level are required: every call is scoped to a scenario level',
      retryable: false,
    });
    expect(invoker.calls).toHaveLength(0);
  });

  it('without requireLevel, runs an unscoped call but still rejects a scenario without its level', async () => {
    // Prepare
    const unscoped = nativeEnvelope({ scenario: undefined, level: undefined, tool: 'no_params', args: {} });
    const halfScoped = nativeEnvelope({
      level: undefined,
      scenario: 'ops_review',
      tool: 'no_params',
      args: {},
    });

    // Act
    const ran = await call(unscoped, { requireLevel: false });
    const rejected = failure(await call(halfScoped, { requireLevel: false }));

    // Assess
    expect(success(ran).value).toEqual({ echoed: {} });
    expect(rejected.error.code).toBe('invalid_args');
    expect(invoker.calls).toHaveLength(1);
  });

  it('rejects a malformed envelope naming each bad field', async () => {
    // Act
    const result = failure(await call({ tool: 'no_params', tenant: '', runId: 42 }));

    // Assess
    expect(result.error.code).toBe('invalid_args');
    expect(result.error.message).toBe(
      'Invalid envelope: tenant (empty) is not a tenant id: 1-128 letters, digits, _ . or -, starting with a letter or digit (acme, team-1); ' +
        'runId (a number) is not a run id: 1-80 letters, digits, - or _ (a Step Functions execution name, e.g. run-2025-01-02); ' +
        'callId is missing: a call id is <level>/<index>: a snake_case level name, / and the call index (collect/0)',
    );
    expect(result).toMatchObject({ tool: 'no_params', callId: 'unknown' });
  });
});

describe('argument validation before any remote call', () => {
  it('answers invalid_args with every violation and its path, and invokes nothing', async () => {
    // Act
    const result = failure(await call(envelope('echo_args', { count: -1, label: 5, extra: true })));

    // Assess
    expect(result.error.code).toBe('invalid_args');
    expect(result.error.details).toEqual({
      violations: [
        { path: 'count', message: 'Too small: expected number to be >=0 (got -1)' },
        { path: 'label', message: 'Invalid input: expected string, received number (got 5)' },
        { path: '(root)', message: 'Unrecognized key: "extra"; accepted keys: count, label' },
      ],
    });
    expect(result.error.message).toBe(
      'Invalid arguments for echo_args: count: Too small: expected number to be >=0 (got -1); ' +
        'label: Invalid input: expected string, received number (got 5); (root): Unrecognized key: "extra"; accepted keys: count, label',
    );
    expect(invoker.calls).toHaveLength(0);
    expect(received.echo_args).toEqual([]);
  });

  it('sends no EC2 request when aws_ec2_inventory args are invalid', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).resolves({ Reservations: [] });

    // Act
    const result = failure(await call(envelope('aws_ec2_inventory', { regions: ['mars-north-1'], topN: 0 })));

    // Assess
    expect(result.error.details).toEqual({
      violations: [
        {
          path: 'regions[0]',
          message: 'an AWS region name, in lower case, such as eu-west-1 (got "mars-north-1")',
        },
        {
          path: 'topN',
          message:
            'Too small: expected number to be >=1 (got 0). Accepted: How many items to list in full (1-100, default 20)',
        },
      ],
    });
    expect(invoker.calls).toHaveLength(0);
    expect(ec2Mock.calls()).toHaveLength(0);
  });

  it('sends the EC2 request once the same call is valid (the mock above is wired)', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).resolves({ Reservations: [] });

    // Act
    const result = success(await call(envelope('aws_ec2_inventory', { regions: ['eu-west-1'], topN: 5 })));

    // Assess
    expect(result.value).toMatchObject({
      totalInstances: 0,
      regions: [{ region: 'eu-west-1', instanceCount: 0 }],
    });
    expect(invoker.calls[0]?.args).toEqual({ regions: ['eu-west-1'], topN: 5 });
    expect(ec2Mock.commandCalls(DescribeInstancesCommand)).toHaveLength(1);
  });

  it.each([
    ['an empty string', ''],
    ['null', null],
    ['whitespace', ' \n\t '],
    ['an empty JSON object string', '{}'],
    ['omitted args', undefined],
  ])('treats %s as no arguments for a tool without parameters', async (_label, args) => {
    // Act
    const result = await call(envelope('no_params', args));

    // Assess
    expect(success(result).value).toEqual({ echoed: {} });
    expect(received.no_params).toEqual([{}]);
  });

  it('parses args sent as a JSON string', async () => {
    // Act
    const result = await call(envelope('echo_args', '{"count":3,"label":"eu"}'));

    // Assess
    expect(success(result).value).toEqual({ echoed: { count: 3, label: 'eu' } });
  });

  // Coercion is strict: a model that sends "50" learns to send 50, and null never becomes 0.
  it.each([
    ['"50"', { count: '50' }, 'Invalid input: expected number, received string (got "50")'],
    ['null', { count: null }, 'Invalid input: expected number, received null'],
    ['a float', { count: 2.5 }, 'Invalid input: expected int, received number (got 2.5)'],
  ])('rejects count sent as %s instead of coercing it', async (_label, args, message) => {
    // Act
    const result = failure(await call(envelope('echo_args', args)));

    // Assess
    expect(result.error.details).toEqual({ violations: [{ path: 'count', message }] });
    expect(received.echo_args).toEqual([]);
  });

  it('reads aws_ec2_inventory topN sent as null as left out: its default applies (docs/entry-points.md)', async () => {
    // Act
    await call(envelope('aws_ec2_inventory', { regions: ['eu-west-1'], topN: null }));

    // Assess
    expect(invoker.calls.at(-1)?.args).toEqual({ regions: ['eu-west-1'], topN: 20 });
  });

  it.each([['"50"', '50']])(
    'rejects aws_ec2_inventory topN sent as %s; the tool never runs',
    async (_label, topN) => {
      // Act
      const result = failure(await call(envelope('aws_ec2_inventory', { regions: ['eu-west-1'], topN })));

      // Assess
      expect(result.error.code).toBe('invalid_args');
      expect(result.error.details?.violations).toEqual([{ path: 'topN', message: expect.any(String) }]);
      expect(ec2Mock.calls()).toHaveLength(0);
    },
  );

  it('rejects args nested deeper than 32 levels before parsing, logging or invoking them', async () => {
    // Prepare: 5,000 levels, deep enough to overflow the recursive redaction of the call's log line.
    let deep: unknown = 'leaf';
    for (let level = 0; level < 5_000; level += 1) deep = [deep];

    // Act
    const result = failure(await call(envelope('echo_args', { count: 1, label: deep })));

    // Assess
    expect(result.error).toMatchObject({
      code: 'invalid_args',
      message:
        'Invalid arguments for echo_args: label: Too deeply nested: objects and arrays may nest at most 32 levels deep',
      details: {
        violations: [
          { path: 'label', message: 'Too deeply nested: objects and arrays may nest at most 32 levels deep' },
        ],
      },
    });
    expect(invoker.calls).toHaveLength(0);
    expect(logLines.map((line) => JSON.parse(line).message)).toEqual(['tool result']);
  });

  it('rejects args that are JSON but not an object', async () => {
    // Act
    const result = failure(await call(envelope('echo_args', '[1,2]')));

    // Assess
    expect(result.error.message).toBe('Arguments for echo_args must be a JSON object, got an array');
  });
});

describe('results', () => {
  it('turns a handler that throws into internal_error, redacted and without a stack', async () => {
    // Act
    const result = failure(await call(envelope('exploder', {})));

    // Assess
    expect(result.error).toEqual({
      code: 'internal_error',
      message: 'Tool exploder failed: cannot reach <redacted> with <redacted>',
      retryable: false,
      details: { errorName: 'Error' },
    });
    expect(result.summary).toBe(
      'internal_error: Tool exploder failed: cannot reach <redacted> with <redacted>',
    );
    const text = JSON.stringify(result);
    expect(text).not.toContain(SLACK_TOKEN);
    expect(text).not.toMatch(/\bat .+\.ts:\d+/);
  });

  it('turns an invoker that throws (the Lambda call failed) into an ok:false result', async () => {
    // Prepare
    const broken: ToolInvoker = {
      invoke: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
      },
    };

    // Act
    const result = failure(await call(envelope('no_params', {}), { invoker: broken }));

    // Assess
    expect(result.error).toEqual({
      code: 'network_error',
      message: 'connect ECONNREFUSED 127.0.0.1:9',
      retryable: true,
      details: { errno: 'ECONNREFUSED' },
    });
  });

  it('bounds a 7 MB result to maxResultBytes, well-formed, marked truncated, keeping its shape', async () => {
    // Prepare
    const fullBytes = Buffer.byteLength(JSON.stringify(bigValue()));

    // Act
    const result = success(await call(envelope('big_result', {})));

    // Assess
    expect(fullBytes).toBeGreaterThan(7 * 1024 * 1024);
    const text = JSON.stringify(result);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(JSON.parse(text)).toEqual(result);
    expect(result.truncated).toBe(true);
    const value = result.value as ReturnType<typeof bigValue>;
    expect(value.total).toBe(ROWS_IN_BIG_RESULT);
    expect(value.rows.length).toBeGreaterThan(100);
    expect(value.rows.length).toBeLessThan(ROWS_IN_BIG_RESULT);
    value.rows.forEach((row, i) => {
      expect(row).toEqual({ id: `row-${i}`, payload: 'x'.repeat(96) });
    });
  });

  it('never mutates the envelope, args included', async () => {
    // Prepare
    const frozen = deepFreeze(envelope('aws_ec2_inventory', { regions: ['eu-west-1'] }));
    const before = structuredClone(frozen);
    ec2Mock.on(DescribeInstancesCommand).resolves({ Reservations: [] });

    // Act
    const result = await call(frozen);

    // Assess
    expect(success(result).value).toMatchObject({ totalInstances: 0 });
    expect(frozen).toEqual(before);
    // The tool received the defaults on a copy.
    expect(invoker.calls[0]?.args).toEqual({ regions: ['eu-west-1'], topN: 20 });
  });

  it('redacts credentials in a tool result value', async () => {
    // Act
    const result = success(
      await call(envelope('echo_text', { text: `token ${SLACK_TOKEN}`, api_key: 'k-123' })),
    );

    // Assess
    expect(result.value).toEqual({ echoed: { text: 'token <redacted>', api_key: '<redacted>' } });
  });
});

describe('logs', () => {
  it('logs the call and its result with every credential in the args masked', async () => {
    // Act
    await call(
      envelope('echo_text', { text: `post to ${WEBHOOK_URL} as ${SLACK_TOKEN}`, api_key: 'k-987654' }),
    );

    // Assess
    const entries = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.map((entry) => entry.message)).toEqual(['tool call', 'tool result']);
    expect(entries[0]).toMatchObject({
      level: 'INFO',
      tenant: 'default',
      scenario: 'ops_review',
      scenarioLevel: 'collect',
      tool: 'echo_text',
      callId: 'collect/0',
      args: { text: 'post to <redacted> as <redacted>', api_key: '<redacted>' },
    });
    expect(entries[1]).toMatchObject({
      level: 'INFO',
      tool: 'echo_text',
      ok: true,
      truncated: false,
    });
    const all = logLines.join('\n');
    expect(all).not.toContain(SLACK_TOKEN);
    expect(all).not.toContain('XXXXXXXXXXXXXXXXXXXXXXXX');
    expect(all).not.toContain('k-987654');
  });
});
