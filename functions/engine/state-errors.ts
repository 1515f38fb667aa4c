/**
 * A state's error as a Catch records it (`{ Error, Cause }`: Step Functions
 * developer guide, "Handling errors in Step Functions workflows") read back as
 * the platform's `<code>: <message>` (docs/errors.md's codes), the form every
 * reason the reports give in parentheses takes. A Lambda function's error
 * arrives with `Error` = its `errorType` (a class name such as `PlatformError`,
 * which says nothing to a reader) and `Cause` = the error's JSON
 * (`{ errorType, errorMessage, trace }`); a message the engine wrote as
 * `<code>: <message>` keeps its code; the service's own errors (`States.Timeout`,
 * `Lambda.TooManyRequestsException`…) get the code that means the same.
 */
import { type ErrorCode, isErrorCode } from '../runtime/errors';

/** A `Cause` read: a Lambda function error's `errorMessage` when the Cause is that error's JSON (`fromFunction`), else the Cause itself. */
function readCause(cause: string | undefined): { text: string; fromFunction: boolean } {
  const text = cause ?? '';
  try {
    const parsed = JSON.parse(text) as { errorMessage?: unknown } | null;
    if (typeof parsed?.errorMessage === 'string') return { text: parsed.errorMessage, fromFunction: true };
  } catch {
    // not JSON: the message itself
  }
  return { text, fromFunction: false };
}

/** The text of a `Cause`: a Lambda function error's `errorMessage` when the Cause is that error's JSON, else the Cause itself. */
export function causeText(cause: string | undefined): string {
  return readCause(cause).text;
}

/** `<code>: <message>` split, when it starts with one of docs/errors.md's codes; else undefined. */
export function codedMessage(text: string): { code: ErrorCode; message: string } | undefined {
  const match = /^([a-z_]+): ([\s\S]+)$/.exec(text);
  return match && isErrorCode(match[1]) ? { code: match[1], message: match[2] as string } : undefined;
}

/** The code of a Step Functions or Lambda service error name, by what it means. */
function codeOfErrorName(name: string): ErrorCode {
  if (name === 'States.Timeout' || name === 'States.HeartbeatTimeout') return 'timeout';
  if (/TooManyRequests|Throttl/.test(name)) return 'throttled';
  if (/^Lambda\.(?!Unknown$)/.test(name)) return 'upstream_error';
  return 'internal_error';
}

/**
 * A Catch's `{ Error, Cause }` as a code and a message: the code a coded message
 * carries, else the one its error name means (`internal_error` for the rest);
 * the message is the Cause's text, after the service's error name
 * (`Lambda.ServiceException: Lambda down`; a function error's class name is left
 * out), or the name alone.
 *
 * @example stateFailure('States.Timeout', '') // { code: 'timeout', message: 'States.Timeout' }
 */
export function stateFailure(
  error: string | undefined,
  cause: string | undefined,
): { code: ErrorCode; message: string } {
  const read = readCause(cause);
  const text = read.text.trim();
  const coded = codedMessage(text);
  if (coded) return coded;
  // A function's error name is its class (`PlatformError`, `TypeError`): no news to a reader.
  const name = read.fromFunction ? '' : (error ?? '');
  const message = name && text ? `${name}: ${text}` : name || text || 'an unknown error';
  return { code: codeOfErrorName(name), message };
}

/** `<code>: <message>`, the message cut to `maxChars` (with `…`). */
export function failureInWords(failure: { code: ErrorCode; message: string }, maxChars: number): string {
  const message =
    failure.message.length > maxChars ? `${failure.message.slice(0, maxChars - 1)}…` : failure.message;
  return `${failure.code}: ${message}`;
}
