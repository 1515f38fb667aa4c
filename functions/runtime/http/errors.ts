import { type ErrorCode, PlatformError } from '../errors';

/**
 * Rate limited: the remote answered 429 (or a local token bucket had no token in
 * time) and the wait would outlast the call's deadline. Retryable; the caller
 * should come back after `retryAfterSeconds`.
 */
export class ThrottledError extends PlatformError {
  override readonly name = 'ThrottledError';
  /** Seconds to wait before trying again (from `Retry-After`, or the local bucket). */
  readonly retryAfterSeconds: number | undefined;

  /** @param retryAfterMs - the same wait in ms, when known to the ms (a local token bucket). */
  constructor(
    message: string,
    retryAfterSeconds: number | undefined,
    service?: string,
    retryAfterMs?: number,
  ) {
    super('throttled', message, {
      retryable: true,
      service,
      details:
        retryAfterSeconds === undefined
          ? undefined
          : { retryAfterSeconds, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
    });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Whether a failed request may have reached the server: `no` when it failed
 * before being sent (refused connection, DNS failure, connect timeout), `maybe`
 * once bytes may have left (a reset, a response timeout), so a non-idempotent
 * request's effect is unknown.
 */
export type Reached = 'no' | 'maybe';

/**
 * Every code Node.js gives a certificate the handshake refused (Node.js "X509
 * certificate error codes", the whole list: a proxy's CA certificate that is no CA,
 * `INVALID_CA`, is refused before any HTTP byte as an expired one is).
 */
const X509_VERIFY_CODES = [
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'OUT_OF_MEM',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
] as const;

/**
 * Node/undici error codes of failures before the request was sent (Node.js "Common
 * system errors"; undici errors), and of a TLS handshake that failed: no HTTP byte
 * is written before the handshake ends, so a certificate refused (Node.js "X509
 * certificate error codes": an expired or self-signed certificate, a name that does
 * not match, as a TLS-inspecting proxy presents) or a server that speaks no TLS
 * (OpenSSL's "wrong version number") sent nothing.
 */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  ...X509_VERIFY_CODES,
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** Codes of a request cut by a timeout. */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/**
 * A request that got no (complete) answer: a connection failure, a timeout, or
 * the deadline. Carries the host, never the URL (a webhook URL is a secret).
 */
export class HttpRequestError extends PlatformError {
  override readonly name = 'HttpRequestError';
  readonly reached: Reached;
  /** The Node/undici error code (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`), or the abort reason's name. */
  readonly errno: string;

  /**
   * @param errno - the failure's code when known (`ECONNREFUSED`, `AttemptTimeout`); else read from `cause`.
   */
  constructor(host: string, method: string, cause: unknown, service?: string, errno?: string) {
    const code = errno ?? codeOf(cause);
    const timeout =
      TIMEOUT_CODES.has(code) || ['TimeoutError', 'AbortError', 'AttemptTimeout', 'Aborted'].includes(code);
    const reached: Reached = NOT_SENT_CODES.has(code) ? 'no' : 'maybe';
    super(timeout ? 'timeout' : 'network_error', `${method} to ${host} failed: ${messageOf(cause)}`, {
      retryable: true,
      service,
      cause,
      details: { errno: code, host, reached },
    });
    this.reached = reached;
    this.errno = code;
  }
}

/** The errors a failure is wrapped in, outermost first (Node's fetch: "fetch failed" with the system error as `cause`). */
function causes(err: unknown): Record<string, unknown>[] {
  const chain: Record<string, unknown>[] = [];
  for (let current = err; current !== null && typeof current === 'object' && chain.length < 4; ) {
    chain.push(current as Record<string, unknown>);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** The first system error code in the chain, else the error's name. */
function codeOf(err: unknown): string {
  const chain = causes(err);
  const code = chain.find((e) => typeof e.code === 'string')?.code;
  if (typeof code === 'string') return code;
  return typeof chain[0]?.name === 'string' ? chain[0].name : 'Error';
}

/** The most telling message: a wrapper's generic "fetch failed" gives way to its cause's. */
function messageOf(err: unknown): string {
  const messages = causes(err)
    .map((e) => e.message)
    .filter((m): m is string => typeof m === 'string' && m !== '');
  return messages.find((m) => m !== 'fetch failed') ?? messages[0] ?? String(err);
}

/** Longest part of a response body kept in an {@link HttpStatusError}, in characters. */
export const ERROR_BODY_CHARS = 300;

/**
 * The remote answered an HTTP error status. `code` follows the status (RFC 9110):
 * 429 `throttled`, 5xx `upstream_error` (retryable), 401 `auth_failed`, 403
 * `access_denied`, 404/410 `not_found`, 408 `timeout`, 400/422 `invalid_args`,
 * any other `upstream_error`.
 */
export class HttpStatusError extends PlatformError {
  override readonly name = 'HttpStatusError';
  readonly status: number;
  /** The start of the body ({@link ERROR_BODY_CHARS} characters), trimmed. */
  readonly body: string;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    host: string,
    status: number,
    body: string,
    retryAfterSeconds: number | undefined,
    service?: string,
  ) {
    const [code, retryable] = statusCode(status);
    const snippet = body.trim().slice(0, ERROR_BODY_CHARS);
    super(code, `${host} answered HTTP ${status}${snippet ? `: ${snippet}` : ''}`, {
      retryable,
      service,
      details: {
        httpStatusCode: status,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      },
    });
    this.status = status;
    this.body = snippet;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

function statusCode(status: number): [ErrorCode, boolean] {
  if (status === 429) return ['throttled', true];
  if (status >= 500) return ['upstream_error', true];
  if (status === 401) return ['auth_failed', false];
  if (status === 403) return ['access_denied', false];
  if (status === 404 || status === 410) return ['not_found', false];
  if (status === 408) return ['timeout', true];
  if (status === 400 || status === 422) return ['invalid_args', false];
  return ['upstream_error', false];
}

/**
 * Seconds from a `Retry-After` header value (RFC 9110 §10.2.3: delay-seconds or an
 * HTTP-date), rounded up; undefined when absent or unreadable.
 *
 * @example retryAfterSeconds('120') // 120
 */
export function retryAfterSeconds(
  value: string | readonly string[] | undefined,
  now = Date.now(),
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
