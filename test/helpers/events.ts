/**
 * Event factories shared by the unit, integration and e2e tests: the native
 * dispatcher envelope, the ToolInvocation a tool's function receives, and a
 * Lambda `Context` whose remaining time really counts down.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { DISPATCHER_CONFIG_GLOBAL, type DispatcherConfigInput } from '../../functions/dispatcher/config';
import type { ToolInvocation } from '../../functions/runtime/invocation';

/** A native dispatcher envelope (docs/design.md, "Dispatcher envelope"). */
export interface NativeEnvelope {
  readonly tenant: string;
  readonly scenario?: string;
  readonly level?: string;
  readonly tool: string;
  readonly args?: unknown;
  readonly runId: string;
  readonly callId: string;
}

/**
 * The envelope of the `aws_pulse` collect level's first call, with `overrides`
 * applied. Pass `{ scenario: undefined, level: undefined }` to send neither
 * (the keys are then absent, as a JSON event would have them).
 *
 * @example
 * nativeEnvelope({ tool: 'slack_post_message', level: 'report', args: { channel: '#ops', text: 'hi' } });
 */
export function nativeEnvelope(overrides: Partial<NativeEnvelope> = {}): NativeEnvelope {
  return withoutUndefined({
    tenant: 'default',
    scenario: 'aws_pulse',
    level: 'collect',
    tool: 'aws_ec2_inventory',
    args: { regions: ['eu-west-1'] },
    runId: 'run-2024-05-01T00-00-00Z',
    callId: 'collect/0',
    ...overrides,
  });
}

/**
 * What the dispatcher hands a tool's function: the envelope's fields with args
 * already validated. `overrides` work as in {@link nativeEnvelope}.
 */
export function toolInvocation(overrides: Partial<ToolInvocation> = {}): ToolInvocation {
  return nativeEnvelope(overrides);
}

/** What {@link fakeLambdaContext} is built from. */
export interface FakeContextOptions {
  /** @default 'etp-test-function' */
  readonly functionName?: string;
  /** The function's configured timeout, in ms; `getRemainingTimeInMillis` counts down from it. @default 60_000 */
  readonly timeoutMs?: number;
  /** @default '256' (MB, as Lambda reports it: a string) */
  readonly memoryLimitInMB?: string;
}

/**
 * A Lambda `Context` (the fields the Node.js runtime sets) whose
 * `getRemainingTimeInMillis()` is the timeout minus the wall time since creation.
 * The deprecated `done`/`fail`/`succeed` callbacks throw: our handlers return promises.
 */
export function fakeLambdaContext(options: FakeContextOptions = {}): Context {
  const functionName = options.functionName ?? 'etp-test-function';
  const timeoutMs = options.timeoutMs ?? 60_000;
  const started = Date.now();
  const unsupported = (): never => {
    throw new Error('callback-style completion is not supported: return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: options.memoryLimitInMB ?? '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2024/05/01/[$LATEST]0123456789abcdef0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Gives the dispatcher handler, about to be loaded, the configuration the CDK
 * bundles into it (esbuild `define` of `ETP_DISPATCHER_CONFIG`): unbundled code
 * reads the same identifier as a global.
 */
export function bundleDispatcherConfig(config: DispatcherConfigInput): void {
  (globalThis as Record<string, unknown>)[DISPATCHER_CONFIG_GLOBAL] = config;
}
