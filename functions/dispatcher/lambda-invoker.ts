import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { PlatformError } from '../runtime/errors';
import type { ToolInvocation } from '../runtime/invocation';
import type { ToolResult } from '../runtime/result';
import type { ToolSpec } from '../runtime/spec';
import type { ToolInvoker } from './invoker';

/** Tool name → function name or ARN, as the CDK writes it into `TOOL_FUNCTIONS`. */
export type ToolFunctions = Readonly<Record<string, string>>;

/**
 * Reads `TOOL_FUNCTIONS` once at load time.
 *
 * @throws Error when it is missing or not a JSON object of strings.
 */
export function toolFunctionsFromEnvironment(env: NodeJS.ProcessEnv = process.env): ToolFunctions {
  const raw = env.TOOL_FUNCTIONS;
  if (!raw) throw new Error('TOOL_FUNCTIONS is not set for the dispatcher');
  const parsed: unknown = JSON.parse(raw);
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Object.values(parsed).some((v) => typeof v !== 'string')
  ) {
    throw new Error('TOOL_FUNCTIONS must be a JSON object { tool: functionName }');
  }
  return parsed as ToolFunctions;
}

function isToolResult(value: unknown): value is ToolResult {
  return value !== null && typeof value === 'object' && typeof (value as { ok?: unknown }).ok === 'boolean';
}

/**
 * Invokes a tool's own function synchronously (`RequestResponse`). A function
 * error (crash, timeout, oversized response) becomes `internal_error`
 * naming the function's error type; Lambda API errors are left to `normalizeError`.
 */
export class LambdaToolInvoker implements ToolInvoker {
  constructor(
    private readonly lambda: LambdaClient,
    private readonly functions: ToolFunctions,
  ) {}

  async invoke(spec: ToolSpec, invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult> {
    const functionName = this.functions[spec.name];
    if (!functionName) {
      throw new PlatformError('internal_error', `No function is deployed for tool ${spec.name}`);
    }
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
      throw new PlatformError(
        'internal_error',
        `The ${spec.name} function failed: ${errorType ?? response.FunctionError}: ${errorMessage ?? 'no message'}`,
        { service: 'lambda', details: { functionError: response.FunctionError, errorType } },
      );
    }
    if (!isToolResult(payload)) {
      throw new PlatformError(
        'internal_error',
        `The ${spec.name} function returned something other than a ToolResult`,
        {
          service: 'lambda',
        },
      );
    }
    return payload;
  }
}
