/**
 * One `redact()` for every tool-call event, tool result, log line and error
 * detail that leaves the platform (DESIGN.md, "Redaction").
 */

/** What a masked value is replaced with. */
export const REDACTED = '<redacted>';

/** Keys whose whole value is masked, at any depth, whatever the value's type. */
const SENSITIVE_KEY =
  /(secret|token|password|passwd|api[_-]?key|access[_-]?key|authorization|cookie|private[_-]?key|webhook[_-]?url)/i;

/**
 * Keys that match {@link SENSITIVE_KEY} but never hold a credential: names of
 * secrets, pagination cursors and model token counts. Compared case-insensitively
 * with `_` and `-` removed, so `NextToken`, `next_token` and `nextToken` are one entry.
 */
export const VISIBLE_KEYS: ReadonlySet<string> = new Set(
  [
    'secret_name', // the name of a secret reference, never its value
    'requires_secrets', // a tool spec's list of secret names
    'next_token', // AWS pagination cursor
    'continuation_token', // S3 ListObjectsV2 cursor
    'input_tokens', // model usage counts
    'output_tokens',
    'total_tokens',
    'max_tokens',
    'password_enabled', // IAM credential report: a boolean
    'password_last_used', // IAM credential report: a date
    'password_policy', // IAM account password policy: rules, no password
  ].map(normalizeKey),
);

/** Credential-looking substrings masked wherever they appear, whatever their key. */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, // PEM private keys
  /https:\/\/hooks\.slack(?:-gov)?\.com\/(?:services|workflows|triggers)\/[^\s"'<>]+/gi, // Slack incoming webhooks
  /\bxox[a-z]-[0-9A-Za-z-]+/g, // Slack bot, user, app and legacy tokens
  /\bxapp-[0-9A-Za-z-]+/g, // Slack app-level tokens
  /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, // AWS access key ids (long-term and STS)
  /\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi, // HTTP bearer tokens
];

/**
 * HTTP Basic credentials: base64 of `user:password` (RFC 7617). Only masked when
 * the text decodes to that, so prose such as "Basic monitoring" stays readable.
 */
const BASIC_CREDENTIALS = /\bBasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g;

function isBasicCredential(encoded: string): boolean {
  const decoded = Buffer.from(encoded, 'base64').toString('latin1');
  return decoded.includes(':') && /^[\x20-\x7e]+$/.test(decoded);
}

/**
 * Query parameters whose value is masked inside URLs (`?access_token=…`).
 * The name part stays so the URL remains readable.
 */
const SENSITIVE_QUERY_PARAM =
  /([?&;](?:[a-z0-9_-]*(?:token|secret|password|api[_-]?key|signature|credential)[a-z0-9_-]*)=)[^&#\s"']*/gi;

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '');
}

/**
 * Whether a property named `key` has its whole value masked.
 *
 * @param key - a property name at any depth.
 * @returns true for names matching the sensitive pattern that are not in {@link VISIBLE_KEYS}.
 */
export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key) && !VISIBLE_KEYS.has(normalizeKey(key));
}

/**
 * Masks credential-looking parts of one string (tokens, webhook URLs, access key
 * ids, bearer credentials, PEM keys, sensitive URL query parameters).
 *
 * @example
 * redactString('call https://x.io/cb?access_token=abc&page=2');
 * // => 'call https://x.io/cb?access_token=<redacted>&page=2'
 */
export function redactString(text: string): string {
  let out = text;
  for (const secret of knownSecretValues) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  for (const pattern of CREDENTIAL_PATTERNS) out = out.replace(pattern, REDACTED);
  out = out.replace(BASIC_CREDENTIALS, (match, encoded: string) =>
    isBasicCredential(encoded) ? REDACTED : match,
  );
  return out.replace(SENSITIVE_QUERY_PARAM, `$1${REDACTED}`);
}

/** Shortest resolved secret string masked by exact match: shorter ones (`"true"`, a region) are not secrets. */
const MIN_KNOWN_SECRET_CHARS = 8;

/** Secret values this process resolved; masked wherever they appear, whatever their shape. */
const knownSecretValues = new Set<string>();

/**
 * Remembers the string leaves of a resolved secret (at least 8 characters long) so
 * {@link redactString} masks them by exact match, even where no pattern would
 * recognise them (an AWS secret access key echoed in an error message or a tag).
 * Values under sensitive keys only: a secret's `region` is no secret.
 *
 * @example rememberSecretValues({ bot_token: 'xoxb-…', region: 'eu-west-1' }) // remembers the token only
 */
export function rememberSecretValues(secret: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(secret)) {
    if (
      typeof value === 'string' &&
      value.length >= MIN_KNOWN_SECRET_CHARS &&
      (isSensitiveKey(key) || key === 'value')
    ) {
      knownSecretValues.add(value);
    }
  }
}

/**
 * Returns a redacted deep copy of `value`; the input is never mutated.
 *
 * - a property whose key is sensitive (see {@link isSensitiveKey}) has its whole
 *   value replaced by `"<redacted>"`, even when that value is an object or array;
 * - every string anywhere (array items, object values, `Error` messages) has
 *   credential-looking parts masked by {@link redactString};
 * - `Error` instances become plain `{ name, message, code? }` objects;
 * - cycles become `"[Circular]"`; an object with a `toJSON` becomes what it
 *   returns, redacted (a `Date` its ISO string, a `URL` its masked href); functions
 *   and symbols are dropped (as `JSON.stringify` would).
 *
 * @typeParam T - the input's type; the output has the same JSON shape.
 * @example
 * redact({ user: 'a', password: 'p', items: [{ api_key: 'k' }] });
 * // => { user: 'a', password: '<redacted>', items: [{ api_key: '<redacted>' }] }
 */
export function redact<T>(value: T): T {
  return redactValue(value, new WeakSet()) as T;
}

function redactValue(value: unknown, ancestors: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  }
  if (ancestors.has(value)) return '[Circular]';
  ancestors.add(value);
  try {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return redactValue(toJSON.call(value), ancestors);
    if (Array.isArray(value)) return value.map((item) => redactValue(item, ancestors));
    const source: Record<string, unknown> =
      value instanceof Error ? errorFields(value) : (value as Record<string, unknown>);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(source)) {
      if (isSensitiveKey(key)) {
        out[key] = REDACTED;
        continue;
      }
      const redacted = redactValue(child, ancestors);
      if (redacted !== undefined) out[key] = redacted;
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

function errorFields(error: Error): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) fields.code = code;
  return fields;
}
