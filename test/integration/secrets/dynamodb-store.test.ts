import { PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { InvalidArgsError, ServiceCallError } from '../../../functions/runtime/errors';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import { DynamoDbSecretReferenceStore } from '../../../functions/runtime/secrets/dynamodb-store';
import { defaultProviders, EnvSecretProvider } from '../../../functions/runtime/secrets/providers';
import type { SecretReference } from '../../../functions/runtime/secrets/reference';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import { createSecretReferenceTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';

const SLACK_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:etp/acme/slack-AbCdEf';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let dynamo: LocalDynamoDb;
let table: string;
let store: DynamoDbSecretReferenceStore;
/** Every command the store sent, with its input, in order. */
let sent: { command: string; input: Record<string, unknown> }[];

const reference = (overrides: Partial<SecretReference> = {}): SecretReference => ({
  tenant_id: 'acme',
  secret_name: 'slack_default',
  ref_kind: 'secrets_manager',
  ref_value: SLACK_ARN,
  metadata: { team: 'T0123ABCD', rotated_by: 'ops' },
  notes: 'bot token of the #ops workspace',
  created_by: 'alice@example.com',
  ...overrides,
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rows in the table, read past the store. */
async function tableCount(): Promise<number> {
  const { Count } = await dynamo.client.send(new ScanCommand({ TableName: table, Select: 'COUNT' }));
  return Count ?? -1;
}

beforeEach(async () => {
  dynamo = await startDynalite();
  table = await createSecretReferenceTable(dynamo.client);
  sent = [];
  dynamo.client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({ command: String(context.commandName), input: args.input as Record<string, unknown> });
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  store = new DynamoDbSecretReferenceStore(table, dynamo.client);
});

afterEach(async () => {
  await dynamo.stop();
});

describe('DynamoDbSecretReferenceStore on dynalite', () => {
  it('puts a reference and gets it back with its timestamps', async () => {
    // Act
    const written = await store.put(reference());
    const read = await store.get('acme', 'slack_default');

    // Assess
    expect(read).toEqual({
      tenant_id: 'acme',
      secret_name: 'slack_default',
      ref_kind: 'secrets_manager',
      ref_value: SLACK_ARN,
      metadata: { team: 'T0123ABCD', rotated_by: 'ops' },
      notes: 'bot token of the #ops workspace',
      created_by: 'alice@example.com',
      created_at: expect.stringMatching(ISO_UTC),
      updated_at: expect.stringMatching(ISO_UTC),
    });
    expect(written).toEqual(read);
    expect(read?.created_at).toBe(read?.updated_at);
  });

  it('answers undefined for a reference the tenant does not have', async () => {
    // Prepare
    await store.put(reference());

    // Act
    const other = await store.get('globex', 'slack_default');
    const missing = await store.get('acme', 'aws_default');

    // Assess
    expect(other).toBeUndefined();
    expect(missing).toBeUndefined();
  });

  it('lists one tenant, or every tenant, sorted by tenant then name, with strongly consistent reads', async () => {
    // Prepare
    await store.put(reference({ tenant_id: 'globex', secret_name: 'slack_default' }));
    await store.put(reference({ secret_name: 'slack_alerts' }));
    await store.put(reference({ ref_kind: 'env', ref_value: 'ACME_AWS', secret_name: 'aws_default' }));
    await store.put(reference());

    // Act
    const acme = await store.list('acme');
    const all = await store.list();

    // Assess
    expect(acme.map((r) => r.secret_name)).toEqual(['aws_default', 'slack_alerts', 'slack_default']);
    expect(acme[0]).toMatchObject({ tenant_id: 'acme', ref_kind: 'env', ref_value: 'ACME_AWS' });
    expect(all.map((r) => `${r.tenant_id}/${r.secret_name}`)).toEqual([
      'acme/aws_default',
      'acme/slack_alerts',
      'acme/slack_default',
      'globex/slack_default',
    ]);
    const reads = sent.filter((s) => s.command === 'QueryCommand' || s.command === 'ScanCommand');
    expect(reads.map((s) => [s.command, s.input.ConsistentRead])).toEqual([
      ['QueryCommand', true],
      ['ScanCommand', true],
    ]);
  });

  it('deletes a reference, answering whether there was one', async () => {
    // Prepare
    await store.put(reference());
    await store.put(reference({ secret_name: 'slack_alerts' }));

    // Act
    const deleted = await store.delete('acme', 'slack_default');
    const again = await store.delete('acme', 'slack_default');

    // Assess
    expect([deleted, again]).toEqual([true, false]);
    expect(await store.get('acme', 'slack_default')).toBeUndefined();
    expect((await store.list('acme')).map((r) => r.secret_name)).toEqual(['slack_alerts']);
  });

  it('on replace keeps created_at and created_by, moves updated_at, and drops notes and metadata not given', async () => {
    // Prepare
    const first = await store.put(reference());
    await pause(5);

    // Act
    const replaced = await store.put({
      tenant_id: 'acme',
      secret_name: 'slack_default',
      ref_kind: 'env',
      ref_value: 'ACME_SLACK',
      created_by: 'mallory@example.com',
    });

    // Assess
    expect(replaced).toEqual({
      tenant_id: 'acme',
      secret_name: 'slack_default',
      ref_kind: 'env',
      ref_value: 'ACME_SLACK',
      created_by: 'alice@example.com',
      created_at: first.created_at,
      updated_at: expect.stringMatching(ISO_UTC),
    });
    expect(Date.parse(replaced.updated_at as string)).toBeGreaterThan(Date.parse(first.updated_at as string));
    expect(await store.get('acme', 'slack_default')).toEqual(replaced);
  });

  it('accepts a row read from the table back, ignoring the timestamps it manages', async () => {
    // Prepare
    const first = await store.put(reference());
    await pause(5);

    // Act
    const replaced = await store.put({ ...first, notes: 'rotated', created_at: '1999-01-01T00:00:00.000Z' });

    // Assess
    expect(replaced.notes).toBe('rotated');
    expect(replaced.created_at).toBe(first.created_at);
    expect(replaced.updated_at).not.toBe(first.updated_at);
  });

  it.each([
    ['an unsupported ref_kind', reference({ ref_kind: 'vault' }), /ref_kind/],
    [
      'an env ref that is not a variable name',
      reference({ ref_kind: 'env', ref_value: 'my secret' }),
      /environment variable name/,
    ],
    [
      'a secrets_manager ref that is not an ARN',
      reference({ ref_value: 'etp/acme/slack' }),
      /must be a secret ARN/,
    ],
    [
      'a ref_value that is a credential',
      reference({ ref_kind: 'env', ref_value: 'xoxb-000000000001-000000000002-abcdefabcdef' }),
      /looks like a credential/,
    ],
    ['a malformed tenant id', reference({ tenant_id: 'acme corp' }), /tenant_id/],
  ])('rejects %s with invalid_args before any write', async (_label, row, message) => {
    // Act
    const attempt = store.put(row);

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(InvalidArgsError);
    await expect(attempt).rejects.toThrow(message);
    expect(sent.map((s) => s.command)).not.toContain('UpdateItemCommand');
    expect(await tableCount()).toBe(0);
  });
});

describe('SecretResolver over the DynamoDB store', () => {
  const environment = {
    ACME_SLACK: JSON.stringify({ bot_token: 'xoxb-000000000001-000000000002-acmeslacktoken01' }),
    ACME_PAGER: 'pd-routing-key-0001',
  };
  const resolver = () =>
    new SecretResolver(store, {
      providers: { ...defaultProviders(), env: new EnvSecretProvider(environment) },
    });

  it('resolves an env reference to its parsed JSON object, and a plain value to { value }', async () => {
    // Prepare
    await store.put(reference({ ref_kind: 'env', ref_value: 'ACME_SLACK' }));
    await store.put(reference({ secret_name: 'pager_default', ref_kind: 'env', ref_value: 'ACME_PAGER' }));
    const secrets = resolver();

    // Act
    const slack = await secrets.resolve('acme', 'slack_default');
    const pager = await secrets.resolve('acme', 'pager_default');

    // Assess
    expect(slack).toEqual({ bot_token: 'xoxb-000000000001-000000000002-acmeslacktoken01' });
    expect(pager).toEqual({ value: 'pd-routing-key-0001' });
  });

  it('answers unsupported_ref_kind for a row written past the store with ref_kind vault', async () => {
    // Prepare
    await dynamo.client.send(
      new PutItemCommand({
        TableName: table,
        Item: {
          tenant_id: { S: 'acme' },
          secret_name: { S: 'slack_default' },
          ref_kind: { S: 'vault' },
          ref_value: { S: 'secret/data/acme/slack' },
        },
      }),
    );

    // Act
    const attempt = resolver().resolve('acme', 'slack_default');

    // Assess
    await expect(attempt).rejects.toMatchObject({
      code: 'unsupported_ref_kind',
      message: 'Unsupported ref_kind "vault". Supported: env, secrets_manager, inline',
    });
    expect(await store.get('acme', 'slack_default')).toMatchObject({ ref_kind: 'vault' });
  });

  it('answers secret_not_found for a tenant without the reference', async () => {
    // Act
    const attempt = resolver().resolve('globex', 'slack_default');

    // Assess
    await expect(attempt).rejects.toMatchObject({
      code: 'secret_not_found',
      message:
        'Tenant "globex" has no secret reference named "slack_default" and environment variable ' +
        'ETP_SECRET_GLOBEX__SLACK_DEFAULT is not set',
    });
  });
});

describe('DynamoDbSecretReferenceStore failures name the table and its region', () => {
  it('says which table is missing, and where, instead of a bare "Requested resource not found"', async () => {
    // Prepare
    const missing = new DynamoDbSecretReferenceStore('no-such-table', dynamo.client);
    const region = await dynamo.client.config.region();

    // Act
    const failure = await missing.get('acme', 'slack_default').catch((err: unknown) => err);

    // Assess
    expect(failure).toBeInstanceOf(ServiceCallError);
    expect((failure as ServiceCallError).service).toBe('dynamodb');
    expect((failure as Error).message).toBe(
      `Secret-reference table no-such-table (region ${region}): Requested resource not found`,
    );
    expect(normalizeError('aws_iam_audit', failure)).toMatchObject({
      code: 'not_found',
      service: 'dynamodb',
    });
  });
});
