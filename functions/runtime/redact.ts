/**
 * One `redact()` for every tool-call event, tool result, log line and error
 * detail that leaves the platform (docs/design.md, "Redaction"; docs/redaction.md):
 *
 * - **key rule** (`sensitive-keys.ts`): a property whose key names a credential
 *   has its whole value masked, at any depth;
 * - **text layers** (`credential-patterns.ts`): in every string, self-identifying
 *   credential formats, URL passwords and sensitive `key=value` pairs;
 * - **exact match** (`secret-values.ts`): every string the current tool call
 *   resolved from a secret;
 * - **bytes**: Buffers, typed arrays and ArrayBuffers become `<binary N bytes>`.
 */
import { maskCredentials } from './mask-credentials';
import { currentSecretValues, REDACTED, type SecretValues } from './secret-values';
import {
  isSensitiveKey as isSensitiveKeyName,
  namesCount,
  normalizeKey,
  VISIBLE_KEYS,
} from './sensitive-keys';

export { REDACTED, VISIBLE_KEYS };

/** Options of {@link redact} and {@link redactString}. */
export interface RedactOptions {
  /**
   * Strings the call resolved from secrets, masked by exact match.
   * @default the values of the tool call running in this async context (`withSecretValues`), if any
   */
  readonly secretValues?: SecretValues;
  /**
   * Keys that stay visible although the key rule matches them: a tool spec's
   * `visibleOutputKeys` (`PasswordLastUsed`). Compared without case, `_`, `-` or `.`.
   * Their string values still pass the text layers and the exact match.
   */
  readonly keepKeys?: Iterable<string>;
}

/** Shortest string that can hold a masked form: `pwd=x` is 5, a resolved secret at least 4. */
const MIN_MASKABLE_CHARS = 4;

interface Redaction {
  readonly secretValues: SecretValues | undefined;
  readonly keepKeys: ReadonlySet<string> | undefined;
  /** Strings already redacted in this call: results repeat the same states, regions and types. */
  readonly seen: Map<string, string>;
}

/** Strings longer than this are not remembered in {@link Redaction.seen} (they seldom repeat). */
const MAX_REMEMBERED_CHARS = 256;

function redaction(options: RedactOptions | undefined): Redaction {
  const keep = options?.keepKeys;
  return {
    secretValues: options?.secretValues ?? currentSecretValues(),
    keepKeys: keep === undefined ? undefined : new Set([...keep].map(normalizeKey)),
    seen: new Map(),
  };
}

/**
 * Whether a property named `key` has its whole value masked: it names a
 * credential and is not a descriptor of one (a count, length, ARN, id, name,
 * type, date, policy…), a cursor (`NextToken`) or a usage count (`input_tokens`).
 *
 * @param key - a property name at any depth.
 * @param keepKeys - keys kept visible for this call (a tool spec's `visibleOutputKeys`).
 * @example isSensitiveKey('client_secret') // true
 * @example isSensitiveKey('SecretArn') // false
 */
export function isSensitiveKey(key: string, keepKeys?: Iterable<string>): boolean {
  return isSensitiveKeyName(
    key,
    keepKeys === undefined ? undefined : new Set([...keepKeys].map(normalizeKey)),
  );
}

function redactText(text: string, state: Redaction): string {
  if (text.length < MIN_MASKABLE_CHARS) return text;
  const remember = text.length <= MAX_REMEMBERED_CHARS;
  if (remember) {
    const known = state.seen.get(text);
    if (known !== undefined) return known;
  }
  const exact = state.secretValues ? state.secretValues.mask(text) : text;
  const out = maskCredentials(exact, state.keepKeys);
  if (remember) state.seen.set(text, out);
  return out;
}

/**
 * Masks the credential-looking parts of one string: the strings the current call
 * resolved from secrets (exact match), self-identifying formats (Slack, AWS,
 * GitHub, Stripe, PEM keys, JWTs…), URL passwords, auth schemes and sensitive
 * `key=value` / `key: value` pairs.
 *
 * @example
 * redactString('call https://x.io/cb?access_token=abc&page=2');
 * // => 'call https://x.io/cb?access_token=<redacted>&page=2'
 */
export function redactString(text: string, options?: RedactOptions): string {
  return redactText(text, redaction(options));
}

/**
 * Returns a redacted deep copy of `value`; the input is never mutated.
 *
 * - a property whose key is sensitive (see {@link isSensitiveKey}) has its whole
 *   value replaced by `"<redacted>"`, even when that value is an object or array;
 *   a boolean or null under such a key stays (it carries no secret), and so does
 *   a number under a plural key (`tokens: 1532`, a count: `namesCount`);
 * - every string anywhere (array items, object values and keys, `Error` messages)
 *   has credential-looking parts masked by {@link redactString}, and the strings
 *   the current call resolved from secrets masked by exact match;
 * - Buffers, typed arrays, DataViews and ArrayBuffers (and a Buffer already turned
 *   into `{ type: 'Buffer', data: [...] }`) become `"<binary N bytes>"`;
 * - `Error` instances become plain `{ name, message, code? }` objects;
 * - cycles become `"[Circular]"`; an object with a `toJSON` becomes what it
 *   returns, redacted (a `Date` its ISO string, a `URL` its masked href); functions
 *   and symbols are dropped (as `JSON.stringify` would).
 *
 * @typeParam T - the input's type; the output has the same JSON shape.
 * @example
 * redact({ user: 'a', password: 'p', items: [{ api_key: 'k' }], data: Buffer.from('hi') });
 * // => { user: 'a', password: '<redacted>', items: [{ api_key: '<redacted>' }], data: '<binary 2 bytes>' }
 */
export function redact<T>(value: T, options?: RedactOptions): T {
  return redactValue(value, new WeakSet(), redaction(options)) as T;
}

/** What replaces bytes: their size, never their content. */
export function binaryMarker(bytes: number): string {
  return `<binary ${bytes} bytes>`;
}

/** The byte length of a Buffer, typed array, DataView or (Shared)ArrayBuffer, from any realm; undefined otherwise. */
function binaryLength(value: object): number | undefined {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  const tag = Object.prototype.toString.call(value);
  if (tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]') {
    return (value as ArrayBuffer).byteLength;
  }
  const serialized = value as { type?: unknown; data?: unknown };
  if (serialized.type === 'Buffer' && Array.isArray(serialized.data) && Object.keys(value).length === 2) {
    return serialized.data.length;
  }
  return undefined;
}

function redactValue(value: unknown, ancestors: WeakSet<object>, state: Redaction): unknown {
  if (typeof value === 'string') return redactText(value, state);
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  }
  const bytes = binaryLength(value);
  if (bytes !== undefined) return binaryMarker(bytes);
  if (ancestors.has(value)) return '[Circular]';
  ancestors.add(value);
  try {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return redactValue(toJSON.call(value), ancestors, state);
    if (Array.isArray(value)) return value.map((item) => redactValue(item, ancestors, state));
    const source: Record<string, unknown> =
      value instanceof Error ? errorFields(value) : (value as Record<string, unknown>);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(source)) {
      const outKey = redactText(key, state);
      if (isSensitiveKeyName(key, state.keepKeys) && !carriesNoSecret(key, child)) {
        if (child !== undefined) out[outKey] = REDACTED;
        continue;
      }
      const redacted = redactValue(child, ancestors, state);
      if (redacted !== undefined) out[outKey] = redacted;
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

/** A boolean or null carries no secret, nor a number under a plural key (`tokens: 1532` is a count). */
function carriesNoSecret(key: string, value: unknown): boolean {
  return value === null || typeof value === 'boolean' || (typeof value === 'number' && namesCount(key));
}

function errorFields(error: Error): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) fields.code = code;
  return fields;
}
