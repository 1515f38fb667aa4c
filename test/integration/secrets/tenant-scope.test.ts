import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsAccessFromSecret, clearAssumedRoleCache } from '../../../functions/runtime/aws/credentials';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import { DynamoDbSecretReferenceStore } from '../../../functions/runtime/secrets/dynamodb-store';
import type { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import {
  deployedSecretResolver,
  TenantSecretSessions,
} from '../../../functions/runtime/secrets/tenant-scope';
import { createSecretReferenceTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';
import {
  type LocalDynamoGate,
  type LocalSecretsManager,
  type LocalSts,
  startDynamoGate,
  startLocalSecretsManager,
  startLocalSts,
} from '../../helpers/local-iam';

/**
 * A deployed tool function's secret resolution, end to end on 127.0.0.1: reader
 * sessions from STS tagged with the tenant, rows read through a DynamoDB gate
 * and secrets from Secrets Manager, both enforcing what the reader policy allows.
 */
const READERS = {
  aws_default: 'arn:aws:iam::123456789012:role/etp-reader-aws_default',
  slack_default: 'arn:aws:iam::123456789012:role/etp-reader-slack_default',
};

let dynamo: LocalDynamoDb;
let sts: LocalSts;
let secretsManager: LocalSecretsManager;
let gate: LocalDynamoGate;
let table: string;
const saved = { ...process.env };

beforeAll(async () => {
  dynamo = await startDynalite();
  sts = await startLocalSts();
  gate = await startDynamoGate(dynamo.endpoint, sts);
  secretsManager = await startLocalSecretsManager(
    sts,
    (role) => Object.entries(READERS).find(([, arn]) => arn === role)?.[0],
  );
  table = await createSecretReferenceTable(dynamo.client);
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    AWS_ENDPOINT_URL_STS: sts.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint,
  });
  const acmeAws = secretsManager.create('etp/acme/aws_default', '{"region":"eu-west-1"}', {
    'etp-tenant': 'acme',
    'etp-secret': 'aws_default',
  });
  const acmeSlack = secretsManager.create('etp/acme/slack_default', '{"bot_token":"xoxb-acme-fake-test"}', {
    'etp-tenant': 'acme',
    'etp-secret': 'slack_default',
  });
  const store = new DynamoDbSecretReferenceStore(table, dynamo.client);
  await store.put({
    tenant_id: 'acme',
    secret_name: 'aws_default',
    ref_kind: 'secrets_manager',
    ref_value: acmeAws.arn,
  });
  await store.put({
    tenant_id: 'acme',
    secret_name: 'slack_default',
    ref_kind: 'secrets_manager',
    ref_value: acmeSlack.arn,
  });
  // The attack: globex's operator points globex's row at acme's secret.
  await store.put({
    tenant_id: 'globex',
    secret_name: 'slack_default',
    ref_kind: 'secrets_manager',
    ref_value: acmeSlack.arn,
  });
  await store.put({
    tenant_id: 'globex',
    secret_name: 'aws_default',
    ref_kind: 'env',
    ref_value: 'ETP_GLOBEX_AWS',
  });
}, 30_000);

afterAll(async () => {
  process.env = saved;
  await Promise.all([gate.stop(), secretsManager.stop(), sts.stop(), dynamo.stop()]);
});

beforeEach(() => {
  clearAssumedRoleCache();
});

function resolver(): SecretResolver {
  return deployedSecretResolver(table, READERS);
}

describe('a deployed function reads a tenant’s row and secret through that tenant’s reader session', () => {
  it('assumes the name’s reader role tagged with the tenant, in the platform region, and reads with it', async () => {
    // Prepare
    const before = sts.sessions.length;

    // Act
    const value = await resolver().resolve('acme', 'slack_default');

    // Assess
    expect(value).toEqual({ bot_token: 'xoxb-acme-fake-test' });
    const [session] = sts.sessions.slice(before);
    expect(session).toMatchObject({
      roleArn: READERS.slack_default,
      roleSessionName: 'etp-secrets.acme',
      sourceIdentity: 'etp.acme',
      durationSeconds: 3600,
      tags: { 'etp-tenant': 'acme' },
      stsRegion: 'eu-west-1',
    });
    const key = session?.accessKeyId;
    expect(gate.calls.filter((call) => call.accessKeyId === key)).toEqual([
      { operation: 'GetItem', tenant: 'acme', accessKeyId: key, allowed: true },
    ]);
    expect(
      secretsManager.calls.filter((call) => call.accessKeyId === key).map((call) => call.operation),
    ).toEqual(['GetSecretValue']);
  });

  it('refuses a row of tenant globex pointing at acme’s secret: globex’s session may not read it', async () => {
    // Prepare: one warm container; acme's value is in its own cache first.
    const warm = resolver();
    await warm.resolve('acme', 'slack_default');

    // Act
    const attempt = await warm.resolve('globex', 'slack_default').catch((err: unknown) => err);

    // Assess
    expect(normalizeError('slack_post_message', attempt)).toMatchObject({ code: 'access_denied' });
    const globexSession = sts.sessions.findLast((session) => session.tags['etp-tenant'] === 'globex');
    expect(secretsManager.calls.at(-1)).toMatchObject({
      operation: 'GetSecretValue',
      accessKeyId: globexSession?.accessKeyId,
      allowed: false,
    });
  });

  it('never reads another tenant’s row: a session of acme asking for globex’s row is refused', async () => {
    // Prepare
    const sessions = new TenantSecretSessions(READERS);
    const acmeCredentials = sessions.credentials('acme', 'aws_default');
    const crossed = new DynamoDbSecretReferenceStore(
      table,
      new DynamoDBClient({ credentials: acmeCredentials }),
    );

    // Act
    const attempt = await crossed.get('globex', 'aws_default').catch((err: unknown) => err);

    // Assess
    expect(normalizeError('x', attempt)).toMatchObject({ code: 'access_denied' });
  });

  it('refuses an env reference in a deployed function, naming Secrets Manager', async () => {
    // Act
    const attempt = resolver().resolve('globex', 'aws_default');

    // Assess
    await expect(attempt).rejects.toMatchObject({
      code: 'unsupported_ref_kind',
      message: expect.stringContaining('deployed tools read secrets from Secrets Manager only'),
    });
  });

  it('reads no secret name the function has no reader for', async () => {
    // Act
    const attempt = deployedSecretResolver(table, { aws_default: READERS.aws_default }).resolve(
      'acme',
      'slack_default',
    );

    // Assess
    await expect(attempt).rejects.toMatchObject({
      code: 'internal_error',
      message: 'This function may not read secret "slack_default": its spec does not list it',
    });
  });

  it('opens one session per tenant and secret name, and reuses it', async () => {
    // Prepare
    const warm = resolver();
    const before = sts.sessions.length;

    // Act
    await warm.resolve('acme', 'aws_default', { fresh: true });
    await warm.resolve('acme', 'aws_default', { fresh: true });
    await warm.resolve('acme', 'slack_default', { fresh: true });

    // Assess
    expect(
      sts.sessions.slice(before).map((s) => `${s.tags['etp-tenant']}:${s.roleArn.split('-').pop()}`),
    ).toEqual(['acme:aws_default', 'acme:slack_default']);
  });
});

describe('TenantSecretSessions', () => {
  it('is bounded: the least recently used session goes first', async () => {
    // Prepare
    const assumed: string[] = [];
    const sessions = new TenantSecretSessions(READERS, {
      maxSessions: 2,
      assume: async (input) => {
        assumed.push(String(input.Tags?.[0]?.Value));
        return { accessKeyId: 'k', secretAccessKey: 's', expiration: new Date(Date.now() + 3_600_000) };
      },
    });

    // Act
    for (const tenant of ['a', 'b', 'c', 'a']) await sessions.credentials(tenant, 'aws_default')();

    // Assess
    expect(sessions.size).toBe(2);
    expect(assumed).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('TenantSecretSessions, narrowed by a session policy', () => {
  it('sends the policy with AssumeRole and caches the narrowed session apart from the plain one and per policy', async () => {
    // Prepare
    const asked: { readonly tenant: string; readonly policy?: string }[] = [];
    const sessions = new TenantSecretSessions(READERS, {
      assume: async (input) => {
        asked.push({
          tenant: String(input.Tags?.[0]?.Value),
          ...(input.Policy ? { policy: input.Policy } : {}),
        });
        return { accessKeyId: 'k', secretAccessKey: 's', expiration: new Date(Date.now() + 3_600_000) };
      },
    });
    const runOne =
      '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::b/runs/acme/s/r1/f"]}]}';
    const runTwo = runOne.replace('/r1/', '/r2/');

    // Act
    for (const policy of [runOne, runOne, undefined, runTwo]) {
      await sessions.credentials('acme', 'aws_default', policy)();
    }

    // Assess
    expect(asked).toEqual([
      { tenant: 'acme', policy: runOne },
      { tenant: 'acme' },
      { tenant: 'acme', policy: runTwo },
    ]);
  });
});

describe('customer-account sessions', () => {
  const customerRole = 'arn:aws:iam::210987654321:role/ExternalToolsPlatformAudit';
  const call = { tenant: 'acme', scenario: 'aws_pulse', runId: 'run-7', callId: 'collect/0' };

  it('are opened in the platform’s region, never the tenant’s, tagged and with a source identity', async () => {
    // Prepare: the tenant's resources are in an opt-in region the platform account has not enabled.
    const before = sts.sessions.length;
    const access = awsAccessFromSecret(
      { role_arn: customerRole, external_id: 'etp-acme-3f9a1c7e', region: 'ap-southeast-4' },
      call,
    );

    // Act
    await access.credentials();

    // Assess
    expect(access.region).toBe('ap-southeast-4');
    expect(sts.sessions.slice(before)).toEqual([
      expect.objectContaining({
        roleArn: customerRole,
        roleSessionName: 'etp-run-7',
        externalId: 'etp-acme-3f9a1c7e',
        sourceIdentity: 'etp.acme',
        durationSeconds: 3600,
        tags: { 'etp-tenant': 'acme', 'etp-scenario': 'aws_pulse', 'etp-run': 'run-7' },
        stsRegion: 'eu-west-1',
      }),
    ]);
  });

  it('are refused before STS for a role the deployed function may not assume', () => {
    // Prepare
    process.env.CUSTOMER_ROLE_NAME = 'ExternalToolsPlatformAudit';
    const before = sts.sessions.length;

    // Act
    const attempt = () => awsAccessFromSecret({ role_arn: 'arn:aws:iam::210987654321:role/Admin' }, call);

    // Assess
    try {
      expect(attempt).toThrow(
        'AWS secret is invalid in: role_arn. The platform may assume only the role named ExternalToolsPlatformAudit',
      );
      expect(awsAccessFromSecret({ role_arn: customerRole }, call).mode).toBe('assume_role');
      expect(sts.sessions.length).toBe(before);
    } finally {
      delete process.env.CUSTOMER_ROLE_NAME;
    }
  });
});
