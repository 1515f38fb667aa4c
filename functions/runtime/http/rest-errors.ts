/**
 * One error mapping for every REST connector: an HTTP error answer becomes the
 * platform's code by its status, and the connector's {@link ErrorTable} only says
 * what its API puts where (the message, the field messages of a refused body,
 * the scope a 403 names, whether a 403 is in fact a rate limit).
 */
import { type ErrorCode, PlatformError } from '../errors';
import type { HttpResponse } from './client';
import { retryAfterSeconds } from './errors';

/** Longest API message kept in an error, characters. */
export const API_MESSAGE_CHARS = 300;
/** Most field messages kept from a refused body. */
export const MAX_FIELD_MESSAGES = 10;

/** An error answer as the mapping sees it: the response and its body parsed as JSON (undefined when not JSON). */
export interface ErrorAnswer {
  readonly response: HttpResponse;
  readonly body: unknown;
}

/**
 * What a connector says of its API's error answers; every member is optional and
 * each reads one thing. Everything else (codes, retryability, `retryAfterMs`) is
 * decided here, the same for every connector.
 */
export interface ErrorTable {
  /** The API's own message (GitHub `message`, PagerDuty `error.message`). */
  readonly message?: (answer: ErrorAnswer) => string | undefined;
  /** Field messages of a 400/409/422 (`title: missing_field`), shown to the caller to fix its arguments. */
  readonly fieldMessages?: (answer: ErrorAnswer) => readonly string[];
  /** The scope or permission a 403 says is missing (GitHub `x-accepted-oauth-scopes`). */
  readonly missingScope?: (answer: ErrorAnswer) => string | undefined;
  /**
   * Whether an answer that is not a 429 is a rate limit (GitHub's 403 "secondary
   * rate limit", a primary limit at `x-ratelimit-remaining: 0`), and how long to
   * wait, ms; undefined when it is not. Also read for a 429 without `Retry-After`
   * (the HTTP client's retry wait and `retryAfterMs`: PagerDuty's `ratelimit-reset`).
   */
  readonly throttle?: (answer: ErrorAnswer, now: number) => { readonly retryAfterMs: number } | undefined;
  /** The API's request id header, reported in `details.requestId` (`x-github-request-id`). */
  readonly requestIdHeader?: string;
  /** Whether a 404 may mean "no access" (GitHub hides private resources behind 404): said in the message. */
  readonly notFoundMayBeAccess?: boolean;
}

/** Wait assumed for a throttle answer that says nothing of when to come back, ms. */
export const DEFAULT_THROTTLE_WAIT_MS = 60_000;

/**
 * A REST API answered an error status, mapped to the platform's codes:
 * 401 `auth_failed` (after the session's one renewal), 403 `access_denied`
 * (naming the missing scope when the API says it, else the one the request
 * declares it needs) or `throttled` (a rate limit
 * the connector recognizes), 404/410 `not_found`, 400/409/422 `invalid_args`
 * with the API's field messages, 429 `throttled` with `retryAfterMs`, 408
 * `timeout`, 5xx `upstream_error` (retryable), anything else `upstream_error`.
 *
 * `details`: `httpStatusCode`, and when known `apiMessage`, `fields`,
 * `missingScope`, `retryAfterMs` (with `retryAfterSeconds`, rounded up, as the
 * platform's other throttles say it), `requestId`. Never a header or a body as a whole.
 */
export class RestApiError extends PlatformError {
  override readonly name = 'RestApiError';
  readonly status: number;
  /** Set for `throttled`: how long to wait, ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    status: number,
    options: { service: string; retryable: boolean; details: Record<string, unknown> },
  ) {
    super(code, message, {
      retryable: options.retryable,
      service: options.service,
      details: options.details,
    });
    this.status = status;
    const wait = options.details.retryAfterMs;
    this.retryAfterMs = typeof wait === 'number' ? wait : undefined;
  }
}

/** The JSON body of a response, or undefined when it is not JSON. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * How long a throttled answer asks to wait, ms: `Retry-After` (seconds or an
 * HTTP date), else the connector's reading, else {@link DEFAULT_THROTTLE_WAIT_MS}.
 */
export function throttleWaitMs(answer: ErrorAnswer, table: ErrorTable, now = Date.now()): number {
  const header = retryAfterSeconds(answer.response.headers['retry-after'], now);
  if (header !== undefined) return header * 1000;
  return table.throttle?.(answer, now)?.retryAfterMs ?? DEFAULT_THROTTLE_WAIT_MS;
}

/**
 * Whether an answer is a rate limit: a 429, or what the connector's
 * {@link ErrorTable.throttle} recognizes. Returns the wait in ms, or undefined.
 */
export function throttledAnswer(
  answer: ErrorAnswer,
  table: ErrorTable,
  now = Date.now(),
): number | undefined {
  if (answer.response.status === 429) return throttleWaitMs(answer, table, now);
  if (answer.response.status < 400) return undefined;
  const own = table.throttle?.(answer, now);
  if (!own) return undefined;
  const header = retryAfterSeconds(answer.response.headers['retry-after'], now);
  return header !== undefined ? header * 1000 : own.retryAfterMs;
}

/**
 * Maps an error answer of `service` (its display name `label`, `GitHub`) to a
 * {@link RestApiError}.
 *
 * @example
 * mapRestError({ response: { status: 422, headers: {}, text }, body: { message: 'Validation Failed',
 *   errors: [{ field: 'title', code: 'missing_field' }] } }, 'github', 'GitHub', githubErrors)
 * // invalid_args: "GitHub refused the request (HTTP 422): Validation Failed — title: missing_field"
 */
export function mapRestError(
  answer: ErrorAnswer,
  service: string,
  label: string,
  table: ErrorTable = {},
  now = Date.now(),
  requestScope?: string,
): RestApiError {
  const { status } = answer.response;
  const apiMessage = clip(table.message?.(answer) ?? plainMessage(answer));
  const requestId = table.requestIdHeader ? answer.response.headers[table.requestIdHeader] : undefined;
  const base: Record<string, unknown> = {
    httpStatusCode: status,
    ...(apiMessage ? { apiMessage } : {}),
    ...(requestId ? { requestId } : {}),
  };
  const said = apiMessage ? `: ${apiMessage}` : '';
  const make = (code: ErrorCode, message: string, retryable: boolean, extra: Record<string, unknown> = {}) =>
    new RestApiError(code, message, status, { service, retryable, details: { ...base, ...extra } });

  const wait = throttledAnswer(answer, table, now);
  if (wait !== undefined) {
    return make(
      'throttled',
      `${label} rate limit reached (HTTP ${status})${said}; retry after ${wait} ms`,
      true,
      {
        retryAfterMs: wait,
        retryAfterSeconds: Math.ceil(wait / 1000),
      },
    );
  }
  if (status === 401) {
    return make(
      'auth_failed',
      `${label} refused the credential (HTTP 401)${said}; it was read again once. Check the tenant's secret`,
      false,
    );
  }
  if (status === 403) {
    const named = table.missingScope?.(answer);
    const scope = named ?? (requestScope ? `the ${requestScope} scope (this request needs it)` : undefined);
    return scope
      ? make('access_denied', `${label} denied the request: the credential lacks ${scope}${said}`, false, {
          missingScope: scope,
        })
      : make('access_denied', `${label} denied the request (HTTP 403)${said}`, false);
  }
  if (status === 404 || status === 410) {
    const hint = table.notFoundMayBeAccess
      ? ` (${label} also answers 404 for what the credential may not see)`
      : '';
    return make('not_found', `${label} found nothing there (HTTP ${status})${said}${hint}`, false);
  }
  if (status === 400 || status === 409 || status === 422) {
    const fields = (table.fieldMessages?.(answer) ?? []).slice(0, MAX_FIELD_MESSAGES).map(clip);
    const listed = fields.length > 0 ? ` — ${fields.join('; ')}` : '';
    return make(
      'invalid_args',
      `${label} refused the request (HTTP ${status})${said}${listed}`,
      false,
      fields.length > 0 ? { fields } : {},
    );
  }
  if (status === 408) return make('timeout', `${label} timed out (HTTP 408)${said}`, true);
  if (status >= 500) return make('upstream_error', `${label} failed (HTTP ${status})${said}`, true);
  return make('upstream_error', `${label} answered HTTP ${status}${said}`, false);
}

/** A non-JSON error body's start (a proxy's text), else nothing. */
function plainMessage(answer: ErrorAnswer): string | undefined {
  if (answer.body !== undefined) return undefined;
  const text = answer.response.text.trim();
  if (text === '' || /^\s*</.test(text)) return undefined;
  return text;
}

function clip(text: string | undefined): string {
  if (!text) return '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > API_MESSAGE_CHARS ? `${line.slice(0, API_MESSAGE_CHARS)}…` : line;
}
