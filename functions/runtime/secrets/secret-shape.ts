/**
 * Tells a secret that is not the JSON object a tool needs from one with wrong
 * fields: a leaf module, so the AWS and Slack secret checks use it without
 * loading the providers. Secrets are parsed by `parseSecretValue`
 * (providers.ts), which keeps any text that is not a JSON object as
 * `{ "value": … }`.
 */

/**
 * Why a secret a tool needs as a JSON object is not one, or undefined when it
 * is: `parseSecretValue` keeps any other text as `{ "value": … }`, so a
 * truncated or mistyped JSON would otherwise read as an unknown field `value`.
 * Says nothing of the value itself, which is a secret.
 *
 * @example notJsonObjectProblem({ value: '{"bot_token":"xoxb-…"' }) // 'it is not a JSON object: it starts with { but does not parse as JSON'
 * @example notJsonObjectProblem({ value: '["xoxb-…"]' }) // 'it is JSON but an array, not an object'
 */
export function notJsonObjectProblem(secret: Readonly<Record<string, unknown>>): string | undefined {
  const keys = Object.keys(secret);
  if (keys.length !== 1 || keys[0] !== 'value' || typeof secret.value !== 'string') return undefined;
  if (secret.value.trimStart().startsWith('{'))
    return 'it is not a JSON object: it starts with { but does not parse as JSON';
  const kind = jsonKind(secret.value);
  return kind ? `it is JSON but ${kind}, not an object` : 'it is not a JSON object but plain text';
}

/** What JSON value other than an object `text` is (`an array`, `a number`…), or undefined when it is not JSON. */
function jsonKind(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

/** What a zod issue of a refused secret says of where it is and why (zod's `$ZodIssue`, the fields this reads). */
interface SecretIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly keys?: readonly string[];
  readonly message?: string;
  /** `invalid_type`: the JSON Schema-like type name zod expected (`string`, `number`, `object`). */
  readonly expected?: string;
  /** `invalid_value`: the literals or enum members accepted (the schema's, never the secret's). */
  readonly values?: readonly unknown[];
  /** `invalid_union`: each alternative's issues, their paths relative to this issue's. */
  readonly errors?: readonly (readonly SecretIssue[])[];
}

/**
 * Issues of a value's own checks (a pattern, a length, a range, a refinement):
 * their message is the schema's, saying what is accepted, never the value.
 */
const VALUE_CHECKS = new Set(['invalid_format', 'too_small', 'too_big', 'not_multiple_of', 'custom']);

/** zod/mini's message when no locale is installed (zod-locale.ts): it says nothing. */
const BARE_MESSAGE = 'Invalid input';

/** Whether the secret has no field at `path` (its parent exists and lacks the last key). */
function isMissing(secret: Readonly<Record<string, unknown>>, path: readonly PropertyKey[]): boolean {
  let parent: unknown = secret;
  for (const key of path.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null) return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  const last = path.at(-1);
  return last !== undefined && typeof parent === 'object' && parent !== null && !Object.hasOwn(parent, last);
}

/**
 * Why an issue's field was refused, in words that never quote the value: it is
 * missing, of the wrong JSON type, not one of the accepted literals, or breaks
 * its own check (the schema's message); undefined when zod said nothing more.
 */
function issueReason(issue: SecretIssue, secret: Readonly<Record<string, unknown>>): string | undefined {
  if (issue.path.length > 0 && isMissing(secret, issue.path)) return 'missing';
  if (issue.code === 'invalid_type' && issue.expected) return `expected a ${issue.expected}`;
  if (issue.code === 'invalid_value' && issue.values?.length)
    return `one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  if (VALUE_CHECKS.has(issue.code) && issue.message && issue.message !== BARE_MESSAGE) return issue.message;
  return undefined;
}

/**
 * A refused union (a secret of two or more forms, `{ token }` or a GitHub App's
 * fields) as the issues of the form it came closest to — the one with the
 * fewest issues, a tie going to one whose issues are not all of the wrong JSON
 * type — their paths made whole; a missing field stays one issue ("missing"
 * says more than either form's type). Other issues are returned as they are.
 */
function closestForm(issue: SecretIssue, secret: Readonly<Record<string, unknown>>): SecretIssue[] {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return [issue];
  if (issue.path.length > 0 && isMissing(secret, issue.path)) return [issue];
  const typeOnly = (form: readonly SecretIssue[]) => form.every((i) => i.code === 'invalid_type');
  const [closest] = [...issue.errors].sort(
    (a, b) => a.length - b.length || Number(typeOnly(a)) - Number(typeOnly(b)),
  );
  return (closest ?? []).flatMap((inner) =>
    closestForm({ ...inner, path: [...issue.path, ...inner.path] }, secret),
  );
}

/** Longest field name said in a message, in characters: a pasted 20,000-character key would crowd out the reasons. */
const MAX_FIELD_NAME_CHARS = 64;

function fieldName(name: string): string {
  return name.length > MAX_FIELD_NAME_CHARS ? `${name.slice(0, MAX_FIELD_NAME_CHARS - 1)}…` : name;
}

/**
 * The fields a refused secret got wrong, for its error message, each with why:
 * `extra (unknown field)`, `role_arn (missing)`, `bot_token (expected a
 * string)`, `provider (one of "hubspot", "salesforce")`, or a value that failed
 * one of its own checks followed by what the check accepts (`token (a token of
 * 20-255 characters without white space)`); `(value)` is the whole secret. Each
 * is redacted — a field name can be a pasted credential (`{"AKIA…": "…"}`), and
 * messages never show one.
 *
 * @param secret - the refused secret, read only to tell a missing field from a wrong one.
 * @example faultyFields(parsed.error.issues, secret) // ['role_arn (missing)', '<redacted> (unknown field) ×2']
 */
export function faultyFields(
  issues: readonly SecretIssue[],
  secret: Readonly<Record<string, unknown>>,
): string[] {
  const { redactString } = require('../redact') as typeof import('../redact');
  const names = issues
    .flatMap((issue) => closestForm(issue, secret))
    .flatMap((issue) => {
      if (issue.code === 'unrecognized_keys' && issue.keys)
        return issue.keys.map((key) => `${key === '' ? '""' : fieldName(redactString(key))} (unknown field)`);
      const name = fieldName(redactString(issue.path.map(String).join('.') || '(value)'));
      const reason = issueReason(issue, secret);
      return [reason ? `${name} (${reason})` : name];
    });
  // Repeats are said once with their count: three pasted credentials as keys all read "<redacted>".
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name));
}
