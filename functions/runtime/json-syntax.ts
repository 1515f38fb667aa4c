/**
 * What is wrong with text that `JSON.parse` refused, in words that never quote
 * the text: V8's message for an unexpected token carries the start of the text
 * (`Unexpected token 'g', "ghp_a1B2a1"... is not valid JSON`), which for a
 * credential pasted where JSON was expected is the credential's first
 * characters, too short for any redaction pattern to recognize.
 *
 * @param err - what `JSON.parse` threw (a `SyntaxError`).
 * @returns the message without its excerpt (`Unexpected token 'g': not valid
 *   JSON`); other messages, which give a position instead, unchanged.
 * @example jsonSyntaxMessage(new SyntaxError('Unexpected token \'g\', "ghp_a1B2a1"... is not valid JSON')) // "Unexpected token 'g': not valid JSON"
 */
export function jsonSyntaxMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/,? ?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, ': not valid JSON');
}
