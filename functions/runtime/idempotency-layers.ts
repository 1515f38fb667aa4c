/**
 * Where exactly-once records are kept (idempotency.ts decides what they hold):
 * Powertools' DynamoDB persistence layer deployed, a process-memory store for
 * local runs and tests with the same conditions. Each layer also tells whether
 * it took over an earlier attempt's record (`resumed`), so a tool can look for
 * that attempt's effect before acting.
 */
import {
  IdempotencyItemAlreadyExistsError,
  IdempotencyItemNotFoundError,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsRequestHandler } from './aws/http-timeouts';

/** A persistence layer for one call that tells whether it took over an earlier attempt's record. */
export interface CallPersistenceLayer extends BasePersistenceLayer {
  /** Set once the record is taken: true when one already existed (expired, or an abandoned attempt's). */
  readonly resumed: boolean;
}

/** Makes the persistence layer of one call. */
export type IdempotencyLayerFactory = () => CallPersistenceLayer;

/** Powertools' DynamoDB layer, noting whether its conditional put replaced an existing record. */
class ResumingDynamoDbLayer extends DynamoDBPersistenceLayer implements CallPersistenceLayer {
  resumed = false;

  protected override async _putRecord(record: IdempotencyRecord): Promise<void> {
    const existed = await this._getRecord(record.idempotencyKey).then(
      () => true,
      (err: unknown) => {
        if (err instanceof IdempotencyItemNotFoundError) return false;
        throw err;
      },
    );
    await super._putRecord(record);
    this.resumed = existed;
  }
}

let dynamoDbClient: DynamoDBClient | undefined;

/**
 * Records in the DynamoDB table `tableName` (partition key `id`, string; TTL on
 * `expiration`: Powertools' default attributes), through one DynamoDB client per
 * container with the platform's HTTP timeouts. The table is the stack's
 * idempotency table, named to the function by `IDEMPOTENCY_TABLE`.
 *
 * @example const layers = dynamoDbIdempotency(process.env.IDEMPOTENCY_TABLE!);
 */
export function dynamoDbIdempotency(tableName: string, client?: DynamoDBClient): IdempotencyLayerFactory {
  return () => {
    dynamoDbClient ??= client ?? new DynamoDBClient({ requestHandler: awsRequestHandler() });
    return new ResumingDynamoDbLayer({ tableName, awsSdkV3Client: client ?? dynamoDbClient });
  };
}

/**
 * Records in this process's memory (local runs, tests): the same conditions as
 * the DynamoDB layer (a record is taken when absent, expired, or abandoned in
 * progress), for runs that have no table.
 */
export class InMemoryIdempotencyStore {
  readonly #records = new Map<string, IdempotencyRecord>();

  /** The persistence layer of one call over this store. */
  readonly layer: IdempotencyLayerFactory = () => new InMemoryLayer(this.#records);

  /** How many records are held. */
  get size(): number {
    return this.#records.size;
  }
}

class InMemoryLayer extends BasePersistenceLayer implements CallPersistenceLayer {
  resumed = false;

  constructor(private readonly records: Map<string, IdempotencyRecord>) {
    super();
  }

  protected async _getRecord(key: string): Promise<IdempotencyRecord> {
    const record = this.records.get(key);
    if (!record) throw new IdempotencyItemNotFoundError();
    return record;
  }

  protected async _putRecord(record: IdempotencyRecord): Promise<void> {
    const existing = this.records.get(record.idempotencyKey);
    const now = Date.now();
    const takeable =
      !existing ||
      (existing.expiryTimestamp ?? 0) * 1000 < now ||
      (existing.getStatus() === 'INPROGRESS' &&
        existing.inProgressExpiryTimestamp !== undefined &&
        existing.inProgressExpiryTimestamp < now);
    if (!takeable) {
      throw new IdempotencyItemAlreadyExistsError(`Record ${record.idempotencyKey} exists`, existing);
    }
    this.resumed = existing !== undefined;
    this.records.set(record.idempotencyKey, record);
  }

  protected async _updateRecord(record: IdempotencyRecord): Promise<void> {
    const existing = this.records.get(record.idempotencyKey);
    this.records.set(
      record.idempotencyKey,
      new IdempotencyRecord({
        idempotencyKey: record.idempotencyKey,
        status: record.getStatus(),
        expiryTimestamp: record.expiryTimestamp,
        inProgressExpiryTimestamp: existing?.inProgressExpiryTimestamp,
        responseData: record.responseData,
        payloadHash: record.payloadHash,
      }),
    );
  }

  protected async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    this.records.delete(record.idempotencyKey);
  }
}
