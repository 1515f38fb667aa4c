import * as z from 'zod/mini';
import { createDispatcher } from '../../../functions/dispatcher/dispatch';
import { LambdaToolInvoker } from '../../../functions/dispatcher/lambda-invoker';
import { functionTool, ToolCatalog } from '../../../functions/runtime/catalog';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import { assertToolInvocation } from '../../../functions/runtime/invocation';
import { logger } from '../../../functions/runtime/logger';
import type { ToolFailure, ToolResult, ToolSuccess } from '../../../functions/runtime/result';
import { defineTool, defineToolSpec, type Tool } from '../../../functions/runtime/spec';
import { nativeEnvelope } from '../../helpers/events';
import { type LocalHandler, type LocalLambda, startLambdaServer } from '../../helpers/lambda-server';

const sumSpec = defineToolSpec({
  name: 'sum_numbers',
  description: 'Adds numbers.',
  inputSchema: z.strictObject({ numbers: z.array(z.number()).check(z.minLength(1)) }),
  tags: ['test'],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});
const sumTool = defineTool(sumSpec, async (_ctx, args) => {
  const total = args.numbers.reduce((sum, n) => sum + n, 0);
  return { value: { total }, summary: `total ${total}` };
});
const catalog = new ToolCatalog([functionTool(sumSpec, 'test/sum-numbers')]);
const MAX_RESULT_BYTES = 64 * 1024;

/** The tool function's Lambda entry as the harness runs it (services without secrets: the tool needs none). */
const sumFunction: LocalHandler = async (event, context) => {
  assertToolInvocation(event);
  return runTool(sumTool as unknown as Tool, event, deadlineIn(context.getRemainingTimeInMillis()), {
    logger,
  });
};

let lambda: LocalLambda;

/** A dispatcher invoking every tool's function by the name `functionName` gives. */
function dispatcher(functionName: string) {
  return createDispatcher({
    catalog,
    whitelists: {},
    invoker: new LambdaToolInvoker(lambda.client, () => functionName),
    services: { logger },
    logger,
    maxResultBytes: MAX_RESULT_BYTES,
    requireLevel: false,
  });
}

/** Dispatches a sum_numbers call (unscoped, as `etp tools invoke` does) to `functionName`. */
function callSum(functionName: string, args: unknown = { numbers: [1, 2, 39] }, budgetMs = 30_000) {
  const envelope = nativeEnvelope({ scenario: undefined, level: undefined, tool: 'sum_numbers', args });
  return dispatcher(functionName)(envelope, deadlineIn(budgetMs));
}

function failure(result: ToolResult): ToolFailure {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

function success(result: ToolResult): ToolSuccess {
  if (!result.ok) throw new Error(`expected a success, got ${JSON.stringify(result.error)}`);
  return result;
}

beforeEach(async () => {
  lambda = await startLambdaServer({ functions: { 'etp-sum-numbers': sumFunction } });
  // The dispatcher and the tool functions log each call: keep the test output to the results.
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(async () => {
  jest.restoreAllMocks();
  await lambda.stop();
});

describe('LambdaToolInvoker through a real LambdaClient and the local Lambda Invoke API', () => {
  it('passes the function ToolResult through, having sent the validated call', async () => {
    // Act
    const result = success(await callSum('etp-sum-numbers'));

    // Assess
    expect(result).toMatchObject({
      ok: true,
      tool: 'sum_numbers',
      callId: 'collect/0',
      value: { total: 42 },
      truncated: false,
      resultRef: null,
      summary: 'total 42',
    });
    expect(lambda.invocations).toEqual([
      {
        functionName: 'etp-sum-numbers',
        invocationType: 'RequestResponse',
        event: {
          tenant: 'default',
          tool: 'sum_numbers',
          args: { numbers: [1, 2, 39] },
          runId: 'run-2024-05-01T00-00-00Z',
          callId: 'collect/0',
        },
      },
    ]);
  });

  it('invokes by function ARN as well as by name', async () => {
    // Act
    const result = await callSum('arn:aws:lambda:eu-west-1:123456789012:function:etp-sum-numbers');

    // Assess
    expect(success(result).value).toEqual({ total: 42 });
  });

  it('passes a tool failure from the function through unchanged', async () => {
    // Prepare
    lambda.setFunction('etp-sum-numbers', async (event) => {
      assertToolInvocation(event);
      return runTool(sumTool as unknown as Tool, { ...event, args: { numbers: [] } }, deadlineIn(5_000), {
        logger,
      });
    });

    // Act
    const result = failure(await callSum('etp-sum-numbers'));

    // Assess
    expect(result.error).toEqual({
      code: 'invalid_args',
      message:
        'Invalid arguments for sum_numbers: numbers: Too small: expected array to have >=1 items (got an array of 0 entries)',
      retryable: false,
      details: {
        violations: [
          {
            path: 'numbers',
            message: 'Too small: expected array to have >=1 items (got an array of 0 entries)',
          },
        ],
      },
    });
  });

  it('reports a function that throws as internal_error naming its errorType', async () => {
    // Prepare
    class QuotaExhaustedError extends Error {
      override readonly name = 'QuotaExhaustedError';
    }
    lambda.setFunction('etp-sum-numbers', async () => {
      throw new QuotaExhaustedError('no capacity left in the pool');
    });

    // Act
    const result = failure(await callSum('etp-sum-numbers'));

    // Assess
    expect(result.error).toEqual({
      code: 'internal_error',
      message: 'The sum_numbers function failed: QuotaExhaustedError: no capacity left in the pool',
      retryable: false,
      service: 'lambda',
      details: { functionError: 'Unhandled', errorType: 'QuotaExhaustedError' },
    });
  });

  it('reports a response over the 6 MB synchronous limit as internal_error naming Lambda errorType', async () => {
    // Prepare
    lambda.setFunction('etp-sum-numbers', async () => ({ blob: 'x'.repeat(7 * 1024 * 1024) }));

    // Act
    const result = failure(await callSum('etp-sum-numbers'));

    // Assess
    expect(result.error.code).toBe('internal_error');
    expect(result.error.message).toBe(
      'The sum_numbers function failed: Function.ResponseSizeTooLarge: ' +
        'Response payload size exceeded maximum allowed payload size (6291456 bytes).',
    );
    expect(result.error.details).toEqual({
      functionError: 'Unhandled',
      errorType: 'Function.ResponseSizeTooLarge',
    });
  });

  it('reports a function timeout as timeout (retryable) naming Sandbox.Timedout', async () => {
    // Prepare
    await lambda.stop();
    let release = () => {};
    lambda = await startLambdaServer({
      timeoutMs: 100,
      functions: {
        'etp-sum-numbers': () =>
          new Promise((resolve) => {
            release = () => resolve(null);
          }),
      },
    });

    // Act
    const result = failure(await callSum('etp-sum-numbers'));
    release();

    // Assess
    expect(result.error).toEqual({
      code: 'timeout',
      message: 'The sum_numbers function failed: Sandbox.Timedout: Task timed out after 0.10 seconds',
      retryable: true,
      service: 'lambda',
      details: { functionError: 'Unhandled', errorType: 'Sandbox.Timedout' },
    });
  });

  it.each([
    ['an API Gateway response', { statusCode: 200, body: '{"total":42}' }],
    ['a bare ok flag', { ok: true }],
    [
      'a failure without an error code',
      { ok: false, tool: 'sum_numbers', callId: 'collect/0', durationMs: 3 },
    ],
    ['a string', 'done'],
    ['null (a handler that returned nothing)', undefined],
  ])('reports %s as internal_error: not a ToolResult', async (_label, payload) => {
    // Prepare
    lambda.setFunction('etp-sum-numbers', async () => payload);

    // Act
    const result = failure(await callSum('etp-sum-numbers'));

    // Assess
    expect(result.error).toEqual({
      code: 'internal_error',
      message: 'The sum_numbers function returned something other than a ToolResult',
      retryable: false,
      service: 'lambda',
    });
  });

  it('maps a function Lambda does not know to not_found from the Invoke API error', async () => {
    // Act
    const result = failure(await callSum('etp-sum-numbers-deleted'));

    // Assess
    expect(result.error).toMatchObject({
      code: 'not_found',
      retryable: false,
      message:
        'ResourceNotFoundException: Function not found: arn:aws:lambda:us-east-1:123456789012:function:etp-sum-numbers-deleted',
      details: { awsError: 'ResourceNotFoundException', httpStatusCode: 404 },
    });
  });

  it('gives up at the dispatcher deadline with a retryable timeout', async () => {
    // Prepare
    let release = () => {};
    lambda.setFunction(
      'etp-sum-numbers',
      () =>
        new Promise((resolve) => {
          release = () => resolve(null);
        }),
    );

    // Act
    const result = failure(await callSum('etp-sum-numbers', { numbers: [1] }, 200));
    release();

    // Assess
    expect(result.error).toMatchObject({ code: 'timeout', retryable: true });
  });
});
