import { clearAssumedRoleCache } from '../../../functions/runtime/aws/credentials';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import { DynamoDbSecretReferenceStore } from '../../../functions/runtime/secrets/dynamodb-store';
import { inlineFingerprint } from '../../../functions/runtime/secrets/inline-blob';
import { sealInlineValue } from '../../../functions/runtime/secrets/inline-kms';
import { deployedSecretResolver } from '../../../functions/runtime/secrets/tenant-scope';
import { createSecretReferenceTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';
import { type LocalDynamoGate, type LocalSts, startDynamoGate, startLocalSts } from '../../helpers/local-iam';
import { type LocalKms, startLocalKms } from '../../helpers/local-kms';

/**
 * Inline references as a deployed tool function reads them, on 127.0.0.1: the
 * row through the tenant's reader session (a DynamoDB gate enforcing the
 * leading key), the value through KMS Decrypt signed by that same session, and
 * the local KMS enforcing the key policy's reader statement — the session's
 * reader role is the name's, and its tenant tag equals the context's tenant.
 */
const READERS = {
  aws_default: 'arn:aws:iam::123456789012:role/etp-reader-aws_default',
  slack_default: 'arn:aws:iam::123456789012:role/etp-reader-slack_default',
};
const ACME_SLACK = '{"bot_token":"xoxb-acme-inline-fake-test"}';

let dynamo: LocalDynamoDb;
let sts: LocalSts;
let gate: LocalDynamoGate;
let kms: LocalKms;
let table: string;
const saved = { ...process.env };

beforeAll(async () => {
  dynamo = await startDynalite();
  sts = await startLocalSts();
  gate = await startDynamoGate(dynamo.endpoint, sts);
  // The key policy's reader statement, as the local KMS's authorization.
  kms = await startLocalKms((accessKeyId, context) => {
    const session = sts.sessionOf(accessKeyId);
    const reader = Object.entries(READERS).find(([, arn]) => arn === session?.roleArn)?.[0];
    return (
      session !== undefined && reader === context.secret_name && session.tags['etp-tenant'] === context.tenant
    );
  });
  table = await createSecretReferenceTable(dynamo.client);
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    AWS_ENDPOINT_URL_STS: sts.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint,
    AWS_ENDPOINT_URL_KMS: kms.endpoint,
  });
  const store = new DynamoDbSecretReferenceStore(table, dynamo.client);
  const sealed = await sealInlineValue(kms.client, kms.keyArn, 'acme', 'slack_default', ACME_SLACK);
  await store.put({
    tenant_id: 'acme',
    secret_name: 'slack_default',
    ref_kind: 'inline',
    ref_value: sealed.refValue,
    fingerprint: inlineFingerprint('acme', 'slack_default', ACME_SLACK),
  });
  // The attack: globex's row holds a copy of acme's ciphertext.
  await store.put({
    tenant_id: 'globex',
    secret_name: 'slack_default',
    ref_kind: 'inline',
    ref_value: sealed.refValue,
    fingerprint: inlineFingerprint('globex', 'slack_default', ACME_SLACK),
  });
}, 30_000);

afterAll(async () => {
  process.env = saved;
  await Promise.all([gate.stop(), kms.stop(), sts.stop(), dynamo.stop()]);
});

beforeEach(() => {
  clearAssumedRoleCache();
});

describe("a deployed function opens a tenant's inline secret with that tenant's reader session", () => {
  it('decrypts with the slack_default reader session tagged acme', async () => {
    // Act
    const value = await deployedSecretResolver(table, READERS).resolve('acme', 'slack_default');

    // Assess
    expect(value).toEqual(JSON.parse(ACME_SLACK));
    expect(kms.calls.at(-1)).toBe('Decrypt');
  });

  it("refuses globex's copy of acme's ciphertext: globex's session asks under globex's context, which does not open it", async () => {
    // Act
    let failure: ReturnType<typeof normalizeError> | undefined;
    try {
      await deployedSecretResolver(table, READERS).resolve('globex', 'slack_default');
    } catch (err) {
      failure = normalizeError('slack_post_message', err);
    }

    // Assess
    expect(failure).toMatchObject({ code: 'secret_invalid', service: 'kms' });
    expect(failure?.message).toContain(
      'Inline secret "slack_default" of tenant "globex" cannot be decrypted',
    );
    expect(JSON.stringify(failure)).not.toContain('xoxb');
  });
});
