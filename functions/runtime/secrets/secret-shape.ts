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
 */
export function notJsonObjectProblem(secret: Readonly<Record<string, unknown>>): string | undefined {
  const keys = Object.keys(secret);
  if (keys.length !== 1 || keys[0] !== 'value' || typeof secret.value !== 'string') return undefined;
  return secret.value.trimStart().startsWith('{')
    ? 'it is not a JSON object: it starts with { but does not parse as JSON'
    : 'it is not a JSON object but plain text';
}

/** What a zod issue of a refused secret says of where it is and why (zod's `$ZodIssue`, the fields this reads). */
interface SecretIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly keys?: readonly string[];
  readonly message?: string;
}

/**
 * Issues of a value's own checks (a pattern, a length, a range, a refinement):
 * their message is the schema's, saying what is accepted, never the value.
 */
const VALUE_CHECKS = new Set(['invalid_format', 'too_small', 'too_big', 'not_multiple_of', 'custom']);

/** zod/mini's message when no locale is installed (zod-locale.ts): it says nothing. */
const BARE_MESSAGE = 'Invalid input';

/**
 * The fields a refused secret got wrong, for its error message: unknown keys and
 * the paths of wrong values (`(value)` for the whole), a value that failed one
 * of its own checks followed by what the check accepts (`token (a token of
 * 20-255 characters without white space)`), each redacted — a field name can be
 * a pasted credential (`{"AKIA…": "…"}`), and messages never show one.
 *
 * @example faultyFields(parsed.error.issues) // ['role_arn (an IAM role ARN …)', '<redacted>']
 */
export function faultyFields(issues: readonly SecretIssue[]): string[] {
  const { redactString } = require('../redact') as typeof import('../redact');
  const names = issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys' && issue.keys) return issue.keys;
    const name = issue.path.map(String).join('.') || '(value)';
    const reason = VALUE_CHECKS.has(issue.code) && issue.message !== BARE_MESSAGE ? issue.message : undefined;
    return [reason ? `${name} (${reason})` : name];
  });
  return [...new Set(names.map((name) => redactString(name)))];
}
