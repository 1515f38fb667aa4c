/**
 * AWS SDK v3 errors. What the SDK already knows decides first: whether it is a
 * service exception at all (`ServiceException.isInstance`, `$fault`,
 * `$metadata.httpStatusCode`), and whether it is throttling, transient or a server
 * failure (Smithy's service-error classifiers, which read the error's `$retryable`
 * trait, its name and its status: the same rules the SDK's retry strategy uses).
 * Our own tables hold only the meanings the SDK does not give: credentials
 * rejected, access denied, an opt-in or a feature not enabled, data not available
 * yet, arguments refused, and a few errors whose service or message changes what
 * they mean.
 */
import { ServiceException } from '@smithy/core/client';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { SdkError } from '@smithy/types';
import { ServiceCallError } from '../errors';
import type { ToolErrorInfo } from '../result';
import {
  type ErrorFields,
  type ErrorMeaning,
  errorInfo,
  fieldsOf,
  meaningIn,
  meaningOfEach,
  stringField,
} from './error-info';
import { TIMEOUT_NAMES } from './network';

/**
 * Meanings the SDK does not classify, by error name (the "Common Errors" pages of
 * the AWS API references and each service's error list). Throttling, timeouts and
 * server failures are not listed: the SDK's classifiers recognize them.
 */
const AWS_MEANINGS: Readonly<Record<string, ErrorMeaning>> = {
  ...meaningOfEach(
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
  ...meaningOfEach(
    ['OptInRequired', 'OptInRequiredException', 'SubscriptionRequiredException', 'BillingViewNotEnabled'],
    'opt_in_required',
    false,
  ),
  ...meaningOfEach(['DataUnavailableException', 'BillExpirationException'], 'data_unavailable', false),
  ...meaningOfEach(
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
  ...meaningOfEach(
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
};

/** Timeouts the SDK counts as transient, answered by a service (`RequestTimeout` of S3) or its client. */
const TIMEOUT_ERRORS: ReadonlySet<string> = new Set([
  ...TIMEOUT_NAMES,
  'RequestTimeout',
  'RequestTimeoutException',
  'RequestExpired',
]);

/**
 * An AWS error whose name alone does not say what happened: the service it came
 * from or its message does. Its explanation leads the normalized message.
 */
interface AwsErrorExplanation extends ErrorMeaning {
  readonly name: string;
  /** Only for errors from this service (the `service` passed to `normalizeError`). */
  readonly service?: string;
  /** Only when the AWS message matches. */
  readonly message?: RegExp;
  readonly explanation: string;
}

/** Checked before {@link AWS_MEANINGS}, first match wins. */
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

/**
 * Whether the error is an answer of an AWS service: a `ServiceException` of the
 * SDK (any client's copy: `isInstance` reads its fields), or an error carrying a
 * fault or the answer's HTTP status. Any other error thrown through a client (a
 * refused connection, a socket timeout) also gets `$metadata` (`attempts`, from
 * the retry middleware), so `$metadata` alone does not make an AWS answer.
 */
export function isAwsServiceError(err: unknown): boolean {
  const fields = fieldsOf(err);
  return (
    ServiceException.isInstance(err) ||
    fields.$fault === 'client' ||
    fields.$fault === 'server' ||
    typeof fieldsOf(fields.$metadata).httpStatusCode === 'number'
  );
}

/**
 * Whether the error is the SDK's "no credentials could be loaded"
 * (`CredentialsProviderError` of @smithy/property-provider, raised by the
 * credential chain before any request is sent: no environment keys, profile,
 * SSO session, container or instance role): nothing was refused, there was
 * nothing to sign with. A {@link ServiceCallError}'s cause is looked at.
 */
export function isMissingCredentials(err: unknown): boolean {
  const cause = err instanceof ServiceCallError ? err.cause : err;
  return stringField(fieldsOf(cause).name) === 'CredentialsProviderError';
}

/** How the SDK classifies the error, or what its status says when the SDK has no rule for it. */
function classified(err: ErrorFields, name: string, status: number | undefined): ErrorMeaning {
  const sdkError = err as unknown as SdkError;
  if (isThrottlingError(sdkError) || status === 429) return { code: 'throttled', retryable: true };
  if (/NotFound|^NoSuch/.test(name) || status === 404) return { code: 'not_found', retryable: false };
  if (isTransientError(sdkError)) {
    return { code: TIMEOUT_ERRORS.has(name) ? 'timeout' : 'upstream_error', retryable: true };
  }
  if (isServerError(sdkError) || err.$fault === 'server') return { code: 'upstream_error', retryable: true };
  if (status === 403) return { code: 'access_denied', retryable: false };
  return { code: 'upstream_error', retryable: false };
}

/**
 * The normalized error of an AWS service exception ({@link isAwsServiceError}):
 * an explanation for the service or message first, then our meaning tables, then
 * the SDK's classification. `details` carry the AWS error name, the request id
 * and the HTTP status.
 */
export function awsErrorInfo(err: unknown, message: string, service: string | undefined): ToolErrorInfo {
  const fields = fieldsOf(err);
  const name = stringField(fields.name) ?? stringField(fields.Code) ?? 'UnknownError';
  const metadata = fieldsOf(fields.$metadata);
  const status = typeof metadata.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
  const details: ErrorFields = { awsError: name };
  if (metadata.requestId) details.requestId = metadata.requestId;
  if (status !== undefined) details.httpStatusCode = status;
  const explained = AWS_ERROR_EXPLANATIONS.find(
    (e) =>
      e.name === name &&
      (e.service === undefined || e.service === service) &&
      (e.message === undefined || e.message.test(message)),
  );
  const mapping = explained ?? meaningIn(AWS_MEANINGS, name) ?? classified(fields, name, status);
  const text = explained ? `${explained.explanation} (${name}: ${message})` : `${name}: ${message}`;
  return errorInfo(mapping.code, text, mapping.retryable, service, details);
}
