/**
 * Building a normalized error from what a source recognized: every message is
 * redacted and cut, every detail redacted, whichever source built it.
 */
import type { ErrorCode } from '../errors';
import { redact, redactString } from '../redact';
import type { ToolErrorInfo } from '../result';

/** Longest `message` a normalized error carries, in characters. */
export const MAX_ERROR_MESSAGE_CHARS = 1000;

/** What an error means for the caller: the platform's code and whether a retry may help. */
export interface ErrorMeaning {
  readonly code: ErrorCode;
  readonly retryable: boolean;
}

/** One meaning for each of `names` (error names or strings a service chose), for building a table. */
export function meaningOfEach(
  names: readonly string[],
  code: ErrorCode,
  retryable: boolean,
): Record<string, ErrorMeaning> {
  return Object.fromEntries(names.map((name) => [name, { code, retryable }]));
}

/**
 * The meaning of a name a remote service chose, looked up as an own property
 * only: `constructor` or `__proto__` in an answer is an unknown name, never
 * Object.prototype's member.
 */
export function meaningIn(
  table: Readonly<Record<string, ErrorMeaning>>,
  name: string,
): ErrorMeaning | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** The fields of a thrown value (anything: an Error, a plain object, a string). */
export type ErrorFields = Record<string, unknown>;

/** The fields of a thrown value, or none for a primitive. */
export function fieldsOf(err: unknown): ErrorFields {
  return err !== null && typeof err === 'object' ? (err as ErrorFields) : {};
}

/** The value when it is a string. */
export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The error and its `cause`s, outermost first (at most 4: causes may loop). */
export function causeChain(err: ErrorFields): ErrorFields[] {
  const chain: ErrorFields[] = [];
  for (let current: unknown = err; chain.length < 4 && current !== null && typeof current === 'object'; ) {
    chain.push(current as ErrorFields);
    current = (current as ErrorFields).cause;
  }
  return chain;
}

function boundMessage(message: string): string {
  const clean = redactString(message);
  return clean.length > MAX_ERROR_MESSAGE_CHARS ? `${clean.slice(0, MAX_ERROR_MESSAGE_CHARS - 1)}…` : clean;
}

/**
 * A normalized error: the message redacted and cut to
 * {@link MAX_ERROR_MESSAGE_CHARS}, the details redacted (and left out when empty).
 */
export function errorInfo(
  code: ErrorCode,
  message: string,
  retryable: boolean,
  service?: string,
  details?: ErrorFields,
): ToolErrorInfo {
  const cleanDetails = details && Object.keys(details).length > 0 ? redact(details) : undefined;
  return {
    code,
    message: boundMessage(message),
    retryable,
    ...(service ? { service } : {}),
    ...(cleanDetails ? { details: cleanDetails } : {}),
  };
}
