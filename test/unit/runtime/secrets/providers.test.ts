import { SecretInvalidError, SecretNotFoundError } from '../../../../functions/runtime/errors';
import { EnvSecretProvider, parseSecretValue } from '../../../../functions/runtime/secrets/providers';
import type { SecretReference } from '../../../../functions/runtime/secrets/reference';

const reference: SecretReference = {
  tenant_id: 'acme',
  secret_name: 'slack_default',
  ref_kind: 'env',
  ref_value: 'ACME_SLACK',
};

describe('EnvSecretProvider', () => {
  it('reads the variable the reference names', async () => {
    // Prepare
    const provider = new EnvSecretProvider({ ACME_SLACK: '{"bot_token":"xoxb-fake-test"}' }); // fake test

    // Act
    const raw = await provider.read(reference);

    // Assess
    expect(raw).toBe('{"bot_token":"xoxb-fake-test"}'); // fake test
  });

  it.each([
    ['unset', {}, 'not set', SecretNotFoundError, 'secret_not_found'],
    // A secret without a value, not an absent one: nothing falls back to another credential for it.
    ['empty', { ACME_SLACK: '' }, 'set but empty', SecretInvalidError, 'secret_invalid'],
  ])('fails when the variable is %s, naming the variable', async (_state, env, said, kind, code) => {
    // Prepare
    const provider = new EnvSecretProvider(env);

    // Act
    const read = provider.read(reference);

    // Assess
    await expect(read).rejects.toBeInstanceOf(kind);
    await expect(read).rejects.toMatchObject({
      code,
      message: `Secret "slack_default" of tenant "acme" points at environment variable ACME_SLACK, which is ${said}`,
    });
  });
});

describe('parseSecretValue()', () => {
  it('uses a JSON object as is', () => {
    expect(
      parseSecretValue('{"role_arn":"arn:aws:iam::123456789012:role/audit","region":"eu-west-1"}'),
    ).toEqual({
      role_arn: 'arn:aws:iam::123456789012:role/audit',
      region: 'eu-west-1',
    });
  });

  it.each([
    ['a JSON array', '[1,2]'],
    ['a JSON number', '42'],
    ['a JSON string', '"quoted"'],
    ['JSON null', 'null'],
    ['a plain string', 'plain-fake-test-value'],
    ['broken JSON', '{"bot_token":'],
  ])('wraps %s as { value: raw }', (_kind, raw) => {
    expect(parseSecretValue(raw)).toEqual({ value: raw });
  });
});
