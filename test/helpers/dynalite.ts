/**
 * A real DynamoDB API on 127.0.0.1: `dynalite` in memory (no `path`, so it uses
 * memory-level and never touches the disk), plus the secret-reference table and
 * a client pointed at it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FAKE_AWS_CREDENTIALS, holdIdleConnections } from './loopback-server';
import { platformDynamoDb } from './platform-sdk';

/** The subset of dynalite's options the tests set (dynalite ships no type declarations). */
interface DynaliteOptions {
  /** How long a new table stays CREATING, in ms. */
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
}

// dynalite has no types (and no @types package); its factory is typed here by hand.
const dynalite = require('dynalite') as (options?: DynaliteOptions) => Server;

/** A running dynalite. */
export interface LocalDynamoDb {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** A client on {@link endpoint} with fake credentials; destroyed by {@link stop}. */
  readonly client: DynamoDBClient;
  /** Destroys the client, closes the server and its in-memory database. */
  stop(): Promise<void>;
}

/**
 * Starts dynalite on 127.0.0.1 with an OS-chosen port. Tables are ACTIVE as soon
 * as they are created (no 500 ms CREATING phase).
 *
 * @example
 * const dynamo = await startDynalite();
 * const table = await createSecretReferenceTable(dynamo.client);
 * // …
 * await dynamo.stop();
 */
export async function startDynalite(): Promise<LocalDynamoDb> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  holdIdleConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoDbClient(endpoint);
  return {
    endpoint,
    client,
    async stop() {
      client.destroy();
      await new Promise<void>((resolve, reject) => {
        server.close((err?: Error) => (err ? reject(err) : resolve()));
        // Keep-alive sockets of other clients would hold close() for its 30 s timeout.
        server.closeAllConnections();
      });
    },
  };
}

/** A DynamoDB client for a local endpoint: fake credentials, no retries (a local failure is a bug, not noise). */
export function localDynamoDbClient(endpoint: string): DynamoDBClient {
  // The platform's own class (test/helpers/platform-sdk.ts): a test mocking DynamoDBClient leaves it alone.
  const { DynamoDBClient: PlatformDynamoDBClient } = platformDynamoDb();
  return new PlatformDynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: FAKE_AWS_CREDENTIALS,
    maxAttempts: 1,
  });
}

/**
 * Creates an on-demand table keyed by string attributes (`hash`, and `range` when
 * given) and resolves once it is ACTIVE: the shape of every platform table.
 *
 * @returns the table name.
 */
async function createStringKeyedTable(
  client: DynamoDBClient,
  tableName: string,
  hash: string,
  range?: string,
): Promise<string> {
  const keys = range ? [hash, range] : [hash];
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: keys.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: keys.map((name, index) => ({
        AttributeName: name,
        KeyType: index === 0 ? 'HASH' : 'RANGE',
      })),
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await waitActive(client, tableName);
  return tableName;
}

/**
 * Creates the secret-reference table as the platform stack defines it
 * (docs/design.md, "Secret references"): `tenant_id` HASH, `secret_name` RANGE,
 * on-demand billing. Resolves once the table is ACTIVE.
 *
 * @param tableName - @default 'etp-secret-references'
 * @returns the table name.
 */
export function createSecretReferenceTable(
  client: DynamoDBClient,
  tableName = 'etp-secret-references',
): Promise<string> {
  return createStringKeyedTable(client, tableName, 'tenant_id', 'secret_name');
}

/**
 * Creates the run-records table as the platform defines it (lib/external-tools-platform.ts):
 * `tenant_id` HASH, `record_id` RANGE, on-demand. Resolves once the table is ACTIVE.
 *
 * @param tableName - @default 'etp-run-records'
 * @returns the table name.
 */
export function createRunRecordsTable(
  client: DynamoDBClient,
  tableName = 'etp-run-records',
): Promise<string> {
  return createStringKeyedTable(client, tableName, 'tenant_id', 'record_id');
}

/**
 * Creates the idempotency table of the write tools as Powertools Idempotency's
 * DynamoDB layer expects it ("Idempotency" utility, "Required resources"):
 * partition key `id` (string), TTL on `expiration`, on-demand billing.
 *
 * @param tableName - @default 'etp-idempotency'
 * @returns the table name.
 */
export function createIdempotencyTable(
  client: DynamoDBClient,
  tableName = 'etp-idempotency',
): Promise<string> {
  return createStringKeyedTable(client, tableName, 'id');
}

async function waitActive(client: DynamoDBClient, tableName: string): Promise<void> {
  // dynalite flips CREATING to ACTIVE on a timer, even at 0 ms.
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Table ${tableName} did not become ACTIVE`);
}
