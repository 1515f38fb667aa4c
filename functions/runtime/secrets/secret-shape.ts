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
