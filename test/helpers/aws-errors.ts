/**
 * AWS SDK v3 errors shaped as the SDK throws them, for unit tests.
 *
 * Modeled exceptions are the clients' own classes (`new ThrottlingException(…)`);
 * errors a service does not model (EC2's, the Query-protocol errors of STS and
 * IAM) are the client's `ServiceException` with the error code as `name`, which
 * is what the SDK's deserializer builds for them. Every error carries
 * `$metadata` as the retry middleware leaves it (`attempts`, `totalRetryDelay`).
 */
import { DataUnavailableException } from '@aws-sdk/client-cost-explorer';
import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { NoSuchBucket } from '@aws-sdk/client-s3';
import { ResourceNotFoundException } from '@aws-sdk/client-secrets-manager';
import { ExpiredTokenException, STSServiceException } from '@aws-sdk/client-sts';
import type { ResponseMetadata } from '@aws-sdk/types';

/** The request id every factory puts in `$metadata` unless told otherwise. */
export const TEST_REQUEST_ID = '6f1c2d3e-0000-4000-8000-00000000abcd';

/** `$metadata` of a response with `httpStatusCode`, after `attempts` tries. */
export function responseMetadata(
  httpStatusCode: number,
  requestId = TEST_REQUEST_ID,
  attempts = 1,
): ResponseMetadata {
  return { httpStatusCode, requestId, attempts, totalRetryDelay: attempts > 1 ? 150 * attempts : 0 };
}

/** Options of {@link serviceError}, {@link ec2Error} and {@link queryError}. */
export interface AwsErrorOptions {
  readonly httpStatusCode?: number;
  readonly requestId?: string;
  readonly fault?: 'client' | 'server';
}

/** A client's `ServiceException` class (`LambdaServiceException`, `EC2ServiceException`…). */
export type ServiceExceptionClass<E> = new (options: {
  name: string;
  message: string;
  $fault: 'client' | 'server';
  $metadata: ResponseMetadata;
}) => E;

/**
 * An error of any service as its client throws it when the service does not model
 * the code: the client's `ServiceException` with the error code as `name` (what
 * the SDK's deserializer builds for an unmodeled code, whatever the protocol:
 * Query, EC2, JSON, REST-JSON). For a JSON-protocol service such as Lambda:
 * `serviceError(LambdaServiceException, 'AccessDeniedException', 'User is not authorized…', { httpStatusCode: 403 })`.
 * A code the client models (`TooManyRequestsException` of Lambda) is its own class
 * instead (`new TooManyRequestsException({ message, $metadata: responseMetadata(429) })`).
 * `$fault` is `server` from HTTP status 500 on unless `fault` says otherwise.
 */
export function serviceError<E>(
  ServiceException: ServiceExceptionClass<E>,
  code: string,
  message: string,
  options: AwsErrorOptions = {},
): E {
  const status = options.httpStatusCode ?? 400;
  return new ServiceException({
    name: code,
    message,
    $fault: options.fault ?? (status >= 500 ? 'server' : 'client'),
    $metadata: responseMetadata(status, options.requestId),
  });
}

/**
 * An EC2 error (EC2 models none: `RequestLimitExceeded`, `UnauthorizedOperation`,
 * `InvalidInstanceID.NotFound`, `OptInRequired`, `AuthFailure`…). HTTP status
 * from the EC2 API reference, "Error codes": 400 for client errors, 503 for
 * `RequestLimitExceeded`/`Unavailable`, 500 for `InternalError`.
 */
export function ec2Error(code: string, message: string, options: AwsErrorOptions = {}): EC2ServiceException {
  return serviceError(EC2ServiceException, code, message, options);
}

/** An STS/IAM Query-protocol error not modeled by the client (`Throttling`, `AccessDenied`, `InvalidClientTokenId`). */
export function queryError(
  code: string,
  message: string,
  options: AwsErrorOptions = {},
): STSServiceException {
  return serviceError(STSServiceException, code, message, options);
}

/** DynamoDB's modeled `ThrottlingException` (HTTP 400). */
export function throttlingException(message = 'Rate exceeded'): ThrottlingException {
  return new ThrottlingException({ message, $metadata: responseMetadata(400, TEST_REQUEST_ID, 4) });
}

/** STS `ExpiredTokenException`: the session token the request was signed with has expired (HTTP 400). */
export function expiredTokenException(): ExpiredTokenException {
  return new ExpiredTokenException({
    message: 'The security token included in the request is expired',
    $metadata: responseMetadata(400),
  });
}

/** Cost Explorer `DataUnavailableException` (HTTP 400). */
export function dataUnavailableException(): DataUnavailableException {
  return new DataUnavailableException({
    message: 'Data is not available. Please try to adjust the time period.',
    $metadata: responseMetadata(400),
  });
}

/** S3 `NoSuchBucket` (HTTP 404). */
export function noSuchBucket(): NoSuchBucket {
  return new NoSuchBucket({
    message: 'The specified bucket does not exist',
    $metadata: responseMetadata(404),
  });
}

/** Secrets Manager `ResourceNotFoundException` (HTTP 400), as GetSecretValue answers an unknown secret. */
export function secretsManagerNotFound(): ResourceNotFoundException {
  return new ResourceNotFoundException({
    message: "Secrets Manager can't find the specified secret.",
    $metadata: responseMetadata(400),
  });
}

/**
 * A Node.js connection failure as it leaves an SDK client after its retries:
 * the system error (`ECONNREFUSED`, `ENOTFOUND`, `ETIMEDOUT`) with the retry
 * middleware's `$metadata` and no HTTP status.
 */
export function sdkConnectionError(errno: 'ECONNREFUSED' | 'ENOTFOUND' | 'ECONNRESET' | 'ETIMEDOUT'): Error {
  const message =
    errno === 'ENOTFOUND'
      ? 'getaddrinfo ENOTFOUND ec2.eu-west-1.amazonaws.com'
      : `connect ${errno} 127.0.0.1:443`;
  return Object.assign(new Error(message), {
    code: errno,
    errno: -111,
    syscall: errno === 'ENOTFOUND' ? 'getaddrinfo' : 'connect',
    $metadata: { attempts: 4, totalRetryDelay: 1200 },
  });
}

/** `@smithy/node-http-handler`'s socket timeout as it leaves a client: `name: 'TimeoutError'`, no HTTP status. */
export function sdkTimeoutError(): Error {
  return Object.assign(
    new Error(
      '@smithy/node-http-handler - the request socket timed out after 5000 ms of inactivity (configured by client requestHandler).',
    ),
    { name: 'TimeoutError', $metadata: { attempts: 4, totalRetryDelay: 900 } },
  );
}

/**
 * `@smithy/property-provider`'s `CredentialsProviderError`, thrown when the
 * default chain finds no credentials (the class itself is not a dependency here).
 */
export function credentialsProviderError(): Error {
  return Object.assign(new Error('Could not load credentials from any providers'), {
    name: 'CredentialsProviderError',
    tryNextLink: false,
    $metadata: { attempts: 1, totalRetryDelay: 0 },
  });
}
