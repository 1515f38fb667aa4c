/**
 * The key rule of redaction (docs/design.md, "Redaction"; docs/redaction.md): which
 * property names — object keys at any depth, and the `key` of `key=value` /
 * `key: value` text — hold a credential, so their whole value is masked.
 *
 * A key is split into lower-case words (`XAmzSecurityToken` → `x amz security
 * token`, `access_key_1_last_used_date` → `access key 1 last used date`). It is
 * **sensitive** when one of its words names a credential (see
 * {@link CREDENTIAL_WORD}, {@link WEAK_CREDENTIAL_WORDS}, {@link CREDENTIAL_COMPOUNDS}),
 * unless it is a **descriptor** of one:
 * - a word after the last credential word says what is described — a count, a
 *   length, an ARN, an id, a name, a type, a date, a policy… ({@link DESCRIPTOR_WORDS}):
 *   `TokenCount`, `MinimumPasswordLength`, `SecretArn`, `AuthorizationType`,
 *   `password_last_used`, `PasswordReusePrevention`, and error names such as
 *   `AuthFailure` or `SignatureDoesNotMatch`;
 * - or a word before it makes it a cursor, a usage count or an error name
 *   ({@link MODIFIER_WORDS}): `NextToken`, `NextPageToken`, `input_tokens`,
 *   `max_tokens`, `ExpiredToken`, `InvalidSignatureException`;
 * - or it is one of the few {@link VISIBLE_KEYS} the rule cannot tell apart.
 */

/**
 * A word that names a credential: it ends with one of these stems (`PGPASSWORD`,
 * `authtoken`, `clientsecret`) or starts with `password`/`passwd` (`passwordhash`).
 * Ends-with, so `secretsmanager`, `tokenizer` and `secretary` are not credentials.
 */
export const CREDENTIAL_WORD =
  /(?:secrets?|tokens?|passwords?|passwd|passphrases?|credentials?|cookies?|signatures?|apikeys?|accesskeys?|privatekeys?|secretkeys?|authorization|bearer)$|^passw(?:or)?d/;

/** Short words that name a credential only as a whole word (`db_pass`, `basic_auth`, `sentry_dsn`, `?sig=`). */
export const WEAK_CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  'pass',
  'pwd',
  'auth',
  'creds',
  'dsn',
  'sig',
  'jwt',
  'otp',
  'webhook',
  'webhooks',
  'session',
]);

/**
 * Two adjacent words that together name a credential (`api key`, `access key`,
 * `private key`, `account key` in Azure connection strings, `session id`,
 * `webhook url`, `connection string`). The second word is part of the credential,
 * so `session_id` stays sensitive while `access_key_id` is an id of one.
 */
export const CREDENTIAL_COMPOUNDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ...[
    'api',
    'access',
    'private',
    'secret',
    'signing',
    'master',
    'account',
    'shared',
    'client',
    'app',
    'application',
    'encryption',
    'license',
    'session',
    'auth',
  ].map((first): [string, ReadonlySet<string>] => [first, new Set(['key', 'keys'])]),
  ['session', new Set(['id', 'key', 'keys'])],
  ['webhook', new Set(['url', 'urls'])],
  ['connection', new Set(['string', 'strings'])],
]);

/**
 * Words that, after the last credential word, make the key describe a credential
 * rather than hold one: quantities, identifiers, names, types, dates, states,
 * policies, locations. `password_last_used`, `TokenCount`, `SecretArn`,
 * `cookie_name`, `api_key_required`, `token_endpoint`, `private_key_path`.
 */
export const DESCRIPTOR_WORDS: ReadonlySet<string> = new Set([
  // quantities
  'count',
  'counts',
  'length',
  'len',
  'size',
  'limit',
  'usage',
  'age',
  'ttl',
  'duration',
  // identity, names and kinds
  'arn',
  'arns',
  'id',
  'ids',
  'name',
  'names',
  'label',
  'description',
  'type',
  'types',
  'kind',
  'format',
  'version',
  'algorithm',
  'method',
  'mode',
  'scope',
  'scopes',
  'source',
  'provider',
  'field',
  'metadata',
  'report',
  'policy',
  'policies',
  'prevention',
  // states and dates
  'enabled',
  'active',
  'status',
  'state',
  'valid',
  'required',
  'present',
  'used',
  'date',
  'time',
  'timestamp',
  'at',
  'created',
  'updated',
  'changed',
  'rotated',
  'rotation',
  'expires',
  'expiry',
  'expiration',
  'expired',
  // error names and codes (`AuthFailure: …`, `SignatureDoesNotMatch`, `secret_not_found: …`, `secret_invalid`)
  'failure',
  'failed',
  'not',
  'found',
  'invalid',
  'missing',
  'denied',
  'unavailable',
  'error',
  'errors',
  'exception',
  'mismatch',
  'match',
  'violation',
  'revoked',
  // where it lives, not what it is
  'region',
  'service',
  'file',
  'path',
  'url',
  'uri',
  'endpoint',
  'domain',
]);

/**
 * Words that, before the credential word, make it a pagination cursor, a
 * model-usage count or an error name: `NextToken`, `NextPageToken`,
 * `ContinuationToken`, `input_tokens`, `max_tokens`, `ExpiredToken`.
 */
export const MODIFIER_WORDS: ReadonlySet<string> = new Set([
  'next',
  'continuation',
  'page',
  'pagination',
  'input',
  'output',
  'total',
  'max',
  'maximum',
  'min',
  'minimum',
  'prompt',
  'completion',
  'cached',
  'cache',
  'reasoning',
  'remaining',
  'num',
  // error names (`ExpiredToken: …`, `InvalidSignatureException`, `MissingAuthenticationToken`)
  'expired',
  'invalid',
  'missing',
  'incomplete',
  'unrecognized',
  'malformed',
]);

/**
 * Keys the rule above would mask but that never hold a credential. Kept short on
 * purpose: a tool whose output needs more declares them in its spec
 * (`visibleOutputKeys`, passed to `redact()` as `keepKeys`). Normalized: lower
 * case, without `_`, `-`, `.` or spaces.
 */
export const VISIBLE_KEYS: ReadonlySet<string> = new Set(
  [
    'requires_secrets', // a tool spec's list of secret names
  ].map(normalizeKey),
);

/**
 * Lower-case stems one of which every sensitive key holds, whatever its case or
 * separators: each credential word, weak word and compound above contains one
 * (`passwd` and `passphrase` hold `pass`, `signature` holds `sig`, `api key`
 * holds `key`…). A key holding none is not sensitive without further work, and
 * redaction's prefilter looks for these in text before it looks for keys
 * (credential-patterns.ts). A new credential word needs its stem here; the unit
 * test checks every word.
 */
export const KEY_STEMS: readonly string[] = [
  'secret',
  'token',
  'pass',
  'pwd',
  'cred',
  'cookie',
  'sig',
  'key',
  'auth',
  'bearer',
  'dsn',
  'jwt',
  'otp',
  'webhook',
  'session',
  'connection',
];

function holdsStem(lowered: string): boolean {
  for (const stem of KEY_STEMS) if (lowered.includes(stem)) return true;
  return false;
}

/** `NextToken`, `next_token` and `next-token` are one key: lower case, separators removed. */
export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** camelCase (`aB`), acronym (`AWSSecret`: `S|Se`) and letter/digit boundaries. */
const WORD_BOUNDARY =
  /(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])/g;

/**
 * Splits a key into lower-case words at separators, camelCase and acronym
 * boundaries, and between letters and digits.
 *
 * @example keyWords('XAmzSecurityToken') // ['x', 'amz', 'security', 'token']
 * @example keyWords('access_key_1_last_used') // ['access', 'key', '1', 'last', 'used']
 */
export function keyWords(key: string): string[] {
  return key
    .replace(WORD_BOUNDARY, ' ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/**
 * Index just past the last credential word or compound in `words`, where the
 * first one starts (-1 when none), and whether the last one is a plural
 * (`tokens`, `api_keys`, `secrets`: it names several, so a number after it is a count).
 */
function credentialSpan(words: readonly string[]): {
  readonly first: number;
  readonly end: number;
  readonly plural: boolean;
} {
  let first = -1;
  let end = -1;
  let plural = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const next = words[i + 1];
    if (next !== undefined && CREDENTIAL_COMPOUNDS.get(word)?.has(next)) {
      if (first < 0) first = i;
      end = i + 2;
      plural = next === 'keys';
      i++;
    } else if (WEAK_CREDENTIAL_WORDS.has(word) || CREDENTIAL_WORD.test(word)) {
      if (first < 0) first = i;
      end = i + 1;
      plural = isPlural(word);
    }
  }
  return { first, end, plural };
}

/** `tokens`, `secrets`, `webhooks`: a credential word whose singular is one too (`pass` and `access` are not plurals). */
function isPlural(word: string): boolean {
  if (!word.endsWith('s') || word.endsWith('ss')) return false;
  const singular = word.slice(0, -1);
  return WEAK_CREDENTIAL_WORDS.has(singular) || CREDENTIAL_WORD.test(singular);
}

/** No credential word at all; or a credential word that is (not) sensitive, and whether it is a plural. */
const NONE = 0;
const NOT_SENSITIVE = 1;
const SENSITIVE = 2;
const SENSITIVE_PLURAL = 3;

/** Memo of the base rule: keys repeat (every item of a list has the same ones). Bounded: keys may come from input. */
const memo = new Map<string, number>();
const MEMO_MAX_ENTRIES = 4096;

function readWords(words: readonly string[]): number {
  const { first, end, plural } = credentialSpan(words);
  if (first < 0) return NONE;
  for (let i = end; i < words.length; i++) if (DESCRIPTOR_WORDS.has(words[i] as string)) return NOT_SENSITIVE;
  for (let i = 0; i < first; i++) if (MODIFIER_WORDS.has(words[i] as string)) return NOT_SENSITIVE;
  return plural ? SENSITIVE_PLURAL : SENSITIVE;
}

/**
 * The rule on a key: read as words split at its separators and case boundaries
 * (`NextToken` → `next token`); a key whose case marks no words that way
 * (`aUtHoRiZaTiOn`, `X-aUtH-tOkEn`) is read again in lower case, split at its
 * separators only, so letter case never hides a credential name.
 */
function matchesRule(key: string): number {
  const lowered = key.toLowerCase();
  if (!holdsStem(lowered) || VISIBLE_KEYS.has(normalizeKey(key))) return NOT_SENSITIVE;
  const read = readWords(keyWords(key));
  if (read !== NONE) return read;
  const again = readWords(lowered.split(/[^a-z0-9]+/).filter((word) => word.length > 0));
  return again === NONE ? NOT_SENSITIVE : again;
}

function ruleOf(key: string): number {
  let read = memo.get(key);
  if (read === undefined) {
    read = matchesRule(key);
    if (memo.size >= MEMO_MAX_ENTRIES) memo.clear();
    memo.set(key, read);
  }
  return read;
}

/**
 * Whether a sensitive `key` names several credentials (`tokens`, `api_keys`,
 * `secrets`): a plain number under it is a count, not a secret (`tokens=1532`
 * in a usage line), and stays visible. A singular key (`token`, `password`,
 * `otp`) keeps even a number masked: a PIN or a one-time code is a number.
 *
 * @example namesCount('tokens') // true
 * @example namesCount('otp') // false
 */
export function namesCount(key: string): boolean {
  return ruleOf(key) === SENSITIVE_PLURAL;
}

/**
 * Whether a property named `key` has its whole value masked (the rule in this
 * module's header).
 *
 * @param key - a property name at any depth, or the key of a `key=value` in text.
 * @param keepKeys - normalized keys (see {@link normalizeKey}) kept visible for this
 *   call: the tool spec's `visibleOutputKeys`.
 * @example isSensitiveKey('db_pass') // true
 * @example isSensitiveKey('MinimumPasswordLength') // false
 */
export function isSensitiveKey(key: string, keepKeys?: ReadonlySet<string>): boolean {
  return (
    ruleOf(key) >= SENSITIVE &&
    !(keepKeys !== undefined && keepKeys.size > 0 && keepKeys.has(normalizeKey(key)))
  );
}
