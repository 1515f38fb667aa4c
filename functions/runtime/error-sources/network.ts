/**
 * Connection-level failures: Node.js system errors (possibly wrapped as `cause`,
 * as `fetch` wraps them in "fetch failed") and requests cut by a timeout.
 */
import type { ToolErrorInfo } from '../result';
import { causeChain, type ErrorFields, errorInfo, stringField } from './error-info';

/** Node.js system error codes of failed connections (Node.js docs, "Common system errors"; undici's `UND_ERR_*`). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
]);

/** The codes of {@link NETWORK_CODES} that mean the wait ran out rather than the connection failed. */
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ECONNABORTED',
]);

/**
 * Error names of a request cut by its timeout: `TimeoutError` is what `fetch`
 * rejects with when its `AbortSignal.timeout()` fires (a DOMException whose
 * numeric `code` is 23) and what `@smithy/node-http-handler` throws; `AbortError`
 * is an aborted request, which here only a deadline's signal aborts.
 */
export const TIMEOUT_NAMES: ReadonlySet<string> = new Set(['TimeoutError', 'AbortError']);

/**
 * A timeout error turned into text: the Slack clients wrap a rejection that is
 * not an `Error` of their own realm as `new Error(String(err))` (a DOMException
 * from `fetch` when the code runs in a VM context, as under Jest), which keeps
 * only `TimeoutError: …` in the message.
 */
const STRINGIFIED_TIMEOUT = /^(TimeoutError|AbortError): /;

/** Whether the error, or one of its causes, is a request cut by a timeout (by name or Node's error code). */
export function isTimeout(fields: ErrorFields): boolean {
  return causeChain(fields).some(
    (e) =>
      TIMEOUT_NAMES.has(stringField(e.name) ?? '') ||
      TIMEOUT_CODES.has(stringField(e.code) ?? '') ||
      STRINGIFIED_TIMEOUT.test(stringField(e.message) ?? ''),
  );
}

/**
 * The message of a failed connection, saying which service and endpoint could
 * not be reached (a bare `connect ECONNREFUSED 127.0.0.1:8000` names neither the
 * service nor, with a proxy or a DNS failure, always the host). Node's system
 * errors carry `hostname` (DNS) or `address` and `port` (Node.js docs, "Class:
 * SystemError").
 */
function namingEndpoint(
  message: string,
  service: string | undefined,
  error: ErrorFields,
  timedOut: boolean,
): string {
  if (!service) return message;
  const host = stringField(error.hostname) ?? stringField(error.address);
  const port = typeof error.port === 'number' || typeof error.port === 'string' ? `:${error.port}` : '';
  const endpoint = host && !message.includes(host) ? ` ${host}${port}` : '';
  return timedOut
    ? `The ${service} endpoint${endpoint} did not answer in time: ${message}`
    : `Could not reach the ${service} endpoint${endpoint}: ${message}`;
}

/**
 * `network_error` (retryable, `details.errno`) for a failed connection, `timeout`
 * for a request its timeout cut, or undefined when the error is neither.
 */
export function networkErrorInfo(
  fields: ErrorFields,
  message: string,
  service: string | undefined,
): ToolErrorInfo | undefined {
  for (const current of causeChain(fields)) {
    const code = stringField(current.code);
    if (code && NETWORK_CODES.has(code)) {
      const timedOut = TIMEOUT_CODES.has(code);
      return errorInfo(
        timedOut ? 'timeout' : 'network_error',
        namingEndpoint(message, service, current, timedOut),
        true,
        service,
        { errno: code },
      );
    }
  }
  if (isTimeout(fields)) return errorInfo('timeout', message, true, service);
  return undefined;
}
