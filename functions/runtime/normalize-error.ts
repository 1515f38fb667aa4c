/**
 * The one place errors are mapped (docs/design.md, "ToolResult"). Each source of
 * errors has its own module under error-sources/: AWS SDK service exceptions
 * (classified by the SDK first), connection failures and timeouts; this module
 * only decides which source an error comes from.
 */
import { awsErrorInfo, isAwsServiceError, isMissingCredentials } from './error-sources/aws';
import { errorInfo, fieldsOf, stringField } from './error-sources/error-info';
import { networkErrorInfo } from './error-sources/network';
import { type ErrorCode, PlatformError, ServiceCallError } from './errors';
import type { ToolErrorInfo } from './result';

/**
 * A connector's own error table: returns the normalized error for what it
 * recognizes (its SDK's errors), `undefined` for anything else, which then gets
 * the generic mapping. Its message and details are redacted and bounded by
 * {@link normalizeError} like any other.
 */
export type ErrorMapper = (err: unknown) => ToolErrorInfo | undefined;

/**
 * Codes of {@link PlatformError}s that are no service's answer: `invalid_args`
 * (the caller's arguments) and `internal_error` (ours: a setting that breaks its
 * rule, a bug). They carry a service only when they name one, never the tool's.
 */
const OWN_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['invalid_args', 'internal_error']);

/**
 * Turns anything a tool (or the dispatcher) threw into a {@link ToolErrorInfo};
 * it never throws.
 *
 * Order: a {@link ServiceCallError} is its cause, reported with the service it
 * names; then the tool's own `mapError` (a connector's error table, such as
 * Slack's in functions/tools/slack/errors.ts); our {@link PlatformError}s keep
 * their code (and get `service` only when they are a service's answer, see
 * {@link OWN_CODES}); AWS SDK v3 service exceptions (error-sources/aws.ts); connection
 * failures and timeouts (error-sources/network.ts); anything else is
 * `internal_error`. Messages are redacted and cut to `MAX_ERROR_MESSAGE_CHARS`,
 * whoever built them.
 *
 * @param tool - the tool's name, for the `internal_error` message.
 * @param err - whatever was thrown.
 * @param service - the service the tool called, when the error does not say (`ec2`).
 * @param mapError - the tool's own mapper (`Tool.mapError`), consulted first.
 * @example
 * normalizeError('aws_ec2_inventory', Object.assign(new Error('Rate exceeded'),
 *   { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } }));
 * // => { code: 'throttled', retryable: true, message: 'ThrottlingException: Rate exceeded', … }
 */
export function normalizeError(
  tool: string,
  err: unknown,
  service?: string,
  mapError?: ErrorMapper,
): ToolErrorInfo {
  try {
    if (err instanceof ServiceCallError) return normalizeError(tool, err.cause, err.service);
    const mapped = mapError?.(err);
    if (mapped) {
      return errorInfo(
        mapped.code,
        mapped.message,
        mapped.retryable,
        mapped.service ?? service,
        mapped.details,
      );
    }
    if (err instanceof PlatformError) {
      // An argument error is the caller's and an internal error ours (a setting, a bug), not a service's
      // answer: they name a service only when one said it.
      const defaultService = OWN_CODES.has(err.code) ? undefined : service;
      return errorInfo(err.code, err.message, err.retryable, err.service ?? defaultService, err.details);
    }
    const fields = fieldsOf(err);
    const message = stringField(fields.message) ?? (typeof err === 'string' ? err : 'Unknown error');
    if (isAwsServiceError(err)) return awsErrorInfo(err, message, service);
    if (isMissingCredentials(err)) {
      return errorInfo('auth_failed', `No usable AWS credentials: ${message}`, false, service ?? 'sts');
    }
    return (
      networkErrorInfo(fields, message, service) ??
      errorInfo('internal_error', `Tool ${tool} failed: ${message}`, false, service, {
        errorName: stringField(fields.name) ?? typeof err,
      })
    );
  } catch {
    return {
      code: 'internal_error',
      message: `Tool ${tool} failed with an error that could not be read`,
      retryable: false,
    };
  }
}
