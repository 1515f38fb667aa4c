import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { PlatformError } from '../runtime/errors';
import type { ToolInvocation } from '../runtime/invocation';
import type { ToolResult } from '../runtime/result';
import type { ToolSpec } from '../runtime/spec';
import { functionFailure } from './function-error';
import type { ToolInvoker } from './invoker';

/**
 * Whether a function's payload has the ToolResult shape: `ok`, `tool`, `callId`,
 * `durationMs`, and `value` (success) or `error.code` + `error.message` (failure).
 * Anything less would reach Step Functions as a result no later state can read.
 */
function isToolResult(value: unknown): value is ToolResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const result = value as Record<string, unknown>;
  if (
    typeof result.tool !== 'string' ||
    typeof result.callId !== 'string' ||
    typeof result.durationMs !== 'number'
  ) {
    return false;
  }
  if (result.ok === true) return 'value' in result;
  const error = result.error as Record<string, unknown> | null | undefined;
  return (
    result.ok === false &&
    typeof error === 'object' &&
    error !== null &&
    typeof error.code === 'string' &&
    typeof error.message === 'string'
  );
}

/**
 * Invokes a tool's own function synchronously (`RequestResponse`), by the name
 * `functionNameOf` gives (deployed: `toolFunctionName(prefix, tool)`). A function
 * error becomes `timeout` (the function's timeout) or `internal_error` (a crash,
 * an oversized response) naming the function's error type, with
 * `details.effect: 'unknown'` for a write tool (./function-error.ts); Lambda API
 * errors are left to `normalizeError`.
 */
export class LambdaToolInvoker implements ToolInvoker {
  constructor(
    private readonly lambda: LambdaClient,
    private readonly functionNameOf: (tool: string) => string,
  ) {}

  async invoke(spec: ToolSpec, invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult> {
    const functionName = this.functionNameOf(spec.name);
    const response = await this.lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'RequestResponse',
        Payload: Buffer.from(JSON.stringify(invocation)),
      }),
      { abortSignal: signal },
    );
    const text = response.Payload ? Buffer.from(response.Payload).toString('utf8') : '';
    let payload: unknown;
    try {
      payload = text ? JSON.parse(text) : undefined;
    } catch {
      payload = undefined;
    }
    if (response.FunctionError) {
      const { errorType, errorMessage } = (payload ?? {}) as { errorType?: string; errorMessage?: string };
      throw functionFailure(spec, response.FunctionError, errorType, errorMessage);
    }
    if (!isToolResult(payload)) {
      throw new PlatformError(
        'internal_error',
        `The ${spec.name} function returned something other than a ToolResult`,
        {
          service: 'lambda',
          // A write tool may have written before it answered something else.
          ...(spec.sideEffects === 'write' ? { details: { effect: 'unknown' } } : {}),
        },
      );
    }
    return payload;
  }
}
