/**
 * AWS endpoints that accept connections and never answer (a "silent" server on
 * 127.0.0.1): calls end within their deadline or their HTTP timeouts, with
 * `timeout`, instead of hanging for minutes. Deadlines and timeouts are small
 * here so each test waits a second or two. (Refused connections are tested in
 * a child process, test/integration/cli/etp-exit.test.ts: under Jest, Node's
 * system errors come from another realm and the SDK's retry middleware rewraps
 * them without their `code`.)
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { clearAssumedRoleCache } from '../../../functions/runtime/aws/credentials';
import { awsRequestHandler } from '../../../functions/runtime/aws/http-timeouts';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import { DynamoDbSecretReferenceStore } from '../../../functions/runtime/secrets/dynamodb-store';
import { ec2InventoryTool } from '../../../functions/tools/aws/ec2-inventory';
import { awsToolServices, expectFailure, runAwsTool } from '../../helpers/aws-tool';
import { FAKE_AWS_CREDENTIALS } from '../../helpers/loopback-server';
import { type SilentServer, startSilentServer } from '../../helpers/silent-server';

let silent: SilentServer;

beforeAll(async () => {
  silent = await startSilentServer();
});

afterAll(async () => {
  await silent.stop();
});

beforeEach(() => {
  // The harness logs each failure (stderr): keep the output to the test results.
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
  delete process.env.AWS_ENDPOINT_URL_EC2;
  delete process.env.AWS_ENDPOINT_URL_STS;
});

describe('aws_ec2_inventory against EC2 endpoints that do not answer', () => {
  it('returns timeout at its deadline while EC2 never answers', async () => {
    // Prepare
    process.env.AWS_ENDPOINT_URL_EC2 = silent.url;
    const connectionsBefore = silent.connections();
    const started = Date.now();

    // Act
    const result = expectFailure(
      await runAwsTool(ec2InventoryTool, { regions: ['eu-west-1'] }, { deadline: deadlineIn(1_500) }),
    );

    // Assess
    const wallMs = Date.now() - started;
    // The budget is what the deadline left when the harness started (a loaded machine takes some of it first).
    expect(result.error).toEqual({
      code: 'timeout',
      message: expect.stringMatching(
        /^Tool aws_ec2_inventory did not finish within its budget of 1\.[345] s$/,
      ),
      retryable: true,
      service: 'ec2',
    });
    expect(wallMs).toBeGreaterThanOrEqual(1_450);
    expect(wallMs).toBeLessThan(2_500);
    expect(silent.connections()).toBeGreaterThan(connectionsBefore); // the request did reach the endpoint
  });
});

describe('the hard stop of a call', () => {
  it('aborts the requests still in flight when the harness gives up, instead of leaving them running', async () => {
    // Prepare
    process.env.AWS_ENDPOINT_URL_EC2 = silent.url;

    // Act
    const result = expectFailure(
      await runAwsTool(ec2InventoryTool, { regions: ['eu-west-1'] }, { deadline: deadlineIn(1_000) }),
    );
    // The abort closes the socket; give the server's event loop a moment to see it.
    await new Promise((resolve) => setTimeout(resolve, 200));

    // Assess: without the hard stop the request would stay open for its 15 s request timeout.
    expect(result.error.code).toBe('timeout');
    expect(silent.openConnections()).toBe(0);
  });
});

describe('aws_ec2_inventory with an assumed role whose STS endpoint never answers', () => {
  it('returns timeout at its deadline while AssumeRole waits', async () => {
    // Prepare
    process.env.AWS_ENDPOINT_URL_STS = silent.url;
    clearAssumedRoleCache();
    const services = awsToolServices({
      role_arn: 'arn:aws:iam::210987654321:role/etp-audit',
      external_id: 'etp-tenant-default',
      region: 'eu-west-1',
    });
    const connectionsBefore = silent.connections();
    const started = Date.now();

    // Act
    const result = expectFailure(
      await runAwsTool(
        ec2InventoryTool,
        { regions: ['eu-west-1'] },
        { services, deadline: deadlineIn(1_000) },
      ),
    );

    // Assess
    expect(result.error).toMatchObject({ code: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(silent.connections()).toBeGreaterThan(connectionsBefore); // AssumeRole did reach the endpoint
  });
});

describe('the secret-reference table behind an endpoint that never answers', () => {
  it('fails each call with timeout after its attempts, within their timeouts', async () => {
    // Prepare: 2 attempts of at most 400 ms each.
    const client = new DynamoDBClient({
      endpoint: silent.url,
      region: 'eu-west-1',
      credentials: FAKE_AWS_CREDENTIALS,
      maxAttempts: 2,
      requestHandler: awsRequestHandler({ connectionTimeoutMs: 500, requestTimeoutMs: 400 }),
    });
    const store = new DynamoDbSecretReferenceStore('etp-secret-references', client);
    const connectionsBefore = silent.connections();
    const started = Date.now();

    // Act
    const error = await store.list('default').catch((err: unknown) => err);

    // Assess
    const wallMs = Date.now() - started;
    expect(normalizeError('etp secrets list', error, 'dynamodb')).toEqual({
      code: 'timeout',
      message:
        'The dynamodb endpoint did not answer in time: Secret-reference table etp-secret-references (region eu-west-1): @smithy/node-http-handler - [ERROR] a request has exceeded the configured 400 ms requestTimeout.',
      retryable: true,
      service: 'dynamodb',
      details: { errno: 'ETIMEDOUT' },
    });
    expect(silent.connections() - connectionsBefore).toBe(2);
    expect(wallMs).toBeGreaterThanOrEqual(800);
    expect(wallMs).toBeLessThan(2_000);
    client.destroy();
  });
});
