import { AsyncLocalStorage } from 'node:async_hooks';

/** What a masked value is replaced with. */
export const REDACTED = '<redacted>';

/**
 * Shortest resolved string masked by exact match, in characters (issue 8): shorter
 * leaves (`"on"`, `"eu"`) would mask ordinary words.
 */
export const MIN_SECRET_VALUE_CHARS = 4;

/**
 * Values shorter than this are masked only as whole tokens (not inside a longer
 * run of letters and digits), so a four-letter value such as `prod` leaves
 * `production` readable. Longer ones are masked wherever they appear.
 */
const WHOLE_TOKEN_BELOW_CHARS = 8;

/**
 * AWS region codes (`eu-west-1`, `us-gov-west-1`, `cn-north-1`): routing, public,
 * and in every ARN of an AWS result. The one kind of leaf never recorded.
 */
const AWS_REGION = /^[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$/;

/**
 * Payload fields that name, never hold, a credential: a vendor family's
 * `provider` (`crm_default`'s `"hubspot"`), a closed list of public names that
 * results and errors say as such. Their values are not recorded.
 */
const NAMING_FIELDS: ReadonlySet<string> = new Set(['provider']);

/**
 * JSON's literal names: a secret whose text is `null` or `true` (a mistake the
 * secret check reports as "it is JSON but null, not an object") holds no
 * credential, and masking the word would garble that very message.
 */
const JSON_LITERALS: ReadonlySet<string> = new Set(['null', 'true', 'false']);

/** Deepest level of a payload walked: secret payloads are small JSON objects. */
const MAX_DEPTH = 32;

/**
 * The secret strings one tool call resolved, masked by exact match wherever they
 * appear in that call's result, error, summary and log lines (docs/design.md,
 * "Redaction"). One instance per call: nothing is kept across calls or tenants.
 *
 * Every string leaf of a resolved payload is recorded, at any depth and under
 * any key but a vendor family's `provider`, when it has at least
 * {@link MIN_SECRET_VALUE_CHARS} characters and is not an AWS region code; so are its JSON-escaped, URL-encoded and base64 forms
 * (a secret echoed inside a JSON string, a query string or a Basic header). The
 * values are matched by one regular expression, longest first, built on first use
 * after a change.
 *
 * @example
 * const values = new SecretValues();
 * values.add({ db: { user: 'app', db_pass: 'fake-test-pass' }, region: 'eu-west-1' });
 * values.mask('login app/fake-test-pass failed in eu-west-1');
 * // => 'login app/<redacted> failed in eu-west-1' ("app" is under 4 characters)
 */
export class SecretValues {
  readonly #values = new Set<string>();
  /** `undefined` when stale, `null` when there is nothing to match. */
  #matcher: RegExp | null | undefined = null;

  /** How many distinct strings (encodings included) are masked. */
  get size(): number {
    return this.#values.size;
  }

  /** Records every string leaf of a resolved secret payload (objects, arrays, or a bare string). */
  add(payload: unknown): void {
    this.#walk(payload, 0);
  }

  /** Replaces every recorded value in `text` by {@link REDACTED}. */
  mask(text: string): string {
    if (this.#matcher === undefined) this.#matcher = buildMatcher(this.#values);
    if (this.#matcher === null || text.length < MIN_SECRET_VALUE_CHARS) return text;
    return text.replace(this.#matcher, REDACTED);
  }

  #walk(value: unknown, depth: number): void {
    if (typeof value === 'string') {
      this.#record(value);
      return;
    }
    if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return;
    if (Array.isArray(value)) {
      for (const child of value) this.#walk(child, depth + 1);
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      if (!NAMING_FIELDS.has(key)) this.#walk(child, depth + 1);
    }
  }

  #record(value: string): void {
    if (value.length < MIN_SECRET_VALUE_CHARS || AWS_REGION.test(value) || JSON_LITERALS.has(value)) return;
    const before = this.#values.size;
    for (const form of encodings(value)) this.#values.add(form);
    if (this.#values.size !== before) this.#matcher = undefined;
  }
}

/** The value as it is, and as it reads inside a JSON string, a URL and base64. */
function encodings(value: string): string[] {
  return [
    value,
    JSON.stringify(value).slice(1, -1),
    encodeURIComponent(value),
    Buffer.from(value, 'utf8').toString('base64'),
  ];
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

function buildMatcher(values: ReadonlySet<string>): RegExp | null {
  if (values.size === 0) return null;
  // Longest first: a value that contains another is masked whole.
  const sorted = [...values].sort((a, b) => b.length - a.length);
  const alternatives = sorted.map((value) =>
    value.length < WHOLE_TOKEN_BELOW_CHARS
      ? `(?<![A-Za-z0-9])${escapeRegExp(value)}(?![A-Za-z0-9])`
      : escapeRegExp(value),
  );
  return new RegExp(alternatives.join('|'), 'g');
}

const scope = new AsyncLocalStorage<SecretValues>();

/**
 * Runs `fn` as one tool call whose resolved secrets are `values`: every
 * `redact()` and log line inside it, awaited work included, masks them without
 * being handed them (Node's AsyncLocalStorage). `runTool` opens one per call.
 *
 * @example
 * const values = new SecretValues();
 * await withSecretValues(values, () => tool.handler(ctx, args));
 */
export function withSecretValues<T>(values: SecretValues, fn: () => T): T {
  return scope.run(values, fn);
}

/** The secret values of the tool call running in this async context, if any. */
export function currentSecretValues(): SecretValues | undefined {
  return scope.getStore();
}
