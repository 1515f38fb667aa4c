/**
 * `etp secrets seed` of Secrets Manager references, against dynalite and a local
 * Secrets Manager on 127.0.0.1: the secret is tagged with its tenant and name
 * (what the deployed reader roles require), a secret serving another tenant is
 * refused, and every place deployed functions cannot read is warned about.
 */
// See test/unit/cli/run-etp.ts: commander is ESM-only; Node's own loader gives it to the CLI.
jest.mock('commander', () => require('node:module')._load(require.resolve('commander'), null, false));

import { DynamoDbSecretReferenceStore } from '../../../functions/runtime/secrets/dynamodb-store';
import { createSecretReferenceTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';
import {
  type LocalSecretsManager,
  type LocalSts,
  startLocalSecretsManager,
  startLocalSts,
} from '../../helpers/local-iam';
import { FAKE_AWS_CREDENTIALS } from '../../helpers/loopback-server';
import { etp } from '../../unit/cli/run-etp';

const TABLE = 'etp-secret-references';
/** dynalite's table ARN: arn:aws:dynamodb:us-east-1:000000000000:table/… — the "platform" here. */
const PLATFORM_ACCOUNT = '000000000000';

let dynamo: LocalDynamoDb;
let sts: LocalSts;
let secretsManager: LocalSecretsManager;
let store: DynamoDbSecretReferenceStore;
const savedEnv = { ...process.env };
const tableEnv = { ETP_SECRET_REFS_TABLE: TABLE };

beforeAll(async () => {
  dynamo = await startDynalite();
  await createSecretReferenceTable(dynamo.client, TABLE);
  store = new DynamoDbSecretReferenceStore(TABLE, dynamo.client);
  sts = await startLocalSts();
  secretsManager = await startLocalSecretsManager(sts, () => undefined, 'us-east-1');
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: FAKE_AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_AWS_CREDENTIALS.secretAccessKey,
  });
});

afterAll(async () => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await Promise.all([dynamo.stop(), secretsManager.stop(), sts.stop()]);
});

function seed(tenant: string, secretName: string, refKind: string, refValue?: string, ...more: string[]) {
  return etp(
    [
      'secrets',
      'seed',
      '--tenant',
      tenant,
      '--secret-name',
      secretName,
      '--ref-kind',
      refKind,
      ...(refValue === undefined ? [] : ['--ref-value', refValue]),
      ...more,
    ],
    tableEnv,
  );
}

describe('etp secrets seed --ref-kind secrets_manager', () => {
  it('tags the secret with its tenant and name, then writes the row, with no warning', async () => {
    // Prepare
    const secret = secretsManager.create(
      'etp/acme/slack_default',
      '{"bot_token":"xoxb-fake"}',
      {},
      PLATFORM_ACCOUNT,
    );

    // Act
    const outcome = await seed('acme', 'slack_default', 'secrets_manager', secret.arn);

    // Assess
    expect(outcome).toEqual({
      code: 0,
      out:
        `Seeded acme/slack_default -> secrets_manager ${secret.arn} in table ${TABLE}\n` +
        'Tagged the secret etp-tenant=acme, etp-secret=slack_default\n',
      err: '',
    });
    expect(secretsManager.get(secret.arn)?.tags).toEqual({
      'etp-tenant': 'acme',
      'etp-secret': 'slack_default',
    });
    expect(await store.get('acme', 'slack_default')).toMatchObject({ ref_value: secret.arn });
  });

  it('refuses a secret tagged for another tenant, and writes no row', async () => {
    // Prepare: acme's secret, which globex's operator tries to seed as globex's.
    const secret = secretsManager.create(
      'etp/acme/aws_default',
      '{"region":"eu-west-1"}',
      { 'etp-tenant': 'acme', 'etp-secret': 'aws_default' },
      PLATFORM_ACCOUNT,
    );

    // Act
    const outcome = await seed('globex', 'aws_default', 'secrets_manager', secret.arn);

    // Assess
    expect(outcome.code).toBe(1);
    expect(outcome.err).toBe(
      "error: The secret is tagged etp-tenant=acme: it serves another tenant. One secret serves one tenant's one " +
        'secret name: create a secret for globex/aws_default\n',
    );
    expect(secretsManager.get(secret.arn)?.tags['etp-tenant']).toBe('acme');
    expect(await store.get('globex', 'aws_default')).toBeUndefined();
  });

  it('warns about a secret outside what deployed functions read: name, account and region', async () => {
    // Prepare
    const secret = secretsManager.create('prod/db-password', '{"value":"x"}', {}, '111122223333');

    // Act
    const outcome = await seed('acme', 'pager_default', 'secrets_manager', secret.arn);

    // Assess
    expect(outcome.code).toBe(0);
    expect(outcome.err.trimEnd().split('\n')).toEqual([
      'warning: the secret is named prod/db-password: deployed functions read only secrets named etp/… ' +
        '(conventionally etp/acme/<secret name>)',
      "warning: the secret is in account 111122223333, region us-east-1: deployed functions read secrets of the platform's account 000000000000 in us-east-1 only",
    ]);
  });

  it('with --no-tag, leaves the secret untagged and says deployed functions cannot read it', async () => {
    // Prepare
    const secret = secretsManager.create('etp/acme/pager_default', '{"value":"x"}', {}, PLATFORM_ACCOUNT);

    // Act
    const outcome = await seed('acme', 'pager_default', 'secrets_manager', secret.arn, '--no-tag');

    // Assess
    expect(outcome.code).toBe(0);
    expect(outcome.err).toBe(
      'warning: the secret is not tagged etp-tenant=acme, etp-secret=pager_default: deployed functions cannot read it until it is\n',
    );
    expect(secretsManager.get(secret.arn)?.tags).toEqual({});
  });

  it('warns when a customer managed KMS key encrypts the secret', async () => {
    // Prepare
    const secret = secretsManager.create('etp/acme/kms_default', '{"value":"x"}', {}, PLATFORM_ACCOUNT);
    secret.kmsKeyId = 'arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab';

    // Act
    const outcome = await seed('acme', 'kms_default', 'secrets_manager', secret.arn);

    // Assess
    expect(outcome.err).toContain('its key policy must allow kms:Decrypt');
  });
});

describe('etp secrets seed --ref-kind env', () => {
  it('defaults --ref-value to the conventional variable, and says env is for local runs', async () => {
    // Act
    const outcome = await seed('acme', 'aws_default', 'env');

    // Assess
    expect(outcome).toEqual({
      code: 0,
      out: `Seeded acme/aws_default -> env ETP_SECRET_ACME__AWS_DEFAULT in table ${TABLE}\n`,
      err: 'warning: an env reference is read by local runs only; deployed tools read secrets from Secrets Manager\n',
    });
  });

  it('asks for --ref-value when the tenant has no conventional variable', async () => {
    // Act
    const outcome = await seed('Team-1', 'aws_default', 'env');

    // Assess
    expect(outcome.code).toBe(2);
    expect(outcome.err).toContain('--ref-value is required: Team-1/aws_default has no conventional variable');
  });
});
