import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Creates the run-records table as the platform defines it (lib/external-tools-platform.ts):
 * `tenant_id` HASH, `record_id` RANGE, on-demand. Resolves once the table is ACTIVE.
 *
 * @param tableName - @default 'etp-run-records'
 * @returns the table name.
 */
export async function createRunRecordsTable(
  client: DynamoDBClient,
  tableName = 'etp-run-records',
): Promise<string> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [
        { AttributeName: 'tenant_id', AttributeType: 'S' },
        { AttributeName: 'record_id', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'tenant_id', KeyType: 'HASH' },
        { AttributeName: 'record_id', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  // dynalite flips CREATING to ACTIVE on a timer, even at 0 ms.
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return tableName;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Table ${tableName} did not become ACTIVE`);
}
