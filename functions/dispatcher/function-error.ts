import { PlatformError } from '../runtime/errors';
import type { ToolSpec } from '../runtime/spec';

/**
 * Lambda's `errorType` for an invocation cut at the function's timeout ("Lambda
 * function timeout", Lambda developer guide: `Sandbox.Timedout`, with the message
 * "Task timed out after N seconds"; older runtimes sent no type, only that message).
 */
const TIMEOUT_ERROR_TYPE = 'Sandbox.Timedout';
const TIMEOUT_MESSAGE = /Task timed out after/;

/**
 * The error of a tool function that failed as a function (`FunctionError` set:
 * a crash, a timeout, an oversized response) rather than returning a ToolResult:
 *
 * - a timeout is `timeout`, retryable for a tool without side effects;
 * - for a `write` tool, the post (or whatever it writes) may have gone out before
 *   the function died: `details.effect: 'unknown'`, not retryable, the message
 *   saying so (docs/errors.md, "Write tools"). A retry of the same call meets its
 *   exactly-once record and never writes twice;
 * - anything else is `internal_error` naming Lambda's error type.
 */
export function functionFailure(
  spec: ToolSpec,
  functionError: string,
  errorType: string | undefined,
  errorMessage: string | undefined,
): PlatformError {
  const timedOut = errorType === TIMEOUT_ERROR_TYPE || TIMEOUT_MESSAGE.test(errorMessage ?? '');
  const write = spec.sideEffects === 'write';
  const what = `The ${spec.name} function failed: ${errorType ?? functionError}: ${errorMessage ?? 'no message'}`;
  const details = {
    functionError,
    errorType,
    ...(write ? { effect: 'unknown' } : {}),
  };
  const message = write ? `${what}; not retried: it may have taken effect` : what;
  return new PlatformError(timedOut ? 'timeout' : 'internal_error', message, {
    service: 'lambda',
    retryable: timedOut && !write,
    details,
  });
}
