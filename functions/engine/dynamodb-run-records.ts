import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { platformDocumentClient } from '../runtime/aws/document-client';
import { awsRequestHandler } from '../runtime/aws/http-timeouts';
import { boundedCache } from '../runtime/bounded-cache';
import type { TenantCredentials } from '../runtime/run-data-sessions';
import { compareText } from '../runtime/text';
import {
  type FindingsPointer,
  findingsKey,
  isLaterMark,
  type NewQuestion,
  type QuestionRecords,
  type QuestionStatus,
  type QuestionSummary,
  questionKey,
  type RunRecords,
  type Watermark,
  watermarkKey,
} from './run-records';

/** Days a question item outlives its expiry before DynamoDB's TTL (`expires_ttl`) removes it. */
const QUESTION_RETENTION_DAYS = 30;

interface QuestionItem {
  readonly tenant_id: string;
  readonly record_id: string;
  readonly run_id: string;
  readonly scenario: string;
  readonly level: string;
  readonly turn: number;
  readonly question: string;
  readonly status: QuestionStatus;
  readonly asked_at: string;
  readonly expires_at: string;
  readonly posted: boolean;
  readonly task_token: string;
  readonly expires_ttl: number;
}

interface WatermarkItem {
  readonly mark: string;
  readonly run_id: string;
  readonly updated_at: string;
}

interface FindingsItem {
  readonly run_id: string;
  readonly path: string;
  readonly previous_run_id?: string;
  readonly previous_path?: string;
}

function summaryOf(item: QuestionItem): QuestionSummary {
  return {
    tenant: item.tenant_id,
    runId: item.run_id,
    scenario: item.scenario,
    level: item.level,
    turn: item.turn,
    question: item.question,
    status: item.status,
    askedAt: item.asked_at,
    expiresAt: item.expires_at,
    posted: item.posted,
  };
}

/**
 * The run-records table: partition key `tenant_id`, sort key `record_id`
 * (`question#<runId>#<level>#<turn>`, `findings#<scenario>#<level>`,
 * `watermark#<scenario>`). Question
 * items hold the run's task token (a credential: only the engine writes it and
 * only the answering principal reads it) and expire through the table's TTL
 * attribute `expires_ttl`. Reads are strongly consistent.
 *
 * @example
 * const records = new DynamoDbRunRecords(process.env.RUN_RECORDS_TABLE!);
 * await records.openQuestions('acme');
 */
export class DynamoDbRunRecords implements RunRecords, QuestionRecords {
  readonly #documents: DynamoDBDocumentClient;

  /**
   * @param client - by default one with the platform's HTTP timeouts ({@link platformDocumentClient}).
   */
  constructor(
    readonly tableName: string,
    client?: DynamoDBClient,
  ) {
    this.#documents = platformDocumentClient(client);
  }

  async swapLatestFindings(
    tenant: string,
    scenario: string,
    level: string,
    current: FindingsPointer,
    options: { readonly readOnly?: boolean } = {},
  ): Promise<FindingsPointer | undefined> {
    const key = { tenant_id: tenant, record_id: findingsKey(scenario, level) };
    // Two attempts: a concurrent run of the same tenant and scenario may swap in between.
    for (let attempt = 0; ; attempt++) {
      const { Item } = await this.#documents.send(
        new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
      );
      const item = Item as FindingsItem | undefined;
      if (item?.run_id === current.runId) {
        return item.previous_run_id && item.previous_path
          ? { runId: item.previous_run_id, path: item.previous_path }
          : undefined;
      }
      if (options.readOnly) return item ? { runId: item.run_id, path: item.path } : undefined;
      try {
        await this.#documents.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...key,
              run_id: current.runId,
              path: current.path,
              previous_run_id: item?.run_id,
              previous_path: item?.path,
              updated_at: new Date().toISOString(),
            },
            ConditionExpression: item ? 'run_id = :seen' : 'attribute_not_exists(record_id)',
            ...(item ? { ExpressionAttributeValues: { ':seen': item.run_id } } : {}),
          }),
        );
        return item ? { runId: item.run_id, path: item.path } : undefined;
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException) || attempt > 0) throw err;
      }
    }
  }

  async readWatermark(tenant: string, scenario: string): Promise<Watermark | undefined> {
    const { Item } = await this.#documents.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { tenant_id: tenant, record_id: watermarkKey(scenario) },
        ConsistentRead: true,
      }),
    );
    const item = Item as WatermarkItem | undefined;
    return item ? { value: item.mark, runId: item.run_id, updatedAt: item.updated_at } : undefined;
  }

  async advanceWatermark(tenant: string, scenario: string, mark: Watermark): Promise<boolean> {
    // Read, then put on the condition that the mark read is still the one kept: two runs
    // ending together cannot move it back. Two attempts, as for the findings pointer.
    for (let attempt = 0; ; attempt++) {
      const kept = await this.readWatermark(tenant, scenario);
      if (kept && isLaterMark(kept.value, mark.value)) return false;
      try {
        await this.#documents.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              tenant_id: tenant,
              record_id: watermarkKey(scenario),
              mark: mark.value,
              run_id: mark.runId,
              updated_at: mark.updatedAt,
            } satisfies WatermarkItem & Record<string, string>,
            ConditionExpression: kept ? 'mark = :seen' : 'attribute_not_exists(record_id)',
            ...(kept ? { ExpressionAttributeValues: { ':seen': kept.value } } : {}),
          }),
        );
        return true;
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException) || attempt > 0) throw err;
      }
    }
  }

  async putQuestion(question: NewQuestion): Promise<void> {
    const item: QuestionItem = {
      tenant_id: question.tenant,
      record_id: questionKey(question.runId, question.level, question.turn),
      run_id: question.runId,
      scenario: question.scenario,
      level: question.level,
      turn: question.turn,
      question: question.question,
      status: 'open',
      asked_at: question.askedAt,
      expires_at: question.expiresAt,
      posted: question.posted,
      task_token: question.taskToken,
      expires_ttl: Math.floor(Date.parse(question.expiresAt) / 1000) + QUESTION_RETENTION_DAYS * 86_400,
    };
    await this.#documents.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  async closeQuestion(
    tenant: string,
    runId: string,
    level: string,
    turn: number,
    status: Exclude<QuestionStatus, 'open' | 'answering'>,
  ): Promise<void> {
    try {
      await this.#documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { tenant_id: tenant, record_id: questionKey(runId, level, turn) },
          UpdateExpression: 'SET #status = :status REMOVE task_token',
          ConditionExpression: '#status IN (:open, :answering)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status, ':open': 'open', ':answering': 'answering' },
        }),
      );
    } catch (err) {
      // Already closed (answered through the CLI, or a retried invocation): nothing to do.
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  async openQuestions(tenant?: string): Promise<QuestionSummary[]> {
    const filter = {
      ExpressionAttributeNames: { '#status': 'status' },
      ProjectionExpression:
        'tenant_id, record_id, run_id, scenario, #level, turn, question, #status, asked_at, expires_at, posted',
    };
    const values = { ':q': 'question#', ':open': 'open' };
    const pages =
      tenant === undefined
        ? paginateScan(
            { client: this.#documents },
            {
              TableName: this.tableName,
              FilterExpression: 'begins_with(record_id, :q) AND #status = :open',
              ExpressionAttributeNames: { ...filter.ExpressionAttributeNames, '#level': 'level' },
              ExpressionAttributeValues: values,
              ProjectionExpression: filter.ProjectionExpression,
              ConsistentRead: true,
            },
          )
        : paginateQuery(
            { client: this.#documents },
            {
              TableName: this.tableName,
              KeyConditionExpression: 'tenant_id = :t AND begins_with(record_id, :q)',
              FilterExpression: '#status = :open',
              ExpressionAttributeNames: { ...filter.ExpressionAttributeNames, '#level': 'level' },
              ExpressionAttributeValues: { ...values, ':t': tenant },
              ProjectionExpression: filter.ProjectionExpression,
              ConsistentRead: true,
            },
          );
    const questions: QuestionSummary[] = [];
    for await (const page of pages) {
      for (const item of page.Items ?? []) questions.push(summaryOf(item as QuestionItem));
    }
    return questions.sort((a, b) => compareText(a.askedAt, b.askedAt));
  }

  async claimQuestion(
    runId: string,
  ): Promise<(QuestionSummary & { readonly taskToken: string }) | undefined> {
    const pages = paginateScan(
      { client: this.#documents },
      {
        TableName: this.tableName,
        FilterExpression: 'begins_with(record_id, :q) AND run_id = :run AND #status = :open',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':q': 'question#', ':run': runId, ':open': 'open' },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const raw of page.Items ?? []) {
        const item = raw as QuestionItem;
        try {
          await this.#documents.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: { tenant_id: item.tenant_id, record_id: item.record_id },
              UpdateExpression: 'SET #status = :answering',
              ConditionExpression: '#status = :open',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':answering': 'answering', ':open': 'open' },
            }),
          );
          return { ...summaryOf(item), status: 'answering', taskToken: item.task_token };
        } catch (err) {
          if (!(err instanceof ConditionalCheckFailedException)) throw err;
        }
      }
    }
    return undefined;
  }

  async settleQuestion(question: QuestionSummary, status: QuestionStatus): Promise<void> {
    const closed = status !== 'open' && status !== 'answering';
    await this.#documents.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: {
          tenant_id: question.tenant,
          record_id: questionKey(question.runId, question.level, question.turn),
        },
        UpdateExpression: closed ? 'SET #status = :status REMOVE task_token' : 'SET #status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status },
      }),
    );
  }
}

/** Tenants whose records client a container keeps, least recently used out first. */
const MAX_TENANT_RECORDS = 256;

/**
 * The engine's records as deployed: each tenant's items through a client signed
 * with that tenant's run-data session (`credentialsOf`, functions/runtime/run-data-sessions.ts),
 * so IAM refuses any item whose partition key (`tenant_id`) is another tenant's
 * (`dynamodb:LeadingKeys`). One {@link DynamoDbRunRecords} per tenant, bounded.
 *
 * @example
 * const records = tenantScopedRunRecords(process.env.RUN_RECORDS_TABLE!, runDataCredentials()!);
 */
export function tenantScopedRunRecords(
  tableName: string,
  credentialsOf: TenantCredentials,
  createClient: (credentials: AwsCredentialIdentityProvider) => DynamoDBClient = (credentials) =>
    new DynamoDBClient({ credentials, requestHandler: awsRequestHandler() }),
): RunRecords {
  const byTenant = boundedCache<string, DynamoDbRunRecords>({
    max: MAX_TENANT_RECORDS,
    ttlMs: 24 * 3_600_000,
  });
  const of = (tenant: string) => {
    let records = byTenant.get(tenant);
    if (!records) {
      records = new DynamoDbRunRecords(tableName, createClient(credentialsOf(tenant)));
      byTenant.set(tenant, records);
    }
    return records;
  };
  return {
    swapLatestFindings: (tenant, scenario, level, current, options) =>
      of(tenant).swapLatestFindings(tenant, scenario, level, current, options),
    putQuestion: (question) => of(question.tenant).putQuestion(question),
    closeQuestion: (tenant, runId, level, turn, status) =>
      of(tenant).closeQuestion(tenant, runId, level, turn, status),
    readWatermark: (tenant, scenario) => of(tenant).readWatermark(tenant, scenario),
    advanceWatermark: (tenant, scenario, mark) => of(tenant).advanceWatermark(tenant, scenario, mark),
  };
}
