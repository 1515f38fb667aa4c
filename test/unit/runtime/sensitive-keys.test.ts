import {
  CREDENTIAL_COMPOUNDS,
  DESCRIPTOR_WORDS,
  isSensitiveKey,
  KEY_STEMS,
  keyWords,
  MODIFIER_WORDS,
  namesCount,
  normalizeKey,
  VISIBLE_KEYS,
  WEAK_CREDENTIAL_WORDS,
} from '../../../functions/runtime/sensitive-keys';

/** Every letter in alternating case: `authorization` → `aUtHoRiZaTiOn`. */
function alternatingCase(key: string): string {
  return [...key].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
}

describe('keyWords()', () => {
  it.each([
    ['XAmzSecurityToken', ['x', 'amz', 'security', 'token']],
    ['AWSSecretAccessKey', ['aws', 'secret', 'access', 'key']],
    ['access_key_1_last_used_date', ['access', 'key', '1', 'last', 'used', 'date']],
    ['x-api-key', ['x', 'api', 'key']],
    ['spring.datasource.password', ['spring', 'datasource', 'password']],
    ['key1', ['key', '1']],
    ['PGPASSWORD', ['pgpassword']],
  ])('splits %s', (key, words) => {
    expect(keyWords(key)).toEqual(words);
  });
});

describe('isSensitiveKey()', () => {
  it.each([
    // credential words, in any case and separator style
    'password',
    'Password',
    'passwd',
    'PGPASSWORD',
    'db_password',
    'passwordHash',
    'pwd',
    'MYSQL_PWD',
    'pass',
    'db_pass',
    'passphrase',
    'secret',
    'client_secret',
    'clientSecret',
    'SecretAccessKey',
    'aws_secret_access_key',
    'SecretString',
    'token',
    'bot_token',
    'refresh_token',
    'id_token',
    'X-Amz-Security-Token',
    'SessionToken',
    'tokens',
    'credentials',
    'Credentials',
    'creds',
    'auth',
    'basic_auth',
    'authorization',
    'Proxy-Authorization',
    'cookie',
    'Set-Cookie',
    'session_cookie',
    'signature',
    'X-Amz-Signature',
    'X-Amz-Credential',
    'sig',
    'dsn',
    'SENTRY_DSN',
    'api_key',
    'apiKey',
    'APIKey',
    'x-api-key',
    'apikey',
    'access_key',
    'private_key',
    'privateKeyPem',
    'AccountKey',
    'SharedAccessKey',
    'client-key-data',
    'DD-APPLICATION-KEY',
    'session',
    'session_id',
    'webhook_url',
    'slack_webhook',
    'connection_string',
    'jwt',
  ])('masks %s', (key) => {
    expect(isSensitiveKey(key)).toBe(true);
  });

  it.each([
    // descriptors after the credential word: counts, lengths, ARNs, ids, names, types, dates, policies
    'TokenCount',
    'token_count',
    'MinimumPasswordLength',
    'MaxPasswordAge',
    'PasswordReusePrevention',
    'password_policy',
    'PasswordPolicy',
    'SecretArn',
    'secret_arn',
    'SecretId',
    'secret_name',
    'SecretName',
    'AuthorizationType',
    'AuthType',
    'auth_method',
    'password_enabled',
    'password_last_used',
    'PasswordLastUsed',
    'password_last_changed',
    'password_next_rotation',
    'access_key_1_active',
    'access_key_1_last_rotated',
    'access_key_1_last_used_date',
    'access_key_1_last_used_region',
    'access_key_1_last_used_service',
    'access_key_id',
    'AccessKeyId',
    'AccessKeyMetadata',
    'AccessKeyLastUsed',
    'private_key_id',
    'private_key_path',
    'api_key_required',
    'ApiKeySource',
    'token_type',
    'token_endpoint',
    'cookie_name',
    'SignatureVersion',
    'signature_algorithm',
    'RoleSessionName',
    'SessionDuration',
    'credential_report',
    'CredentialReport',
    'webhook_id',
    'client_secret_expires_at',
    'refresh_token_expires_in',
    // modifiers before it: cursors and usage counts
    'NextToken',
    'next_token',
    'NextPageToken',
    'ContinuationToken',
    'input_tokens',
    'output_tokens',
    'total_tokens',
    'max_tokens',
    'cache_read_input_tokens',
    // AWS and Slack error names before their message
    'AuthFailure',
    'ExpiredToken',
    'ExpiredTokenException',
    'InvalidClientTokenId',
    'InvalidSignatureException',
    'IncompleteSignature',
    'SignatureDoesNotMatch',
    'MissingAuthenticationToken',
    'UnrecognizedClientException',
    'token_expired',
    'token_revoked',
    'invalid_auth',
    'secret_not_found',
    'secret_invalid',
    'auth_failed',
    // the short exception list
    'requires_secrets',
    'requiresSecrets',
    // not credentials at all
    'region',
    'key',
    'Key',
    'KmsKeyId',
    'secretsmanager',
    'tokenizer',
    'author',
    'AuthorizerId',
    'bypass',
    'compass',
    'RequireSymbols',
    'HardExpiry',
    'SignedHeaders',
  ])('keeps %s visible', (key) => {
    expect(isSensitiveKey(key)).toBe(false);
  });

  it('keeps the keys a call names visible, whatever their spelling', () => {
    const keep = new Set(['sessionid', 'allowuserstochangepassword'].map(normalizeKey));

    expect(isSensitiveKey('SessionId', keep)).toBe(false);
    expect(isSensitiveKey('session_id', keep)).toBe(false);
    expect(isSensitiveKey('session_token', keep)).toBe(true);
  });

  it('keeps its lists short and normalized', () => {
    expect(VISIBLE_KEYS.size).toBeLessThanOrEqual(4);
    for (const key of VISIBLE_KEYS) expect(key).toMatch(/^[a-z0-9]+$/);
    for (const word of [...DESCRIPTOR_WORDS, ...MODIFIER_WORDS]) expect(word).toMatch(/^[a-z]+$/);
    // A descriptor word is never itself a credential word.
    for (const word of DESCRIPTOR_WORDS) expect(isSensitiveKey(word)).toBe(false);
  });

  it('answers the same for a key seen many times (its memo is bounded, not a leak of state)', () => {
    for (let i = 0; i < 5_000; i++) isSensitiveKey(`field_${i}`);

    expect(isSensitiveKey('db_pass')).toBe(true);
    expect(isSensitiveKey('NextToken')).toBe(false);
  });

  it.each([
    'authorization',
    'proxy-authorization',
    'password',
    'client_secret',
    'x-api-key',
    'set-cookie',
    'x-auth-token',
    'private_key',
  ])('masks %s in any letter case, mixed case included', (key) => {
    for (const spelling of [
      key,
      key.toUpperCase(),
      alternatingCase(key),
      alternatingCase(key.toUpperCase()),
    ]) {
      expect({ spelling, sensitive: isSensitiveKey(spelling) }).toEqual({ spelling, sensitive: true });
    }
  });

  it('holds one of its stems in every credential word, weak word and compound', () => {
    const words = [
      ...WEAK_CREDENTIAL_WORDS,
      ...[...CREDENTIAL_COMPOUNDS].flatMap(([first, seconds]) =>
        [...seconds].map((second) => `${first}_${second}`),
      ),
      // the stems of the credential-word pattern, singular and plural
      ...['secret', 'token', 'password', 'passwd', 'passphrase', 'credential', 'cookie', 'signature'],
      ...['apikey', 'accesskey', 'privatekey', 'secretkey', 'authorization', 'bearer', 'tokens', 'secrets'],
    ];
    for (const word of words) {
      expect({ word, stem: KEY_STEMS.some((stem) => word.includes(stem)) }).toEqual({ word, stem: true });
      expect({ word, sensitive: isSensitiveKey(word) }).toEqual({ word, sensitive: true });
    }
  });
});

describe('namesCount()', () => {
  it.each(['tokens', 'Tokens', 'api_keys', 'secrets', 'passwords', 'credentials', 'cookies', 'webhooks'])(
    '%s names several credentials: a number under it is a count',
    (key) => {
      expect(namesCount(key)).toBe(true);
      expect(isSensitiveKey(key)).toBe(true);
    },
  );

  it.each([
    'token',
    'password',
    'otp',
    'pass',
    'access_key',
    'session',
    'NextToken',
    'input_tokens',
    'region',
  ])('%s is not a plural credential key', (key) => {
    expect(namesCount(key)).toBe(false);
  });
});
