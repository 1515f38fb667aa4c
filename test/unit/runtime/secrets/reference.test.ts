import { InvalidArgsError } from '../../../../functions/runtime/errors';
import {
  EMBEDDED_DEFAULT_REFERENCES,
  InMemorySecretReferenceStore,
} from '../../../../functions/runtime/secrets/memory-store';
import {
  type SecretReferenceInput,
  validateReference,
} from '../../../../functions/runtime/secrets/reference';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:etp/acme/slack-AbCdEf';

const envRow: SecretReferenceInput = {
  tenant_id: 'acme',
  secret_name: 'slack_default',
  ref_kind: 'env',
  ref_value: 'ACME_SLACK',
};

function rejection(input: unknown): InvalidArgsError {
  try {
    validateReference(input as SecretReferenceInput);
  } catch (err) {
    if (err instanceof InvalidArgsError) return err;
    throw err;
  }
  throw new Error('expected InvalidArgsError');
}

describe('validateReference()', () => {
  it.each([
    ['an env reference', envRow],
    ['a Secrets Manager ARN', { ...envRow, ref_kind: 'secrets_manager', ref_value: SECRET_ARN }],
    [
      'a GovCloud ARN',
      { ...envRow, ref_kind: 'secrets_manager', ref_value: SECRET_ARN.replace('aws:', 'aws-us-gov:') },
    ],
  ])('accepts %s', (_kind, row) => {
    expect(validateReference(row as SecretReferenceInput)).toEqual(row);
  });

  it('refuses an unknown ref_kind, naming the field and the accepted kinds', () => {
    // Act
    const err = rejection({ ...envRow, ref_kind: 'vault' });

    // Assess
    expect(err.code).toBe('invalid_args');
    expect(err.message).toMatch(/^Invalid secret reference: ref_kind: .*"env".*"secrets_manager"/);
  });

  it('refuses an env ref_value that is not a variable name, without echoing it', () => {
    // Act
    const err = rejection({ ...envRow, ref_value: 'hunter2 fake test' });

    // Assess
    expect(err.message).toBe(
      'ref_value for ref_kind env must be an environment variable name (letters, digits and _, not starting with a digit)',
    );
    expect(err.message).not.toContain('hunter2');
  });

  it.each([
    'etp/acme/slack',
    'arn:aws:secretsmanager:eu-west-1:12345:secret:short-account',
    'arn:aws:ssm:eu-west-1:123456789012:parameter/etp',
  ])('refuses the secrets_manager ref_value %p: not a secret ARN', (refValue) => {
    expect(rejection({ ...envRow, ref_kind: 'secrets_manager', ref_value: refValue }).message).toBe(
      'ref_value for ref_kind secrets_manager must be a secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)',
    );
  });

  it.each([
    ['a Slack bot token', 'xoxb-1111-2222-fakeTESTexample'], // fake test example
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE'], // AWS docs example
  ])('refuses %s pasted as ref_value: the table holds references only', (_kind, refValue) => {
    // Act
    const err = rejection({ ...envRow, ref_value: refValue });

    // Assess
    expect(err.message).toBe(
      'ref_value looks like a credential; the table stores references only (an env var name or a Secrets Manager ARN)',
    );
    expect(err.message).not.toContain(refValue);
  });

  it('refuses unknown fields and bad names, listing each', () => {
    // Act
    const err = rejection({ ...envRow, tenant_id: 'bad tenant!', secret_value: 'fake-test' });

    // Assess
    expect(err.message).toBe(
      'Invalid secret reference: tenant_id: 1-128 letters, digits, _ . or -, starting with a letter or digit (acme, team-1); ' +
        '(root): Unrecognized key: "secret_value"; accepted keys: tenant_id, secret_name, ref_kind, ref_value, fingerprint, metadata, notes, created_by',
    );
    expect(err.message).not.toContain('fake-test');
  });

  it('says a missing field is required', () => {
    // Prepare
    const { ref_value: _omitted, ...withoutValue } = envRow;

    // Act
    const err = rejection(withoutValue);

    // Assess
    expect(err.message).toBe('Invalid secret reference: ref_value: Required: expected string');
  });

  it.each([
    ['a Slack bot token', 'token xoxb-1111-2222-fakeTESTexample'], // fake test example
    ['a Slack webhook URL', 'posts to https://hooks.slack.com/services/T000/B000/fakeTESTexample'],
    ['an AWS access key id', 'old key AKIAIOSFODNN7EXAMPLE'], // AWS docs example
  ])('refuses notes holding %s, without echoing it', (_kind, notes) => {
    // Act
    const err = rejection({ ...envRow, notes });

    // Assess
    expect(err.message).toBe(
      'notes look like they hold a credential (a token, key or webhook URL); the table stores references only: describe the secret, never paste it',
    );
    expect(err.message).not.toContain('fakeTESTexample');
  });

  it('accepts notes that only talk about credentials', () => {
    // Prepare
    const row = { ...envRow, notes: 'bot token of the ops workspace; rotate the api key monthly' };

    // Act
    const valid = validateReference(row);

    // Assess
    expect(valid.notes).toBe(row.notes);
  });

  it('refuses metadata with a secret-named key or a credential-looking value, naming the keys only', () => {
    // Act
    const err = rejection({
      ...envRow,
      metadata: {
        owner: 'ops',
        api_key: 'fake-test-value',
        previous: { value: 'xoxb-1111-2222-fakeTESTexample' }, // fake test example
      },
    });

    // Assess
    expect(err.message).toBe(
      'metadata api_key, previous look like a credential (a secret-named key such as token or api_key, or a token, key or webhook URL value); the table stores references only',
    );
    expect(err.message).not.toMatch(/fake-test-value|fakeTESTexample/);
  });

  it('accepts metadata without credentials, secret_name included', () => {
    // Prepare
    const row = { ...envRow, metadata: { owner: 'ops', secret_name: 'slack_default', rotation_days: 90 } };

    // Act
    const valid = validateReference(row);

    // Assess
    expect(valid.metadata).toEqual(row.metadata);
  });

  it('refuses metadata nested deeper than 32 levels before walking it', () => {
    // Prepare: deep enough to overflow a recursive walk.
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 20_000; level += 1) deep = { next: deep };

    // Act
    const err = rejection({ ...envRow, metadata: deep });

    // Assess
    expect(err.message).toBe(
      'Invalid secret reference: metadata nests objects and arrays deeper than 32 levels',
    );
  });
});

describe('InMemorySecretReferenceStore', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('holds the embedded defaults unless given rows', async () => {
    // Act
    const rows = await new InMemorySecretReferenceStore().list();

    // Assess
    expect(rows.map((row) => [row.tenant_id, row.secret_name, row.ref_value])).toEqual(
      EMBEDDED_DEFAULT_REFERENCES.map((row) => [row.tenant_id, row.secret_name, row.ref_value]),
    );
  });

  it('puts, lists by tenant, gets and deletes rows', async () => {
    // Prepare
    const store = new InMemorySecretReferenceStore([]);

    // Act
    await store.put({ ...envRow, secret_name: 'aws_default', ref_value: 'ACME_AWS' });
    await store.put(envRow);
    await store.put({ ...envRow, tenant_id: 'other' });
    const acme = await store.list('acme');
    const all = await store.list();
    const deleted = await store.delete('acme', 'aws_default');
    const deletedAgain = await store.delete('acme', 'aws_default');

    // Assess
    expect(acme.map((row) => row.secret_name)).toEqual(['aws_default', 'slack_default']);
    expect(all.map((row) => `${row.tenant_id}/${row.secret_name}`)).toEqual([
      'acme/aws_default',
      'acme/slack_default',
      'other/slack_default',
    ]);
    expect(deleted).toBe(true);
    expect(deletedAgain).toBe(false);
    expect(await store.get('acme', 'aws_default')).toBeUndefined();
  });

  it('keeps created_at and created_by when a row is replaced, and moves updated_at', async () => {
    // Prepare
    jest.useFakeTimers({ now: new Date('2024-05-01T10:00:00.000Z') });
    const store = new InMemorySecretReferenceStore([]);
    await store.put({ ...envRow, created_by: 'alice' });
    jest.setSystemTime(new Date('2024-06-01T10:00:00.000Z'));

    // Act
    const replaced = await store.put({
      ...envRow,
      ref_value: 'ACME_SLACK_V2',
      created_by: 'bob',
      notes: 'rotated',
    });

    // Assess
    expect(replaced).toEqual({
      ...envRow,
      ref_value: 'ACME_SLACK_V2',
      notes: 'rotated',
      created_by: 'alice',
      created_at: '2024-05-01T10:00:00.000Z',
      updated_at: '2024-06-01T10:00:00.000Z',
    });
    expect(await store.get('acme', 'slack_default')).toEqual(replaced);
  });

  it('takes back a row it returned, timestamps included', async () => {
    // Prepare
    const store = new InMemorySecretReferenceStore([envRow]);
    const row = await store.get('acme', 'slack_default');

    // Act
    const written = await store.put({ ...(row ?? envRow), notes: 'checked' });

    // Assess
    expect(written.notes).toBe('checked');
    expect(written.created_at).toBe(row?.created_at);
  });

  it('returns copies: changing one leaves the store as it was', async () => {
    // Prepare
    const store = new InMemorySecretReferenceStore([{ ...envRow, metadata: { owner: 'ops' } }]);
    const row = await store.get('acme', 'slack_default');

    // Act
    (row?.metadata as Record<string, unknown>).owner = 'changed';

    // Assess
    expect((await store.get('acme', 'slack_default'))?.metadata).toEqual({ owner: 'ops' });
  });

  it('validates what it is given', async () => {
    // Prepare
    const store = new InMemorySecretReferenceStore([]);

    // Act
    const put = store.put({ ...envRow, ref_kind: 'vault' });

    // Assess
    await expect(put).rejects.toMatchObject({ code: 'invalid_args' });
    expect(await store.list()).toEqual([]);
  });
});
