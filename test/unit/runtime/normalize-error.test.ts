import {
  ProvisionedThroughputExceededException,
  ResourceNotFoundException,
  TransactionInProgressException,
} from '@aws-sdk/client-dynamodb';
import { LambdaServiceException, TooManyRequestsException } from '@aws-sdk/client-lambda';
import { ExpiredTokenException } from '@aws-sdk/client-sts';
import { MAX_ERROR_MESSAGE_CHARS } from '../../../functions/runtime/error-sources/error-info';
import {
  DeadlineExceededError,
  InvalidArgsError,
  PlatformError,
  SecretInvalidError,
  SecretNotFoundError,
  ServiceCallError,
  UnknownToolError,
} from '../../../functions/runtime/errors';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import { REDACTED } from '../../../functions/runtime/redact';
import {
  credentialsProviderError,
  dataUnavailableException,
  ec2Error,
  expiredTokenException,
  noSuchBucket,
  queryError,
  responseMetadata,
  sdkConnectionError,
  sdkTimeoutError,
  secretsManagerNotFound,
  serviceError,
  TEST_REQUEST_ID,
  throttlingException,
} from '../../helpers/aws-errors';

const TOOL = 'aws_ec2_inventory';

/** A Node.js system error as `net` raises it. */
function systemError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, errno: -1, syscall: 'connect' });
}

describe('serviceError()', () => {
  it("builds the client's ServiceException with the code as name, as the SDK deserializer does", () => {
    // Act
    const err = serviceError(LambdaServiceException, 'ServiceException', 'Internal failure', {
      httpStatusCode: 500,
      requestId: 'req-1',
    });

    // Assess
    expect(err).toBeInstanceOf(LambdaServiceException);
    expect(err).toMatchObject({
      name: 'ServiceException',
      message: 'Internal failure',
      $fault: 'server',
      $metadata: { httpStatusCode: 500, requestId: 'req-1', attempts: 1 },
    });
  });
});

describe('normalizeError() with AWS SDK v3 errors', () => {
  it.each([
    ['ThrottlingException (modeled, DynamoDB)', throttlingException()],
    ['Throttling (Query protocol, STS/IAM)', queryError('Throttling', 'Rate exceeded')],
    [
      'RequestLimitExceeded (EC2)',
      ec2Error('RequestLimitExceeded', 'Request limit exceeded.', { httpStatusCode: 503 }),
    ],
    [
      'TooManyRequestsException (modeled, Lambda JSON protocol)',
      new TooManyRequestsException({ message: 'Rate exceeded', $metadata: responseMetadata(429) }),
    ],
    [
      'ThrottlingException (unmodeled, Lambda JSON protocol)',
      serviceError(LambdaServiceException, 'ThrottlingException', 'Rate exceeded', { httpStatusCode: 400 }),
    ],
  ])('maps %s to throttled, retryable', (_name, err) => {
    // Act
    const info = normalizeError(TOOL, err, 'ec2');

    // Assess
    expect(info).toMatchObject({ code: 'throttled', retryable: true, service: 'ec2' });
    expect(info.details).toMatchObject({ awsError: err.name, requestId: TEST_REQUEST_ID });
  });

  it.each([
    [
      'AccessDenied',
      queryError('AccessDenied', 'User is not authorized to perform: iam:ListUsers', { httpStatusCode: 403 }),
    ],
    [
      'AccessDeniedException',
      serviceError(
        LambdaServiceException,
        'AccessDeniedException',
        'User is not authorized to perform: lambda:ListFunctions',
        { httpStatusCode: 403 },
      ),
    ],
    [
      'UnauthorizedOperation',
      ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', {
        httpStatusCode: 403,
      }),
    ],
  ])('maps %s to access_denied, not retryable', (name, err) => {
    // Act
    const info = normalizeError(TOOL, err, 'ec2');

    // Assess
    expect(info).toEqual({
      code: 'access_denied',
      message: `${name}: ${err.message}`,
      retryable: false,
      service: 'ec2',
      details: { awsError: name, requestId: TEST_REQUEST_ID, httpStatusCode: 403 },
    });
  });

  it.each(['OptInRequired', 'OptInRequiredException'])('maps %s to opt_in_required', (name) => {
    // Act
    const info = normalizeError(TOOL, ec2Error(name, 'You are not subscribed to this service.'), 'ec2');

    // Assess
    expect(info).toMatchObject({ code: 'opt_in_required', retryable: false });
  });

  it('maps DataUnavailableException to data_unavailable', () => {
    // Act
    const info = normalizeError('aws_cost_breakdown', dataUnavailableException(), 'ce');

    // Assess
    expect(info).toMatchObject({ code: 'data_unavailable', retryable: false, service: 'ce' });
    expect(info.details).toMatchObject({ awsError: 'DataUnavailableException', httpStatusCode: 400 });
  });

  it.each([
    ['NoSuchBucket', noSuchBucket()],
    [
      'InvalidInstanceID.NotFound',
      ec2Error('InvalidInstanceID.NotFound', "The instance ID 'i-0fake' does not exist"),
    ],
    ['ResourceNotFoundException', secretsManagerNotFound()],
  ])('maps %s to not_found', (name, err) => {
    // Act
    const info = normalizeError(TOOL, err);

    // Assess
    expect(info).toMatchObject({ code: 'not_found', retryable: false, details: { awsError: name } });
  });

  it.each([
    [
      'InvalidClientTokenId',
      queryError('InvalidClientTokenId', 'The security token included in the request is invalid.', {
        httpStatusCode: 403,
      }),
    ],
    ['ExpiredTokenException', expiredTokenException()],
    ['CredentialsProviderError', credentialsProviderError()],
  ])('maps %s to auth_failed', (_name, err) => {
    // Act
    const info = normalizeError(TOOL, err, 'ec2');

    // Assess
    expect(info).toMatchObject({ code: 'auth_failed', retryable: false });
  });

  it('maps a CredentialsProviderError raised outside a client to auth_failed too', () => {
    // Prepare
    const err = Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
    });

    // Act
    const info = normalizeError(TOOL, err);

    // Assess
    expect(info).toMatchObject({ code: 'auth_failed', retryable: false, service: 'sts' });
  });

  it.each([
    [
      '$fault server with an unknown name',
      ec2Error('SomethingBroke', 'We encountered an internal error.', { httpStatusCode: 500 }),
    ],
    ['InternalError', ec2Error('InternalError', 'An internal error has occurred.', { httpStatusCode: 500 })],
    [
      '503 ServiceUnavailable',
      queryError('ServiceUnavailable', 'Service is unavailable', { httpStatusCode: 503 }),
    ],
  ])('maps %s to upstream_error, retryable', (_name, err) => {
    // Act
    const info = normalizeError(TOOL, err, 'ec2');

    // Assess
    expect(info).toMatchObject({ code: 'upstream_error', retryable: true });
    expect(info.details?.httpStatusCode).toBeGreaterThanOrEqual(500);
  });

  it('maps an unknown 4xx client error to upstream_error, not retryable', () => {
    // Act
    const info = normalizeError(TOOL, ec2Error('Gibberish', 'Something odd'), 'ec2');

    // Assess
    expect(info).toMatchObject({
      code: 'upstream_error',
      retryable: false,
      message: 'Gibberish: Something odd',
    });
  });

  it("maps the SDK's socket TimeoutError to timeout, retryable", () => {
    // Act
    const info = normalizeError(TOOL, sdkTimeoutError(), 'ec2');

    // Assess
    expect(info).toMatchObject({ code: 'timeout', retryable: true, service: 'ec2' });
  });

  it.each([
    ['ECONNREFUSED', 'network_error'],
    ['ENOTFOUND', 'network_error'],
    ['ECONNRESET', 'network_error'],
    ['ETIMEDOUT', 'timeout'],
  ] as const)(
    'maps %s raised through an SDK client (retry $metadata, no HTTP status) to %s',
    (errno, code) => {
      // Act
      const info = normalizeError(TOOL, sdkConnectionError(errno), 'ec2');

      // Assess
      expect(info).toMatchObject({ code, retryable: true, service: 'ec2', details: { errno } });
    },
  );
});

describe("normalizeError() with the SDK's own exception classes and traits", () => {
  const metadata = { httpStatusCode: 400, requestId: 'req-1', attempts: 3, totalRetryDelay: 0 };

  it.each([
    [
      'ProvisionedThroughputExceededException',
      () =>
        new ProvisionedThroughputExceededException({
          message: 'Rate of requests exceeds',
          $metadata: metadata,
        }),
      'throttled',
      true,
    ],
    [
      'ResourceNotFoundException',
      () => new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: metadata }),
      'not_found',
      false,
    ],
    [
      'ExpiredTokenException',
      () =>
        new ExpiredTokenException({
          message: 'The security token included in the request is expired',
          $metadata: metadata,
        }),
      'auth_failed',
      false,
    ],
  ] as const)('maps the SDK class %s as its meaning', (_name, build, code, retryable) => {
    // Act
    const info = normalizeError(TOOL, build(), 'dynamodb');

    // Assess
    expect(info).toMatchObject({ code, retryable, details: { awsError: _name, requestId: 'req-1' } });
  });

  it('maps an error name the SDK knows as throttling (TransactionInProgressException) to throttled', () => {
    // Act
    const info = normalizeError(
      TOOL,
      new TransactionInProgressException({ message: 'in progress', $metadata: metadata }),
      'dynamodb',
    );

    // Assess
    expect(info).toMatchObject({ code: 'throttled', retryable: true });
  });

  it("maps an unknown error name by the SDK's $retryable throttling trait", () => {
    // Arrange: a service model marks the error @retryable(throttling: true)
    const err = Object.assign(ec2Error('BrandNewSlowDownError', 'Slow down'), {
      $retryable: { throttling: true },
    });

    // Act
    const info = normalizeError(TOOL, err, 'ec2');

    // Assess
    expect(info).toMatchObject({
      code: 'throttled',
      retryable: true,
      message: 'BrandNewSlowDownError: Slow down',
    });
  });

  it("maps S3's RequestTimeout answer to timeout, retryable", () => {
    // Act
    const info = normalizeError(
      TOOL,
      ec2Error('RequestTimeout', 'Your socket connection to the server was not read'),
      's3',
    );

    // Assess
    expect(info).toMatchObject({ code: 'timeout', retryable: true, service: 's3' });
  });

  it.each(['constructor', '__proto__', 'toString'])(
    'treats the error name %s as unknown, not as an Object.prototype member',
    (name) => {
      // Act
      const info = normalizeError(TOOL, ec2Error(name, 'odd'), 'ec2');

      // Assess
      expect(info).toMatchObject({ code: 'upstream_error', retryable: false });
    },
  );
});

describe('normalizeError() with a ServiceCallError', () => {
  it("reports the cause as the named service's error, not the tool's", () => {
    // Prepare: STS AssumeRole failed while the tool called EC2.
    const err = new ServiceCallError(
      'sts',
      queryError('AccessDenied', 'User is not authorized to perform: sts:AssumeRole'),
    );

    // Act
    const info = normalizeError(TOOL, err, 'ec2');

    // Assess
    expect(info).toEqual({
      code: 'access_denied',
      message: 'AccessDenied: User is not authorized to perform: sts:AssumeRole',
      retryable: false,
      service: 'sts',
      details: { awsError: 'AccessDenied', requestId: TEST_REQUEST_ID, httpStatusCode: 400 },
    });
  });

  it('maps a timed-out call by its cause, labeled with the service', () => {
    // Act
    const info = normalizeError(TOOL, new ServiceCallError('sts', sdkTimeoutError()), 'ec2');

    // Assess
    expect(info).toMatchObject({ code: 'timeout', retryable: true, service: 'sts' });
  });
});

describe('normalizeError() with Node.js and fetch errors', () => {
  it.each([
    ['ECONNREFUSED', 'network_error', 'Could not reach the http endpoint: ECONNREFUSED example.com'],
    ['ENOTFOUND', 'network_error', 'Could not reach the http endpoint: ENOTFOUND example.com'],
    ['ETIMEDOUT', 'timeout', 'The http endpoint did not answer in time: ETIMEDOUT example.com'],
  ] as const)('maps %s to %s, retryable', (errno, code, message) => {
    // Act
    const info = normalizeError(TOOL, systemError(errno, `${errno} example.com`), 'http');

    // Assess
    expect(info).toEqual({
      code,
      message,
      retryable: true,
      service: 'http',
      details: { errno },
    });
  });

  it("maps fetch's TypeError('fetch failed') by its cause's code", () => {
    // Prepare
    const err = new TypeError('fetch failed', { cause: { code: 'ECONNRESET', message: 'socket hang up' } });

    // Act
    const info = normalizeError(TOOL, err);

    // Assess
    expect(info).toMatchObject({ code: 'network_error', retryable: true, details: { errno: 'ECONNRESET' } });
  });

  it('maps an AbortError to timeout', () => {
    // Act
    const info = normalizeError(TOOL, new DOMException('This operation was aborted', 'AbortError'));

    // Assess
    expect(info).toMatchObject({ code: 'timeout', retryable: true });
  });
});

describe('normalizeError() with platform and unknown errors', () => {
  it.each([
    [new InvalidArgsError('regions[0]: expected a region'), 'invalid_args', false],
    [new UnknownToolError('nope', ['a_tool', 'b_tool']), 'unknown_tool', false],
    [new SecretNotFoundError('no reference "slack_default"'), 'secret_not_found', false],
    [new SecretInvalidError('bad fields: role_arn'), 'secret_invalid', false],
    [new DeadlineExceededError('Deadline reached while listing pages'), 'timeout', true],
  ] as const)('keeps the code of %p', (err, code, retryable) => {
    // Act
    const info = normalizeError(TOOL, err);

    // Assess
    expect(info.code).toBe(code);
    expect(info.retryable).toBe(retryable);
    expect(info.message).toBe(err.message);
  });

  it("names no service for an argument error the tool found itself, the tool's service for its other errors", () => {
    // Act
    const args = normalizeError(
      TOOL,
      new InvalidArgsError('a is an EBS snapshot and b an S3 Inventory report'),
      's3',
    );
    const missing = normalizeError(TOOL, new PlatformError('not_found', 'No findings for run r1'), 's3');
    const said = normalizeError(TOOL, new InvalidArgsError('bad key', { service: 's3' }), 'ec2');

    // Assess
    expect(args).toEqual({
      code: 'invalid_args',
      message: 'a is an EBS snapshot and b an S3 Inventory report',
      retryable: false,
    });
    expect(missing.service).toBe('s3');
    expect(said.service).toBe('s3');
  });

  it('keeps a platform error service and redacted details', () => {
    // Prepare
    const err = new SecretInvalidError('bad', {
      service: 'sts',
      details: { field: 'role_arn', session_token: 'fake-test-token' },
    });

    // Act
    const info = normalizeError(TOOL, err, 'ec2');

    // Assess
    expect(info).toEqual({
      code: 'secret_invalid',
      message: 'bad',
      retryable: false,
      service: 'sts',
      details: { field: 'role_arn', session_token: REDACTED },
    });
  });

  it('maps a plain Error to internal_error naming the tool', () => {
    // Act
    const info = normalizeError(TOOL, new RangeError('index out of range'));

    // Assess
    expect(info).toEqual({
      code: 'internal_error',
      message: `Tool ${TOOL} failed: index out of range`,
      retryable: false,
      details: { errorName: 'RangeError' },
    });
  });

  it.each([
    ['a thrown string', 'boom', `Tool ${TOOL} failed: boom`],
    ['null', null, `Tool ${TOOL} failed: Unknown error`],
    ['undefined', undefined, `Tool ${TOOL} failed: Unknown error`],
    ['a number', 42, `Tool ${TOOL} failed: Unknown error`],
  ])('maps %s to internal_error without throwing', (_name, thrown, message) => {
    // Act
    const info = normalizeError(TOOL, thrown);

    // Assess
    expect(info).toMatchObject({ code: 'internal_error', message, retryable: false });
  });

  it('never throws, even for an error whose getters throw', () => {
    // Prepare
    const hostile = {
      get message(): string {
        throw new Error('getter exploded');
      },
      get name(): string {
        throw new Error('getter exploded');
      },
    };

    // Act
    const info = normalizeError(TOOL, hostile);

    // Assess
    expect(info).toEqual({
      code: 'internal_error',
      message: `Tool ${TOOL} failed with an error that could not be read`,
      retryable: false,
    });
  });

  it('redacts credentials in messages', () => {
    // Prepare
    const err = new Error(
      'posting with xoxb-1111-2222-fakeTESTexample to https://hooks.slack.com/services/T0/B0/fakeTEST',
    ); // fake test example

    // Act
    const info = normalizeError('slack_post_message', err);

    // Assess
    expect(info.message).toBe(`Tool slack_post_message failed: posting with ${REDACTED} to ${REDACTED}`);
  });

  it('redacts credentials in AWS messages', () => {
    // Prepare
    const err = queryError('InvalidClientTokenId', 'The key AKIAIOSFODNN7EXAMPLE is not valid', {
      httpStatusCode: 403,
    }); // AWS docs example

    // Act
    const info = normalizeError(TOOL, err);

    // Assess
    expect(info.message).toBe(`InvalidClientTokenId: The key ${REDACTED} is not valid`);
  });

  it(`cuts messages at ${MAX_ERROR_MESSAGE_CHARS} characters`, () => {
    // Act
    const info = normalizeError(TOOL, new Error('e'.repeat(5_000)));

    // Assess
    expect(info.message).toHaveLength(MAX_ERROR_MESSAGE_CHARS);
    expect(info.message.endsWith('…')).toBe(true);
    expect(info.message.startsWith(`Tool ${TOOL} failed: eee`)).toBe(true);
  });
});

describe('a failed connection names the service and the endpoint it could not reach', () => {
  it.each([
    [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), {
        code: 'ECONNREFUSED',
        address: '127.0.0.1',
        port: 8000,
      }),
      'Could not reach the dynamodb endpoint: connect ECONNREFUSED 127.0.0.1:8000',
    ],
    [
      Object.assign(new Error('socket hang up'), {
        code: 'ECONNRESET',
        address: 'dynamodb.eu-west-1.amazonaws.com',
        port: 443,
      }),
      'Could not reach the dynamodb endpoint dynamodb.eu-west-1.amazonaws.com:443: socket hang up',
    ],
    [
      Object.assign(new Error('getaddrinfo ENOTFOUND dynamodb.eu-west-1.amazonaws.com'), {
        code: 'ENOTFOUND',
        hostname: 'dynamodb.eu-west-1.amazonaws.com',
      }),
      'Could not reach the dynamodb endpoint: getaddrinfo ENOTFOUND dynamodb.eu-west-1.amazonaws.com',
    ],
  ])('%s', (err, message) => {
    // Act
    const info = normalizeError('aws_iam_audit', err, 'dynamodb');

    // Assess
    expect(info).toMatchObject({ code: 'network_error', message, service: 'dynamodb', retryable: true });
  });
});
