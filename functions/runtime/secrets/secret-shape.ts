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

/** What a zod issue of a refused secret says of where it is (zod's `$ZodIssue`, the fields this reads). */
interface SecretIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly keys?: readonly string[];
}

/**
 * The fields a refused secret got wrong, for its error message: unknown keys and
 * the paths of wrong values (`(value)` for the whole), each redacted — a field
 * name can be a pasted credential (`{"AKIA…": "…"}`), and messages never show one.
 *
 * @example faultyFields(parsed.error.issues) // ['role_arn', '<redacted>']
 */
export function faultyFields(issues: readonly SecretIssue[]): string[] {
  const { redactString } = require('../redact') as typeof import('../redact');
  const names = issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' && issue.keys
      ? issue.keys
      : [issue.path.map(String).join('.') || '(value)'],
  );
  return [...new Set(names.map((name) => redactString(name)))];
}
