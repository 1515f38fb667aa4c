import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { platformDocumentClient } from '../aws/document-client';
import { ServiceCallError } from '../errors';
import { compareText } from '../text';
import type { SecretReference, SecretReferenceStore } from './reference';
import { referenceInputOf, validateReference } from './reference';

/**
 * The secret-reference table in DynamoDB: partition key `tenant_id`, sort key
 * `secret_name` (docs/design.md, "Secret references"). Reads are strongly consistent
 * so a freshly seeded reference is seen at once.
 *
 * @example
 * const store = new DynamoDbSecretReferenceStore(process.env.SECRET_REFS_TABLE!);
 * await store.get('default', 'slack_default');
 */
export class DynamoDbSecretReferenceStore implements SecretReferenceStore {
  readonly #documents: DynamoDBDocumentClient;

  /**
   * @param tableName - the table's name (`SECRET_REFS_TABLE` in deployed functions).
   * @param client - a DynamoDB client; by default one per store ({@link platformDocumentClient}).
   */
  constructor(
    readonly tableName: string,
    client?: DynamoDBClient,
  ) {
    this.#documents = platformDocumentClient(client);
  }

  async get(tenantId: string, secretName: string): Promise<SecretReference | undefined> {
    const { Item } = await this.#naming(() =>
      this.#documents.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { tenant_id: tenantId, secret_name: secretName },
          ConsistentRead: true,
        }),
      ),
    );
    return Item as SecretReference | undefined;
  }

  /**
   * Runs a request of the table; a failure names the table and its region (the SDK's own
   * messages name neither: "Requested resource not found", "Region is missing", a bare
   * ECONNREFUSED), keeps its class and fields for normalizeError, and is marked as DynamoDB's.
   *
   * @throws ServiceCallError (service `dynamodb`) around the SDK's error.
   */
  async #naming<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      if (err instanceof Error) {
        const region = await this.#documents.config.region().catch(() => undefined);
        err.message = `Secret-reference table ${this.tableName} (${
          region ? `region ${region}` : 'no region: set AWS_REGION, or a region in your AWS profile'
        }): ${err.message}`;
      }
      throw new ServiceCallError('dynamodb', err);
    }
  }

  async list(tenantId?: string): Promise<SecretReference[]> {
    const rows: SecretReference[] = [];
    const pages =
      tenantId === undefined
        ? paginateScan({ client: this.#documents }, { TableName: this.tableName, ConsistentRead: true })
        : paginateQuery(
            { client: this.#documents },
            {
              TableName: this.tableName,
              KeyConditionExpression: 'tenant_id = :t',
              ExpressionAttributeValues: { ':t': tenantId },
              ConsistentRead: true,
            },
          );
    await this.#naming(async () => {
      for await (const page of pages) rows.push(...((page.Items ?? []) as SecretReference[]));
    });
    return rows.sort(
      (a, b) => compareText(a.tenant_id, b.tenant_id) || compareText(a.secret_name, b.secret_name),
    );
  }

  async put(reference: SecretReference): Promise<SecretReference> {
    const { tenant_id, secret_name, created_by, ...fields } = validateReference(referenceInputOf(reference));
    const now = new Date().toISOString();
    // One atomic write that replaces the reference but keeps who created it and when
    // (re-seeding an inline value swaps ciphertext and fingerprint together).
    const set = ['created_at = if_not_exists(created_at, :now)', 'updated_at = :now'];
    const values: Record<string, unknown> = { ':now': now };
    if (created_by !== undefined) {
      set.push('created_by = if_not_exists(created_by, :created_by)');
      values[':created_by'] = created_by;
    }
    const remove: string[] = [];
    for (const name of ['ref_kind', 'ref_value', 'fingerprint', 'metadata', 'notes'] as const) {
      const value = fields[name];
      if (value === undefined) {
        remove.push(name);
      } else {
        set.push(`${name} = :${name}`);
        values[`:${name}`] = value;
      }
    }
    const { Attributes } = await this.#naming(() =>
      this.#documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { tenant_id, secret_name },
          UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return Attributes as SecretReference;
  }

  async delete(tenantId: string, secretName: string): Promise<boolean> {
    const { Attributes } = await this.#naming(() =>
      this.#documents.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { tenant_id: tenantId, secret_name: secretName },
          ReturnValues: 'ALL_OLD',
        }),
      ),
    );
    return Attributes !== undefined;
  }
}
