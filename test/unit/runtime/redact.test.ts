import {
  isSensitiveKey,
  REDACTED,
  redact,
  redactString,
  VISIBLE_KEYS,
} from '../../../functions/runtime/redact';
import { REDACTION_CORPUS } from './redaction-corpus';

const isDate = (value: unknown): value is Date => Object.prototype.toString.call(value) === '[object Date]';

// structuredClone runs outside Jest's sandbox, so the Dates it makes belong to another
// realm and fail toEqual's type check: compare any two Dates by their time instead.
// (Jest has addEqualityTesters since 29.4; @types/jest does not declare it yet.)
type Tester = (a: unknown, b: unknown) => boolean | undefined;
(expect as unknown as { addEqualityTesters(testers: Tester[]): void }).addEqualityTesters([
  (a, b) => (isDate(a) && isDate(b) ? Object.is(a.getTime(), b.getTime()) : undefined),
]);

describe('redact()', () => {
  it.each(REDACTION_CORPUS)('$name', ({ input, expected }) => {
    // Prepare
    const before = structuredClone(input);

    // Act
    const out = redact(input);

    // Assess
    expect(out).toEqual(expected);
    expect(input).toEqual(before);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it('replaces a cycle by "[Circular]" and keeps shared (acyclic) objects', () => {
    // Prepare
    const shared = { region: 'eu-west-1', api_key: 'fake-test-key' };
    const root: Record<string, unknown> = { name: 'root', a: shared, b: shared };
    root.self = root;
    root.list = [root, { back: root }];

    // Act
    const out = redact(root);

    // Assess
    expect(out).toEqual({
      name: 'root',
      a: { region: 'eu-west-1', api_key: REDACTED },
      b: { region: 'eu-west-1', api_key: REDACTED },
      self: '[Circular]',
      list: ['[Circular]', { back: '[Circular]' }],
    });
    expect(root.self).toBe(root);
    expect(shared.api_key).toBe('fake-test-key');
  });

  it('turns an Error into { name, message, code } with its message redacted', () => {
    // Prepare
    const plain = new TypeError('bad input');
    const coded = Object.assign(new Error('auth failed for xoxb-1111-2222-fakeTESTexample'), {
      name: 'SlackError',
      code: 'slack_webapi_platform_error',
      data: { ok: false },
    });

    // Act
    const out = redact({ errors: [plain, coded] });

    // Assess
    expect(out).toEqual({
      errors: [
        { name: 'TypeError', message: 'bad input' },
        { name: 'SlackError', message: `auth failed for ${REDACTED}`, code: 'slack_webapi_platform_error' },
      ],
    });
    expect(coded.message).toBe('auth failed for xoxb-1111-2222-fakeTESTexample'); // fake test example
  });

  it('serializes objects with toJSON as JSON.stringify would, then redacts (URL)', () => {
    // Prepare
    const input = { callback: new URL('https://example.com/hook?access_token=fake-test-value&x=1') };

    // Act
    const out = redact(input);

    // Assess
    expect(out).toEqual({ callback: `https://example.com/hook?access_token=${REDACTED}&x=1` });
    expect(input.callback.searchParams.get('access_token')).toBe('fake-test-value');
  });

  it('never prints bytes: Buffers, typed arrays, DataViews and ArrayBuffers become a size marker', () => {
    // Prepare
    const bytes = new Uint8Array([1, 2, 3, 4]);
    const input = {
      buffer: Buffer.from('fake-secret-bytes'),
      typed: bytes,
      floats: new Float64Array(2),
      view: new DataView(new ArrayBuffer(6)),
      raw: bytes.buffer,
      serialized: JSON.parse(JSON.stringify(Buffer.from('hi'))),
      list: [Buffer.alloc(0)],
    };

    // Act
    const out = redact(input);

    // Assess
    expect(out).toEqual({
      buffer: '<binary 17 bytes>',
      typed: '<binary 4 bytes>',
      floats: '<binary 16 bytes>',
      view: '<binary 6 bytes>',
      raw: '<binary 4 bytes>',
      serialized: '<binary 2 bytes>',
      list: ['<binary 0 bytes>'],
    });
  });

  it('keeps a boolean or null under a sensitive key (it carries no secret), masks anything else', () => {
    expect(
      redact({ AllowUsersToChangePassword: true, password: null, token: 0, secret: ['x'], pass: false }),
    ).toEqual({
      AllowUsersToChangePassword: true,
      password: null,
      token: REDACTED,
      secret: REDACTED,
      pass: false,
    });
  });

  it('masks a credential used as a key', () => {
    expect(redact({ 'xoxb-1111111111-2222222222-fakeTESTexample': { channel: 'C1' } })).toEqual({
      [REDACTED]: { channel: 'C1' },
    });
  });

  it('keeps the keys of keepKeys visible, still masking patterns in their values', () => {
    // Act
    const out = redact(
      { SessionId: 'ssm-user-0a1b', session_id: 'kept-too', note: { SessionId: 'AKIAIOSFODNN7EXAMPLE' } },
      { keepKeys: ['session-id'] },
    );

    // Assess
    expect(out).toEqual({
      SessionId: 'ssm-user-0a1b',
      session_id: 'kept-too',
      note: { SessionId: REDACTED },
    });
    expect(redact({ SessionId: 'ssm-user-0a1b' })).toEqual({ SessionId: REDACTED });
  });

  it('drops functions and symbols as JSON.stringify does', () => {
    // Act
    const out = redact({ keep: 1, fn: () => 1, sym: Symbol('s') });

    // Assess
    expect(out).toEqual({ keep: 1 });
  });
});

describe('isSensitiveKey()', () => {
  it.each([
    'password',
    'passwd',
    'bot_token',
    'webhook_url',
    'SecretAccessKey',
    'x-api-key',
    'apiKey',
    'Cookie',
    'private_key',
  ])('masks %s', (key) => {
    expect(isSensitiveKey(key)).toBe(true);
  });

  it.each([
    'secret_name',
    'next_token',
    'NextToken',
    'ContinuationToken',
    'input_tokens',
    'max_tokens',
    'password_enabled',
    'PasswordLastUsed',
    'region',
  ])('keeps %s visible', (key) => {
    expect(isSensitiveKey(key)).toBe(false);
  });

  it('keeps the visible list short and normalized (no _ or -, lower case)', () => {
    expect(VISIBLE_KEYS.size).toBeLessThanOrEqual(4);
    for (const key of VISIBLE_KEYS) expect(key).toMatch(/^[a-z0-9]+$/);
  });

  it('masks a key whatever its letter case, at any depth', () => {
    // Act
    const out = redact({
      headers: { aUtHoRiZaTiOn: 'SSWS 00fakeTESTexample', 'X-aPi-KeY': 'fake-test-key', Accept: '*/*' },
      items: [{ PaSsWoRd: 'fake-test-pw', name: 'db' }],
    });

    // Assess
    expect(out).toEqual({
      headers: { aUtHoRiZaTiOn: REDACTED, 'X-aPi-KeY': REDACTED, Accept: '*/*' },
      items: [{ PaSsWoRd: REDACTED, name: 'db' }],
    });
  });

  it('keeps a count under a plural key and masks a number under a singular one', () => {
    // Act
    const out = redact({ usage: { tokens: 1532, api_keys: 2, secrets: 0 }, token: 123456, otp: 424242 });

    // Assess
    expect(out).toEqual({ usage: { tokens: 1532, api_keys: 2, secrets: 0 }, token: REDACTED, otp: REDACTED });
  });

  it('masks a string under a plural key: only numbers are counts', () => {
    expect(redact({ tokens: ['fake-test-1'], secrets: 'fake-test-2' })).toEqual({
      tokens: REDACTED,
      secrets: REDACTED,
    });
  });

  it('takes keys to keep for one call', () => {
    expect(isSensitiveKey('SessionId')).toBe(true);
    expect(isSensitiveKey('SessionId', ['session_id'])).toBe(false);
  });
});

describe('redactString()', () => {
  it('leaves text without credentials unchanged', () => {
    const text = 'i-0abc123 in eu-west-1: 3 volumes, NextToken present, AKIA-like but short AKIA123';

    expect(redactString(text)).toBe(text);
  });

  it('masks an unterminated PEM private key to the end of the text', () => {
    expect(redactString('cut -----BEGIN PRIVATE KEY-----\nMIIfakeTEST')).toBe(`cut ${REDACTED}`); // fake test
  });
});
