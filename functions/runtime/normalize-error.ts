import { type ErrorCode, PlatformError, ServiceCallError } from './errors';
import { redact, redactString } from './redact';
import type { ToolErrorInfo } from './result';

/**
 * A connector's own error table: returns the normalized error for what it
 * recognizes (its SDK's errors), `undefined` for anything else, which then gets
 * the generic mapping. Its message and details are redacted and bounded by
 * {@link normalizeError} like any other.
 */
export type ErrorMapper = (err: unknown) => ToolErrorInfo | undefined;

/** Longest `message` a normalized error carries, in characters. */
export const MAX_ERROR_MESSAGE_CHARS = 1000;

interface Mapping {
  readonly code: ErrorCode;
  readonly retryable: boolean;
}

/**
 * AWS SDK v3 service exception names (the `name` of `ServiceException`), from the
 * "Common Errors" pages of the AWS API references and each service's error list.
 */
const AWS_ERROR_NAMES: Record<string, Mapping> = {
  ...names(
    [
      'Throttling',
      'ThrottlingException',
      'ThrottledException',
      'TooManyRequestsException',
      'RequestLimitExceeded',
      'RequestThrottled',
      'RequestThrottledException',
      'SlowDown',
      'ProvisionedThroughputExceededException',
      'LimitExceededException',
      'PriorRequestNotComplete',
      'BandwidthLimitExceeded',
      'EC2ThrottledException',
    ],
    'throttled',
    true,
  ),
  ...names(
    [
      'AccessDenied',
      'AccessDeniedException',
      'UnauthorizedOperation',
      'UnauthorizedAccess',
      'AuthorizationError',
      'AuthorizationErrorException',
      'Forbidden',
      'AllAccessDisabled',
      'AccountProblem',
    ],
    'access_denied',
    false,
  ),
  ...names(
    ['OptInRequired', 'OptInRequiredException', 'SubscriptionRequiredException', 'BillingViewNotEnabled'],
    'opt_in_required',
    false,
  ),
  ...names(['DataUnavailableException', 'BillExpirationException'], 'data_unavailable', false),
  ...names(
    [
      'UnrecognizedClientException',
      'InvalidClientTokenId',
      'ExpiredToken',
      'ExpiredTokenException',
      'InvalidAccessKeyId',
      'SignatureDoesNotMatch',
      'AuthFailure',
      'InvalidSignatureException',
      'IncompleteSignature',
      'MissingAuthenticationToken',
      'CredentialsProviderError',
      'InvalidToken',
      'TokenRefreshRequired',
      'RegionDisabledException',
    ],
    'auth_failed',
    false,
  ),
  ...names(
    [
      'ValidationException',
      'ValidationError',
      'InvalidParameterValue',
      'InvalidParameterValueException',
      'InvalidParameterCombination',
      'InvalidParameterException',
      'MissingParameter',
      'InvalidInput',
      'InvalidInputException',
      'InvalidNextTokenException',
      'InvalidArgument',
      'MalformedPolicyDocument',
    ],
    'invalid_args',
    false,
  ),
  ...names(
    ['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'AbortError', 'RequestExpired'],
    'timeout',
    true,
  ),
  ...names(
    [
      'InternalError',
      'InternalFailure',
      'InternalServerError',
      'InternalServerException',
      'InternalServiceError',
      'ServiceUnavailable',
      'ServiceUnavailableException',
      'ServiceFailureException',
      'Unavailable',
    ],
    'upstream_error',
    true,
  ),
};

/**
 * An AWS error whose name alone does not say what happened: the service it came
 * from or its message does. Its explanation leads the normalized message.
 */
interface AwsErrorExplanation extends Mapping {
  readonly name: string;
  /** Only for errors from this service (the `service` passed to `normalizeError`). */
  readonly service?: string;
  /** Only when the AWS message matches. */
  readonly message?: RegExp;
  readonly explanation: string;
}

/** Checked before {@link AWS_ERROR_NAMES}, first match wins. */
const AWS_ERROR_EXPLANATIONS: readonly AwsErrorExplanation[] = [
  {
    // Cost Explorer answers AccessDeniedException "User not enabled for cost explorer access"
    // until Cost Explorer is enabled for the account (Cost Management User Guide,
    // "Enabling Cost Explorer"): an opt-in, not a missing IAM permission.
    name: 'AccessDeniedException',
    message: /not enabled for cost explorer/i,
    code: 'opt_in_required',
    retryable: false,
    explanation:
      'Cost Explorer is not enabled for this account: enable it in the Billing and Cost Management console (data appears within 24 hours)',
  },
  {
    // Compute Optimizer API reference, "Common Errors": the account has not opted in.
    name: 'OptInRequiredException',
    service: 'compute-optimizer',
    code: 'opt_in_required',
    retryable: false,
    explanation:
      'The account is not enrolled in Compute Optimizer: enroll it (console or UpdateEnrollmentStatus); recommendations follow within 24 hours',
  },
  {
    name: 'DataUnavailableException',
    service: 'ce',
    code: 'data_unavailable',
    retryable: false,
    explanation: 'Cost Explorer has no data for this request yet; this is not a cost of 0',
  },
];

/** Node.js system error codes of failed connections (Node.js docs, "Common system errors"; undici's `UND_ERR_*`). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ECONNABORTED',
]);

/**
 * Error names of a request cut by its timeout: `TimeoutError` is what `fetch`
 * rejects with when its `AbortSignal.timeout()` fires (a DOMException whose
 * numeric `code` is 23) and what `@smithy/node-http-handler` throws; `AbortError`
 * is an aborted request, which here only a deadline's signal aborts.
 */
const TIMEOUT_NAMES = new Set(['TimeoutError', 'AbortError']);

function names(list: readonly string[], code: ErrorCode, retryable: boolean): Record<string, Mapping> {
  return Object.fromEntries(list.map((name) => [name, { code, retryable }]));
}

/**
 * The mapping of a name the remote service chose (an AWS error name, a Slack
 * error string), looked up as an own property only: `constructor` or
 * `__proto__` in an answer is an unknown name, never Object.prototype's member.
 */
function mappingOf(table: Record<string, Mapping>, name: string): Mapping | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

type Fields = Record<string, unknown>;

function fieldsOf(err: unknown): Fields {
  return err !== null && typeof err === 'object' ? (err as Fields) : {};
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The error and its `cause`s, outermost first (at most 4: causes may loop). */
function causeChain(err: Fields): Fields[] {
  const chain: Fields[] = [];
  for (let current: unknown = err; chain.length < 4 && current !== null && typeof current === 'object'; ) {
    chain.push(current as Fields);
    current = (current as Fields).cause;
  }
  return chain;
}

/**
 * A timeout error turned into text: the Slack clients wrap a rejection that is
 * not an `Error` of their own realm as `new Error(String(err))` (a DOMException
 * from `fetch` when the code runs in a VM context, as under Jest), which keeps
 * only `TimeoutError: …` in the message.
 */
const STRINGIFIED_TIMEOUT = /^(TimeoutError|AbortError): /;

/** Whether the error, or one of its causes, is a request cut by a timeout (by name or Node's error code). */
function isTimeout(fields: Fields): boolean {
  return causeChain(fields).some(
    (e) =>
      TIMEOUT_NAMES.has(str(e.name) ?? '') ||
      TIMEOUT_CODES.has(str(e.code) ?? '') ||
      STRINGIFIED_TIMEOUT.test(str(e.message) ?? ''),
  );
}

function boundMessage(message: string): string {
  const clean = redactString(message);
  return clean.length > MAX_ERROR_MESSAGE_CHARS ? `${clean.slice(0, MAX_ERROR_MESSAGE_CHARS - 1)}…` : clean;
}

function info(
  code: ErrorCode,
  message: string,
  retryable: boolean,
  service?: string,
  details?: Fields,
): ToolErrorInfo {
  const cleanDetails = details && Object.keys(details).length > 0 ? redact(details) : undefined;
  return {
    code,
    message: boundMessage(message),
    retryable,
    ...(service ? { service } : {}),
    ...(cleanDetails ? { details: cleanDetails } : {}),
  };
}

/**
 * An AWS SDK v3 service exception: `$fault`, and the HTTP status in `$metadata`.
 * Any other error thrown through a client (a refused connection, a socket
 * timeout) also gets `$metadata` (`attempts`, from the retry middleware), so
 * `$metadata` alone does not make an AWS answer.
 */
function isAwsError(fields: Fields): boolean {
  return (
    fields.$fault === 'client' ||
    fields.$fault === 'server' ||
    typeof fieldsOf(fields.$metadata).httpStatusCode === 'number'
  );
}

function awsError(fields: Fields, message: string, service: string | undefined): ToolErrorInfo {
  const name = str(fields.name) ?? str(fields.Code) ?? 'UnknownError';
  const metadata = fieldsOf(fields.$metadata);
  const status = typeof metadata.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
  const details: Fields = { awsError: name };
  if (metadata.requestId) details.requestId = metadata.requestId;
  if (status !== undefined) details.httpStatusCode = status;
  const explained = AWS_ERROR_EXPLANATIONS.find(
    (e) =>
      e.name === name &&
      (e.service === undefined || e.service === service) &&
      (e.message === undefined || e.message.test(message)),
  );
  const mapping =
    explained ??
    mappingOf(AWS_ERROR_NAMES, name) ??
    (/NotFound|^NoSuch/.test(name) || status === 404
      ? { code: 'not_found' as const, retryable: false }
      : undefined) ??
    (status === 429 ? { code: 'throttled' as const, retryable: true } : undefined) ??
    (status === 403 ? { code: 'access_denied' as const, retryable: false } : undefined) ??
    (fields.$fault === 'server' || (status !== undefined && status >= 500)
      ? { code: 'upstream_error' as const, retryable: true }
      : { code: 'upstream_error' as const, retryable: false });
  const text = explained ? `${explained.explanation} (${name}: ${message})` : `${name}: ${message}`;
  return info(mapping.code, text, mapping.retryable, service, details);
}

/** Connection-level failures: Node system errors, possibly wrapped as `cause` (fetch's "fetch failed"). */
function networkError(
  fields: Fields,
  message: string,
  service: string | undefined,
): ToolErrorInfo | undefined {
  for (const current of causeChain(fields)) {
    const code = str(current.code);
    if (code && NETWORK_CODES.has(code)) {
      const timeout = TIMEOUT_CODES.has(code);
      return info(timeout ? 'timeout' : 'network_error', message, true, service, { errno: code });
    }
  }
  if (isTimeout(fields)) return info('timeout', message, true, service);
  return undefined;
}

/**
 * Turns anything a tool (or the dispatcher) threw into a {@link ToolErrorInfo}.
 * The one place errors are mapped (DESIGN.md, "ToolResult"); it never throws.
 *
 * Order: a {@link ServiceCallError} is its cause, reported with the service it
 * names; then the tool's own `mapError` (a connector's error table, such as
 * Slack's in functions/tools/slack/errors.ts); our {@link PlatformError}s keep
 * their code; AWS SDK v3 service exceptions map by `name` then HTTP status;
 * connection failures by Node's error code; anything else is `internal_error`.
 * Messages are redacted and cut to {@link MAX_ERROR_MESSAGE_CHARS}, whoever built them.
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
      return info(mapped.code, mapped.message, mapped.retryable, mapped.service ?? service, mapped.details);
    }
    if (err instanceof PlatformError) {
      return info(err.code, err.message, err.retryable, err.service ?? service, err.details);
    }
    const fields = fieldsOf(err);
    const message = str(fields.message) ?? (typeof err === 'string' ? err : 'Unknown error');
    if (isAwsError(fields)) return awsError(fields, message, service);
    if (str(fields.name) === 'CredentialsProviderError') {
      return info('auth_failed', `No usable AWS credentials: ${message}`, false, service ?? 'sts');
    }
    const network = networkError(fields, message, service);
    if (network) return network;
    return info('internal_error', `Tool ${tool} failed: ${message}`, false, service, {
      errorName: str(fields.name) ?? typeof err,
    });
  } catch {
    return {
      code: 'internal_error',
      message: `Tool ${tool} failed with an error that could not be read`,
      retryable: false,
    };
  }
}
