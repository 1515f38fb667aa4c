import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsRequestHandler } from './http-timeouts';

/**
 * The DynamoDB document client of a platform table (secret references, run
 * records): item attributes that are `undefined` are left out rather than
 * refused (`removeUndefinedValues`, "@aws-sdk/lib-dynamodb" marshall options).
 *
 * @param client - by default one with the platform's HTTP timeouts
 *   (`awsRequestHandler`), so an unreachable table fails each call with
 *   `timeout` instead of hanging for the SDK's minutes-long default.
 */
export function platformDocumentClient(
  client: DynamoDBClient = new DynamoDBClient({ requestHandler: awsRequestHandler() }),
): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
