/**
 * Which service the Athena route's errors carry: an Athena call's failure is
 * Athena's (`service: "athena"`, "the athena endpoint"), not S3's, the service
 * the tools' specs name; a setting that breaks its rule is no service's.
 */
import { AthenaClient, AthenaServiceException, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { awsClientConfig } from '../../../functions/runtime/aws/client-config';
import type { AwsAccess } from '../../../functions/runtime/aws/credentials';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import type { Tool } from '../../../functions/runtime/spec';
import { AthenaQueryEngine, runAthenaQuery } from '../../../functions/tools/snapshots/athena/athena-runner';
import type { AthenaRouteSettings } from '../../../functions/tools/snapshots/athena/settings';
import { createSnapshotStatsTool } from '../../../functions/tools/snapshots/snapshot-stats';
import { awsToolServices, EXAMPLE_AWS_SECRET, expectFailure, runAwsTool } from '../../helpers/aws-tool';
import { LocalS3Server } from '../../helpers/inventory-s3-server';
import { buildInventoryWorld, type InventoryWorld } from '../../helpers/inventory-world';
import { localS3Clients } from '../../helpers/snapshot-tools';

jest.setTimeout(60_000);

/**
 * The failure of a DNS lookup as Node reports it (Node.js docs, "Class: SystemError").
 * Made here rather than by a real lookup: under Jest, Node's own errors come from
 * another realm, and the SDK's retry middleware rewraps them without their code.
 */
const NOT_FOUND = Object.assign(new Error('getaddrinfo ENOTFOUND athena.us-east-1.amazonaws.com'), {
  code: 'ENOTFOUND',
  syscall: 'getaddrinfo',
  hostname: 'athena.us-east-1.amazonaws.com',
});

const server = new LocalS3Server();
let world: InventoryWorld;
const saved = { ...process.env };
/** Mocks every AthenaClient's send (the tool's own engine included), from the first test on. */
let athena: ReturnType<typeof mockClient>;

beforeAll(async () => {
  await server.start();
  world = buildInventoryWorld(server);
  athena = mockClient(AthenaClient);
});

afterAll(async () => {
  athena.restore();
  await server.stop();
});

afterEach(() => {
  athena.reset();
  for (const name of Object.keys(process.env)) if (name.startsWith('ETP_ATHENA_')) delete process.env[name];
  Object.assign(process.env, saved);
});

/** snapshot_stats with S3 on the local server and the deployed Athena engine (its client mocked). */
function statsTool(): Tool {
  const clients = {
    ...localS3Clients(server),
    inventoryQueries: (access: AwsAccess, region: string, settings: AthenaRouteSettings) =>
      new AthenaQueryEngine(
        new AthenaClient({ ...awsClientConfig(access, region), maxAttempts: 1 }),
        settings,
      ),
  };
  return createSnapshotStatsTool(clients, () => async () => 'memory:answer') as Tool;
}

const stats = async (env: Record<string, string>) => {
  Object.assign(process.env, env);
  return runAwsTool(
    statsTool(),
    { id: `s3_inventory:photos/daily-csv/${world.photos[2]?.reportTime}` },
    { services: awsToolServices({ ...EXAMPLE_AWS_SECRET, region: 'us-east-1' }) },
  );
};

describe('snapshot_stats on the Athena route', () => {
  it('reports an unreachable Athena as the athena endpoint, service athena', async () => {
    athena.on(StartQueryExecutionCommand).rejects(NOT_FOUND);

    const failure = expectFailure(await stats({ ETP_ATHENA_ROUTE: 'always' }));

    expect(failure.error).toEqual({
      code: 'network_error',
      message: 'Could not reach the athena endpoint: getaddrinfo ENOTFOUND athena.us-east-1.amazonaws.com',
      retryable: true,
      service: 'athena',
      details: { errno: 'ENOTFOUND' },
    });
  });

  it('reports a bad ETP_ATHENA_ROUTE as internal_error naming no service (no call was made)', async () => {
    const failure = expectFailure(await stats({ ETP_ATHENA_ROUTE: 'bogus' }));

    expect(failure.error.code).toBe('internal_error');
    expect(failure.error.message).toContain(
      'Setting ETP_ATHENA_ROUTE="bogus" is not valid: auto, off or always',
    );
    expect(failure.error).not.toHaveProperty('service');
    expect(athena.calls()).toEqual([]);
  });
});

describe('runAthenaQuery errors', () => {
  const client = new AthenaClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'example' },
  });
  const SETTINGS = { workGroup: 'etp-snapshots', database: 'etp_snapshots' };

  const normalized = async () => {
    try {
      await runAthenaQuery(client, 'SELECT 1', SETTINGS, deadlineIn(10_000));
    } catch (err) {
      // The tools' specs name s3: the error must say athena anyway.
      return normalizeError('snapshot_stats', err, 's3');
    }
    throw new Error('the query did not fail');
  };

  it("maps Athena's AccessDeniedException as access_denied from athena", async () => {
    athena.on(StartQueryExecutionCommand).rejects(
      new AthenaServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
        message: 'User is not authorized to perform: athena:StartQueryExecution',
      }),
    );

    expect(await normalized()).toMatchObject({ code: 'access_denied', service: 'athena' });
  });

  it("maps Athena's throttling as throttled from athena", async () => {
    athena.on(StartQueryExecutionCommand).rejects(
      new AthenaServiceException({
        name: 'TooManyRequestsException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
        message: 'Rate exceeded',
      }),
    );

    expect(await normalized()).toMatchObject({ code: 'throttled', retryable: true, service: 'athena' });
  });

  it('keeps its own upstream_error as thrown', async () => {
    athena.on(StartQueryExecutionCommand).resolves({});

    expect(await normalized()).toMatchObject({
      code: 'upstream_error',
      message: 'Athena returned no QueryExecutionId',
      service: 'athena',
    });
  });
});
