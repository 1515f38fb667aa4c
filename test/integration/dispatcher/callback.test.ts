/**
 * A plan call through the callback path (issue 20, one function per in-flight
 * call): the dispatcher's checks, the tool's function started asynchronously
 * (`Event`) on the local Lambda Invoke API with the task token, the function
 * running the post-call work and answering the token; and the calls that end in
 * the dispatcher answered by it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import { callbackServices, LocalTaskTokens } from '../../../bin/local/local-callbacks';
import { localWorkspaceProvider } from '../../../bin/local/local-workspace';
import { createCallbackDispatch, LambdaEventHandOff } from '../../../functions/dispatcher/callback';
import { createDispatchCore } from '../../../functions/dispatcher/dispatch';
import { LambdaToolInvoker } from '../../../functions/dispatcher/lambda-invoker';
import { functionTool, ToolCatalog } from '../../../functions/runtime/catalog';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { PlatformError } from '../../../functions/runtime/errors';
import { logger } from '../../../functions/runtime/logger';
import { createPostCall } from '../../../functions/runtime/post-call';
import type { ToolResult } from '../../../functions/runtime/result';
import { defineTool, defineToolSpec, type Tool } from '../../../functions/runtime/spec';
import { createToolHandler } from '../../../functions/runtime/tool-handler';
import { nativeEnvelope } from '../../helpers/events';
import { type LocalLambda, startLambdaServer } from '../../helpers/lambda-server';

const INLINE_BYTES = 8 * 1024;

const listSpec = defineToolSpec({
  name: 'list_items',
  description: 'Lists items.',
  inputSchema: z.strictObject({ count: z.number(), fail: z.optional(z.boolean()) }),
  tags: ['test'],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});
const listTool = defineTool(listSpec, async (_ctx, args) => {
  if (args.fail) throw new PlatformError('throttled', 'The service is throttling', { retryable: true });
  const items = Array.from({ length: args.count }, (_, i) => ({ id: `item-${i}`, note: 'x'.repeat(40) }));
  return { value: { items }, summary: `${items.length} items` };
});
const catalog = new ToolCatalog([functionTool(listSpec, 'test/list-items')]);

let lambda: LocalLambda;
let dir: string;
let tokens: LocalTaskTokens;

function callbackDispatch(functionName = 'etp-list-items') {
  const workspaces = localWorkspaceProvider(dir);
  const options = {
    catalog,
    whitelists: { aws_pulse: { collect: ['list_items'] } },
    invoker: new LambdaToolInvoker(lambda.client, () => functionName),
    services: { logger },
    logger,
    maxResultBytes: INLINE_BYTES,
    requireLevel: true,
    workspaces,
    inlineResultBytes: INLINE_BYTES,
  };
  return createCallbackDispatch({
    core: createDispatchCore(options),
    handOff: new LambdaEventHandOff(lambda.client, () => functionName),
    responder: tokens,
    logger,
  });
}

/** A plan call of list_items through the callback path: the dispatcher's outcome and the Task's answer. */
async function call(args: unknown, functionName?: string) {
  const { token, answered } = tokens.issue();
  const envelope = { ...nativeEnvelope({ tool: 'list_items', args }), taskToken: token };
  const outcome = await callbackDispatch(functionName)(envelope, token, deadlineIn(30_000));
  const result = (await answered) as ToolResult;
  return { token, outcome, result };
}

beforeEach(async () => {
  process.env.SECRET_REFS_TABLE = 'etp-unused';
  dir = mkdtempSync(path.join(tmpdir(), 'etp-callback-'));
  tokens = new LocalTaskTokens();
  const postCall = createPostCall({
    logger,
    maxResultBytes: INLINE_BYTES,
    workspaces: localWorkspaceProvider(dir),
    inlineResultBytes: INLINE_BYTES,
  });
  const handler = createToolHandler(listTool as unknown as Tool, {
    callbacks: () => callbackServices({ postCall, tokens, logger }),
  });
  lambda = await startLambdaServer({ functions: { 'etp-list-items': handler } });
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(async () => {
  jest.restoreAllMocks();
  await lambda.stop();
  rmSync(dir, { recursive: true, force: true });
  delete process.env.SECRET_REFS_TABLE;
});

describe('a plan call through the callback path', () => {
  it("starts the tool's function asynchronously with the token, and the function answers with the result", async () => {
    // Act
    const { token, outcome, result } = await call({ count: 3 });

    // Assess
    expect(outcome).toEqual({ tool: 'list_items', callId: 'collect/0', answeredBy: 'tool' });
    expect(result).toMatchObject({
      ok: true,
      tool: 'list_items',
      callId: 'collect/0',
      value: { items: [{ id: 'item-0' }, { id: 'item-1' }, { id: 'item-2' }] },
      truncated: false,
      resultRef: null,
      summary: '3 items',
    });
    expect(lambda.invocations).toEqual([
      {
        functionName: 'etp-list-items',
        invocationType: 'Event',
        event: {
          tenant: 'default',
          scenario: 'aws_pulse',
          level: 'collect',
          tool: 'list_items',
          args: { count: 3 },
          runId: 'run-2024-05-01T00-00-00Z',
          callId: 'collect/0',
          taskToken: token,
        },
      },
    ]);
    expect(tokens.pending).toBe(0);
  });

  it('claim-checks a result over the inline budget in the tool function, as the dispatcher would', async () => {
    // Act
    const { result } = await call({ count: 400 });

    // Assess
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    expect(result.resultRef).not.toBeNull();
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(INLINE_BYTES);
    const file = fileURLToPath(String(result.resultRef?.uri));
    expect(file.startsWith(path.join(dir, 'runs', 'default', 'aws_pulse', 'run-2024-05-01T00-00-00Z'))).toBe(
      true,
    );
    expect(JSON.parse(readFileSync(file, 'utf8')).value.items).toHaveLength(400);
  });

  it("sends a tool's failure as the Task's result, its error code kept", async () => {
    // Act
    const { outcome, result } = await call({ count: 1, fail: true });

    // Assess
    expect(outcome.answeredBy).toBe('tool');
    expect(result).toMatchObject({
      ok: false,
      tool: 'list_items',
      callId: 'collect/0',
      error: { code: 'throttled', message: 'The service is throttling', retryable: true },
    });
  });

  it('answers a call refused by its checks from the dispatcher, before any function starts', async () => {
    // Act
    const { outcome, result } = await call({ count: 'three' });

    // Assess
    expect(outcome).toEqual({
      tool: 'list_items',
      callId: 'collect/0',
      answeredBy: 'dispatcher',
      answer: 'succeeded',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(lambda.invocations).toEqual([]);
  });

  it('answers from the dispatcher when Lambda does not accept the event', async () => {
    // Act
    const { outcome, result } = await call({ count: 1 }, 'etp-missing');

    // Assess
    expect(outcome.answeredBy).toBe('dispatcher');
    expect(result).toMatchObject({ ok: false, tool: 'list_items', error: { code: 'not_found' } });
  });

  it('drops the answer of a Task that already ended (its timeout), and fails nothing else', async () => {
    // Arrange: the Task times out as soon as the tool is started.
    const { token, answered } = tokens.issue();
    const ended = answered.catch((err: unknown) => err);
    const envelope = { ...nativeEnvelope({ tool: 'list_items', args: { count: 2 } }), taskToken: token };
    await tokens.fail(token, 'States.Timeout', 'Task timed out');

    // Act
    const outcome = await callbackDispatch()(envelope, token, deadlineIn(30_000));
    await lambda.idle();

    // Assess
    expect(outcome.answeredBy).toBe('tool');
    expect(await ended).toMatchObject({ name: 'States.Timeout' });
    expect(tokens.pending).toBe(0);
    expect(lambda.invocations).toHaveLength(1);
  });
});
