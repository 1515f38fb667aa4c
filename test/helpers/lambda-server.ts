/**
 * A local Lambda Invoke API, so a real `LambdaClient({ endpoint })` (and the
 * dispatcher's `LambdaToolInvoker` on it) runs end to end against in-process
 * handlers. Behavior follows the Lambda API reference, "Invoke":
 * `POST /2015-03-31/functions/{FunctionName}/invocations`, the event as the
 * body, the handler's result as the response body; a handler that throws
 * answers 200 with `X-Amz-Function-Error: Unhandled` and
 * `{ errorType, errorMessage, trace }`; an unknown function is a 404
 * `ResourceNotFoundException`. An `Event` invocation is answered 202 at once and
 * its handler run afterwards, once: the platform's functions have no
 * asynchronous retries (`EventInvokeConfig` `MaximumRetryAttempts: 0`).
 */
import type { ServerResponse } from 'node:http';
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
import { LAMBDA_SYNC_PAYLOAD_BYTES } from '../../functions/runtime/result-limits';
import { fakeLambdaContext } from './events';
import { FAKE_AWS_CREDENTIALS, listenOnLoopback, type ReceivedRequest, sendJson } from './loopback-server';

/** An in-process function: what the Node.js runtime would call. */
export type LocalHandler = (event: unknown, context: Context) => unknown;

/** One invocation the server received. */
export interface LocalInvocation {
  /** The function name (resolved from an ARN when one was sent). */
  readonly functionName: string;
  /** The `X-Amz-Invocation-Type` header; the SDK's default is `RequestResponse`. */
  readonly invocationType: string;
  /** The parsed event. */
  readonly event: unknown;
}

/** What the server is started with. */
export interface LambdaServerOptions {
  /** Function name → handler. More can be added with {@link LocalLambda.setFunction}. */
  readonly functions?: Readonly<Record<string, LocalHandler>>;
  /** Each function's timeout, in ms; past it the invocation fails as Lambda's `Sandbox.Timedout`. @default 60_000 */
  readonly timeoutMs?: number;
}

/** A running local Lambda. */
export interface LocalLambda {
  /** `http://127.0.0.1:<port>`: the `endpoint` of a LambdaClient. */
  readonly endpoint: string;
  /** A LambdaClient on {@link endpoint} with fake credentials and no retries; destroyed by {@link stop}. */
  readonly client: LambdaClient;
  /** Every invocation received, in order. */
  readonly invocations: readonly LocalInvocation[];
  /** Adds or replaces a function. */
  setFunction(name: string, handler: LocalHandler): void;
  /** Resolves once every `Event` invocation received so far has run. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** `arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]` → name; a plain name as is. */
function functionNameOf(identifier: string): string {
  const arn = /^arn:aws[a-z-]*:lambda:[^:]+:\d{12}:function:([^:]+)/.exec(identifier);
  if (arn?.[1]) return arn[1];
  return identifier.split(':')[0] ?? identifier;
}

/**
 * Starts the local Lambda on 127.0.0.1 (OS-chosen port). `RequestResponse` and
 * `Event` invocations are served; `DryRun` is rejected as unsupported here.
 *
 * @example
 * const lambda = await startLambdaServer({ functions: { 'etp-echo': async (event) => event } });
 * const invoker = new LambdaToolInvoker(lambda.client, { echo: 'etp-echo' });
 * await lambda.stop();
 */
export async function startLambdaServer(options: LambdaServerOptions = {}): Promise<LocalLambda> {
  const functions = new Map(Object.entries(options.functions ?? {}));
  const timeoutMs = options.timeoutMs ?? 60_000;
  const invocations: LocalInvocation[] = [];
  const running = new Set<Promise<unknown>>();

  const invoke = async (request: ReceivedRequest, response: ServerResponse) => {
    const route = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(request.path);
    if (request.method !== 'POST' || !route?.[1]) {
      return sendError(response, 404, 'UnknownOperationException', `Unknown operation ${request.path}`);
    }
    const functionName = functionNameOf(decodeURIComponent(route[1]));
    const handler = functions.get(functionName);
    if (!handler) {
      return sendError(
        response,
        404,
        'ResourceNotFoundException',
        `Function not found: arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
      );
    }
    const invocationType = String(request.headers['x-amz-invocation-type'] ?? 'RequestResponse');
    if (invocationType !== 'RequestResponse' && invocationType !== 'Event') {
      return sendError(
        response,
        400,
        'InvalidParameterValueException',
        `The local Lambda serves RequestResponse and Event only, not ${invocationType}`,
      );
    }
    let event: unknown;
    try {
      event = request.body === '' ? {} : JSON.parse(request.body);
    } catch {
      return sendError(
        response,
        400,
        'InvalidRequestContentException',
        'Could not parse request body into json',
      );
    }
    invocations.push({ functionName, invocationType, event });
    const context = fakeLambdaContext({ functionName, timeoutMs });
    if (invocationType === 'Event') {
      // Queued and accepted: the caller does not wait for the function (Lambda API Reference, "Invoke": 202).
      response.writeHead(202, { 'content-length': 0 });
      response.end();
      const run = runWithTimeout(() => handler(event, context), timeoutMs).finally(() => running.delete(run));
      running.add(run);
      return;
    }
    const outcome = await runWithTimeout(() => handler(event, context), timeoutMs);
    const headers = { 'x-amz-executed-version': '$LATEST' };
    if (!outcome.ok) {
      return sendJson(response, 200, outcome.error, { ...headers, 'x-amz-function-error': 'Unhandled' });
    }
    // A handler's undefined result reaches the caller as JSON null, as in Lambda.
    const body = JSON.stringify(outcome.value ?? null);
    if (Buffer.byteLength(body) > LAMBDA_SYNC_PAYLOAD_BYTES) {
      return sendJson(
        response,
        200,
        {
          errorType: 'Function.ResponseSizeTooLarge',
          errorMessage: `Response payload size exceeded maximum allowed payload size (${LAMBDA_SYNC_PAYLOAD_BYTES} bytes).`,
        },
        { ...headers, 'x-amz-function-error': 'Unhandled' },
      );
    }
    response.writeHead(200, {
      ...headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  };

  const idle = async () => {
    while (running.size > 0) await Promise.all([...running]);
  };
  const server = await listenOnLoopback(invoke);
  const client = new LambdaClient({
    endpoint: server.url,
    region: 'us-east-1',
    credentials: FAKE_AWS_CREDENTIALS,
    maxAttempts: 1,
  });
  return {
    endpoint: server.url,
    client,
    invocations,
    setFunction(name, handler) {
      functions.set(name, handler);
    },
    idle,
    async stop() {
      await idle();
      client.destroy();
      await server.stop();
    },
  };
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: Record<string, unknown> };

/** Runs a handler as the Node.js runtime reports it: its result, or its error as `{ errorType, errorMessage, trace }`. */
async function runWithTimeout(run: () => unknown, timeoutMs: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Outcome>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          ok: false,
          error: {
            errorType: 'Sandbox.Timedout',
            errorMessage: `Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`,
          },
        }),
      timeoutMs,
    );
  });
  const ran = (async (): Promise<Outcome> => {
    try {
      return { ok: true, value: await run() };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      return {
        ok: false,
        error: {
          errorType: error.name,
          errorMessage: error.message,
          trace: (error.stack ?? '').split('\n'),
        },
      };
    }
  })();
  try {
    return await Promise.race([ran, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** A Lambda API error: the SDK reads the type from `x-amzn-ErrorType`. */
function sendError(response: ServerResponse, status: number, type: string, message: string): void {
  sendJson(response, status, { Type: 'User', message }, { 'x-amzn-errortype': type });
}
