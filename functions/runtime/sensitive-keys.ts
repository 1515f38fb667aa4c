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
const CREDENTIAL_WORD =
  /(?:secrets?|tokens?|passwords?|passwd|passphrases?|credentials?|cookies?|signatures?|apikeys?|accesskeys?|privatekeys?|secretkeys?|authorization|bearer)$|^passw(?:or)?d/;

/** Short words that name a credential only as a whole word (`db_pass`, `basic_auth`, `sentry_dsn`, `?sig=`). */
const WEAK_CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
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
const CREDENTIAL_COMPOUNDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
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

/** Index just past the last credential word or compound in `words`, and where the first one starts; -1 when none. */
function credentialSpan(words: readonly string[]): { readonly first: number; readonly end: number } {
  let first = -1;
  let end = -1;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const next = words[i + 1];
    if (next !== undefined && CREDENTIAL_COMPOUNDS.get(word)?.has(next)) {
      if (first < 0) first = i;
      end = i + 2;
      i++;
    } else if (WEAK_CREDENTIAL_WORDS.has(word) || CREDENTIAL_WORD.test(word)) {
      if (first < 0) first = i;
      end = i + 1;
    }
  }
  return { first, end };
}

/** Memo of the base rule: keys repeat (every item of a list has the same ones). Bounded: keys may come from input. */
const memo = new Map<string, boolean>();
const MEMO_MAX_ENTRIES = 4096;

function matchesRule(key: string): boolean {
  const words = keyWords(key);
  const { first, end } = credentialSpan(words);
  if (first < 0) return false;
  for (let i = end; i < words.length; i++) if (DESCRIPTOR_WORDS.has(words[i] as string)) return false;
  for (let i = 0; i < first; i++) if (MODIFIER_WORDS.has(words[i] as string)) return false;
  return !VISIBLE_KEYS.has(normalizeKey(key));
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
  let sensitive = memo.get(key);
  if (sensitive === undefined) {
    sensitive = matchesRule(key);
    if (memo.size >= MEMO_MAX_ENTRIES) memo.clear();
    memo.set(key, sensitive);
  }
  return sensitive && !(keepKeys !== undefined && keepKeys.size > 0 && keepKeys.has(normalizeKey(key)));
}
