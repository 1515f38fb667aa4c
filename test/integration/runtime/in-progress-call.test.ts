/**
 * A write tool's call made again while its first attempt still runs — a Step
 * Functions Retry after a Lambda service error (the dispatcher ran; a callback
 * Task's retry carries a new task token), the dispatcher's Invoke retried by the
 * SDK, a caller repeating the call — gets the first attempt's outcome, not a
 * `throttled` no one retries. The records live on dynalite (Powertools' DynamoDB
 * layer, as deployed); the tool's function is its real handler.
 */
import { createHash } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import * as z from 'zod/mini';
import { callbackServices, LocalTaskTokens } from '../../../bin/local/local-callbacks';
import type { ToolInvocation } from '../../../functions/runtime/invocation';
import { logger } from '../../../functions/runtime/logger';
import { createPostCall } from '../../../functions/runtime/post-call';
import type { ToolResult } from '../../../functions/runtime/result';
import { defineTool, defineToolSpec, type Tool } from '../../../functions/runtime/spec';
import { createToolHandler } from '../../../functions/runtime/tool-handler';
import { createIdempotencyTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';
import { fakeLambdaContext } from '../../helpers/events';

let dynamo: LocalDynamoDb;
let table: string;
let runSequence = 0;

/** A write tool whose every effect is counted, each held until `release()`. */
function gatedWriteTool() {
  const effects: number[] = [];
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const tool = defineTool(
    defineToolSpec({
      name: 'test_post',
      description: 'Posts.',
      inputSchema: () => z.strictObject({ text: z.string() }),
      tags: [],
      requiresSecrets: [],
      sideEffects: 'write',
      iam: [],
    }),
    async (_ctx, args) => {
      effects.push(effects.length + 1);
      await gate;
      return { value: { posted: args.text, effect: effects.length }, summary: 'posted' };
    },
  ) as unknown as Tool;
  return { tool, effects, release: () => open() };
}

function call(): ToolInvocation {
  return {
    tool: 'test_post',
    tenant: 'acme',
    scenario: 'aws_pulse',
    level: 'report',
    runId: `run-in-progress-${runSequence}`,
    callId: 'report/0',
    args: { text: 'AWS pulse' },
  };
}

/** Resolves once `predicate` holds (checked every 10 ms), or fails after 5 s. */
async function until(predicate: () => boolean): Promise<void> {
  for (let waited = 0; !predicate(); waited += 10) {
    if (waited > 5_000) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  dynamo = await startDynalite();
  table = await createIdempotencyTable(dynamo.client);
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    SECRET_REFS_TABLE: 'etp-unused',
    IDEMPOTENCY_TABLE: table,
  });
}, 30_000);

afterAll(async () => {
  for (const name of ['AWS_ENDPOINT_URL_DYNAMODB', 'SECRET_REFS_TABLE', 'IDEMPOTENCY_TABLE']) {
    delete process.env[name];
  }
  await dynamo.stop();
});

beforeEach(() => {
  runSequence++;
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => jest.restoreAllMocks());

describe('a write call made again while its first attempt runs', () => {
  it("returns the first attempt's result to the second, and writes once", async () => {
    // Prepare
    const { tool, effects, release } = gatedWriteTool();
    const handler = createToolHandler(tool);
    const first = handler(call(), fakeLambdaContext({ timeoutMs: 30_000 }));
    await until(() => effects.length === 1);

    // Act: the second attempt starts while the first holds the record, which then finishes.
    const second = handler(call(), fakeLambdaContext({ timeoutMs: 30_000 }));
    setTimeout(release, 300);
    const results: ToolResult[] = await Promise.all([first, second]);

    // Assess
    expect(effects).toEqual([1]);
    expect(results[0]).toMatchObject({ ok: true, value: { posted: 'AWS pulse', effect: 1 } });
    expect(results[1]).toEqual(results[0]);
  });

  it("answers a retried callback Task's new token with the call's one result", async () => {
    // Prepare: two deliveries of one call, each with its Task attempt's own token.
    const { tool, effects, release } = gatedWriteTool();
    const tokens = new LocalTaskTokens();
    const postCall = createPostCall({ logger, maxResultBytes: 8 * 1024 });
    const handler = createToolHandler(tool, {
      callbacks: () => callbackServices({ postCall, tokens, logger }),
    });
    const attempt = tokens.issue();
    const retry = tokens.issue();
    const firstDone = handler(
      { ...call(), taskToken: attempt.token },
      fakeLambdaContext({ timeoutMs: 30_000 }),
    );
    await until(() => effects.length === 1);

    // Act
    const retryDone = handler(
      { ...call(), taskToken: retry.token },
      fakeLambdaContext({ timeoutMs: 30_000 }),
    );
    setTimeout(release, 300);
    await Promise.all([firstDone, retryDone]);

    // Assess: both tokens answered (the first one Step Functions would find gone), once written.
    expect(effects).toEqual([1]);
    const [answer, retryAnswer] = (await Promise.all([attempt.answered, retry.answered])) as ToolResult[];
    expect(answer).toMatchObject({ ok: true, value: { posted: 'AWS pulse', effect: 1 } });
    expect(retryAnswer).toEqual(answer);
    expect(tokens.pending).toBe(0);
  });

  it('gives up at its own deadline with throttled call_in_progress, having written nothing', async () => {
    // Prepare
    const { tool, effects, release } = gatedWriteTool();
    const handler = createToolHandler(tool);
    const first = handler(call(), fakeLambdaContext({ timeoutMs: 30_000 }));
    await until(() => effects.length === 1);

    // Act: the second attempt's function has 1.5 s; the first runs on.
    const started = Date.now();
    const second = await handler(call(), fakeLambdaContext({ timeoutMs: 1_500 }));
    const waitedMs = Date.now() - started;
    release();
    await first;

    // Assess
    expect(effects).toEqual([1]);
    expect(second).toMatchObject({
      ok: false,
      error: { code: 'throttled', retryable: true, details: { reason: 'call_in_progress' } },
    });
    // It waited, and gave up around its deadline (1.5 s: no margin below 8 s): its last poll
    // starts before the deadline and may end just past it on a loaded machine (1,501 ms seen in
    // CI). Waiting for the first attempt would never return: release() comes after.
    expect(waitedMs).toBeGreaterThanOrEqual(500);
    expect(waitedMs).toBeLessThan(3_000);
  });
});

describe("a write call's record", () => {
  afterEach(() => {
    delete process.env.IDEMPOTENCY_RECORD_SECONDS;
  });

  it('is kept as long as IDEMPOTENCY_RECORD_SECONDS says (the longest run plus its redrive window)', async () => {
    // Prepare: 17 days and an hour, as the CDK sets it for a run that may wait days on answers.
    process.env.IDEMPOTENCY_RECORD_SECONDS = String(17 * 86_400 + 3600);
    const { tool, release } = gatedWriteTool();
    release();
    const before = Math.floor(Date.now() / 1000);

    // Act
    const result = await createToolHandler(tool)(call(), fakeLambdaContext({ timeoutMs: 30_000 }));

    // Assess
    expect(result.ok).toBe(true);
    // Powertools' key: the prefix, then the SHA-256 (base64) of [tenant, runId, callId].
    const { tenant, runId, callId } = call();
    const hash = createHash('sha256')
      .update(JSON.stringify([tenant, runId, callId]))
      .digest('base64');
    const { Item: record } = await dynamo.client.send(
      new GetItemCommand({
        TableName: table,
        Key: { id: { S: `acme#test_post#${hash}` } },
        ConsistentRead: true,
      }),
    );
    expect(record?.status?.S).toBe('COMPLETED');
    const expiration = Number(record?.expiration?.N);
    expect(expiration).toBeGreaterThanOrEqual(before + 17 * 86_400 + 3600);
    expect(expiration).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 17 * 86_400 + 3600);
  });

  it('refuses to run the tool when the variable is no whole number of seconds', async () => {
    // Prepare
    process.env.IDEMPOTENCY_RECORD_SECONDS = '17d';
    const { tool, effects, release } = gatedWriteTool();
    release();

    // Act
    const result = await createToolHandler(tool)(call(), fakeLambdaContext({ timeoutMs: 30_000 }));

    // Assess
    expect(effects).toEqual([]);
    expect(result).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    if (!result.ok)
      expect(result.error.message).toMatch(/IDEMPOTENCY_RECORD_SECONDS must be a whole number of seconds/);
  });
});
