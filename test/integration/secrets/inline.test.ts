import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import { DynamoDbSecretReferenceStore } from '../../../functions/runtime/secrets/dynamodb-store';
import {
  INLINE_VALUE_MAX_BYTES,
  inlineFingerprint,
  KMS_ENCRYPT_MAX_BYTES,
} from '../../../functions/runtime/secrets/inline-blob';
import { InlineSecretProvider, sealInlineValue } from '../../../functions/runtime/secrets/inline-kms';
import type { SecretReference } from '../../../functions/runtime/secrets/reference';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import { createSecretReferenceTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';
import { type LocalKms, startLocalKms } from '../../helpers/local-kms';

/**
 * Inline references end to end on real local servers: the real KMS SDK client
 * against the local KMS stand-in (which enforces encryption contexts and key
 * states), rows in dynalite, the platform's resolver reading them back.
 */
const SLACK_VALUE = '{"bot_token":"xoxb-2222222222-3333333333333-AbCdEfGhIjKlMnOpQrStUvWx"}';
const ROTATED_VALUE = '{"bot_token":"xoxb-4444444444-5555555555555-ZyXwVuTsRqPoNmLkJiHgFeDc"}';

let dynamo: LocalDynamoDb;
let kms: LocalKms;
let table: string;
let store: DynamoDbSecretReferenceStore;

/** Seals `value` for (tenant, name) and writes the row as `etp secrets seed` does. */
async function seed(tenant: string, name: string, value: string): Promise<SecretReference> {
  const sealed = await sealInlineValue(kms.client, kms.keyArn, tenant, name, value);
  return store.put({
    tenant_id: tenant,
    secret_name: name,
    ref_kind: 'inline',
    ref_value: sealed.refValue,
    fingerprint: inlineFingerprint(tenant, name, value),
  });
}

function resolver(): SecretResolver {
  return new SecretResolver(store, {
    providers: { inline: new InlineSecretProvider(() => kms.client) },
    conventionFallback: false,
  });
}

/** The normalized error of a failed resolve, as a tool's result would carry it. */
async function failureOf(promise: Promise<unknown>): Promise<ReturnType<typeof normalizeError>> {
  try {
    await promise;
  } catch (err) {
    return normalizeError('slack_post_message', err);
  }
  throw new Error('expected the resolve to fail');
}

/** Writes a row as it is, past validation (a copy made by hand, a tampered blob). */
async function writeRaw(row: Record<string, string>): Promise<void> {
  await dynamo.client.send(
    new PutItemCommand({
      TableName: table,
      Item: Object.fromEntries(Object.entries(row).map(([key, value]) => [key, { S: value }])),
    }),
  );
}

beforeEach(async () => {
  [dynamo, kms] = await Promise.all([startDynalite(), startLocalKms()]);
  table = await createSecretReferenceTable(dynamo.client);
  store = new DynamoDbSecretReferenceStore(table, dynamo.client);
});

afterEach(async () => {
  await Promise.all([dynamo.stop(), kms.stop()]);
});

describe('inline secret references on a local KMS and dynalite', () => {
  it('round-trips a small value through KMS Encrypt, keeping only ciphertext and fingerprint in the row', async () => {
    // Act
    const row = await seed('acme', 'slack_default', SLACK_VALUE);
    const value = await resolver().resolve('acme', 'slack_default');

    // Assess
    expect(value).toEqual(JSON.parse(SLACK_VALUE));
    expect(row.ref_value).toMatch(/^etp-inline\.v1\.kms\.[A-Za-z0-9_-]+$/);
    expect(row.fingerprint).toBe(inlineFingerprint('acme', 'slack_default', SLACK_VALUE));
    const { Item } = await dynamo.client.send(
      new GetItemCommand({
        TableName: table,
        Key: { tenant_id: { S: 'acme' }, secret_name: { S: 'slack_default' } },
      }),
    );
    expect(JSON.stringify(Item)).not.toContain('xoxb');
    expect(kms.calls).toEqual(['Encrypt', 'Decrypt']);
  });

  it('seals a value over the 4,096 bytes KMS encrypts itself with envelope encryption', async () => {
    // Prepare: a JSON value of 10 KB.
    const large = JSON.stringify({ private_key: 'k'.repeat(10_000) });
    expect(Buffer.byteLength(large)).toBeGreaterThan(KMS_ENCRYPT_MAX_BYTES);

    // Act
    const row = await seed('acme', 'github_default', large);
    const value = await resolver().resolve('acme', 'github_default');

    // Assess
    expect(row.ref_value).toMatch(/^etp-inline\.v1\.envelope\./);
    expect(value).toEqual(JSON.parse(large));
    expect(kms.calls).toEqual(['GenerateDataKey', 'Decrypt']);
  });

  it('re-seeding replaces the row at once; the cache serves the old value until a fresh read', async () => {
    // Prepare
    await seed('acme', 'slack_default', SLACK_VALUE);
    const secrets = resolver();
    await secrets.resolve('acme', 'slack_default');

    // Act
    const rotated = await seed('acme', 'slack_default', ROTATED_VALUE);
    const cached = await secrets.resolve('acme', 'slack_default');
    const fresh = await secrets.resolve('acme', 'slack_default', { fresh: true });

    // Assess
    expect(cached).toEqual(JSON.parse(SLACK_VALUE));
    expect(fresh).toEqual(JSON.parse(ROTATED_VALUE));
    expect(rotated.fingerprint).toBe(inlineFingerprint('acme', 'slack_default', ROTATED_VALUE));
  });

  it.each([
    ['another tenant', 'globex', 'slack_default'],
    ['another secret name of the same tenant', 'acme', 'slack_ops'],
  ])('refuses a row copied to %s: the encryption context no longer matches', async (_, tenant, name) => {
    // Prepare: acme's ciphertext copied into another row.
    const original = await seed('acme', 'slack_default', SLACK_VALUE);
    await writeRaw({
      tenant_id: tenant,
      secret_name: name,
      ref_kind: 'inline',
      ref_value: original.ref_value,
      fingerprint: original.fingerprint as string,
    });

    // Act
    const error = await failureOf(resolver().resolve(tenant, name));

    // Assess
    expect(error).toMatchObject({ code: 'secret_invalid', retryable: false, service: 'kms' });
    expect(error.message).toBe(
      `Inline secret "${name}" of tenant "${tenant}" cannot be decrypted: its ciphertext was changed or cut short, ` +
        'or it was sealed for another tenant or secret name (the encryption context does not match). Seed it ' +
        'again for this tenant and name',
    );
    expect(JSON.stringify(error)).not.toContain('xoxb');
  });

  it.each([
    ['a character changed inside the KMS ciphertext', (blob: string) => flipAt(blob, blob.length - 20)],
    ['the ciphertext cut short', (blob: string) => blob.slice(0, blob.length - 30)],
    ['the form cut off', (blob: string) => blob.slice(0, 'etp-inline.v1.km'.length)],
  ])('refuses %s, naming the reference and never the value', async (_, tamper) => {
    // Prepare
    const original = await seed('acme', 'slack_default', SLACK_VALUE);
    await writeRaw({
      tenant_id: 'acme',
      secret_name: 'slack_default',
      ref_kind: 'inline',
      ref_value: tamper(original.ref_value),
      fingerprint: original.fingerprint as string,
    });

    // Act
    const error = await failureOf(resolver().resolve('acme', 'slack_default'));

    // Assess
    expect(error.code).toBe('secret_invalid');
    expect(error.message).toMatch(
      /^Inline secret "slack_default" of tenant "acme" (cannot be decrypted|is not a well-formed ciphertext)/,
    );
    expect(JSON.stringify(error)).not.toContain('xoxb');
  });

  it('refuses an envelope whose sealed part was changed (AES-GCM tag check)', async () => {
    // Prepare
    const original = await seed(
      'acme',
      'github_default',
      JSON.stringify({ token: 'ghp_'.padEnd(5000, 'x') }),
    );
    await writeRaw({
      tenant_id: 'acme',
      secret_name: 'github_default',
      ref_kind: 'inline',
      ref_value: flipAt(original.ref_value, original.ref_value.length - 40),
      fingerprint: original.fingerprint as string,
    });

    // Act
    const error = await failureOf(resolver().resolve('acme', 'github_default'));

    // Assess
    expect(error.code).toBe('secret_invalid');
    expect(error.message).toContain('Inline secret "github_default" of tenant "acme" cannot be decrypted');
  });

  it.each([
    ['Disabled' as const, 'is disabled: enable it (aws kms enable-key)'],
    ['PendingDeletion' as const, 'cannot decrypt in its current state (pending deletion'],
  ])('says the key is %s, naming the reference', async (state, words) => {
    // Prepare
    await seed('acme', 'slack_default', SLACK_VALUE);
    kms.setKeyState(state);

    // Act
    const error = await failureOf(resolver().resolve('acme', 'slack_default'));

    // Assess
    expect(error).toMatchObject({ code: 'access_denied', service: 'kms', retryable: false });
    expect(error.message).toContain('inline secret "slack_default" of tenant "acme"');
    expect(error.message).toContain(words);
  });

  it('refuses to seal a value over the inline limit, before any KMS call', async () => {
    // Act
    const error = await failureOf(
      sealInlineValue(
        kms.client,
        kms.keyArn,
        'acme',
        'slack_default',
        'x'.repeat(INLINE_VALUE_MAX_BYTES + 1),
      ),
    );

    // Assess
    expect(error.code).toBe('limit_exceeded');
    expect(error.message).toBe(
      `The value for inline secret "slack_default" of tenant "acme" is ${INLINE_VALUE_MAX_BYTES + 1} bytes; inline values hold at most ${INLINE_VALUE_MAX_BYTES} bytes. Keep larger values in Secrets Manager (--ref-kind secrets_manager)`,
    );
    expect(kms.calls).toEqual([]);
  });
});

/** `text` with the base64url character at `index` replaced by another one. */
function flipAt(text: string, index: number): string {
  const replacement = text[index] === 'A' ? 'B' : 'A';
  return `${text.slice(0, index)}${replacement}${text.slice(index + 1)}`;
}
