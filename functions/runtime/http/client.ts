import { Agent, type Dispatcher, interceptors, request as undiciRequest } from 'undici';
import type { Deadline } from '../deadline';
import { LimitExceededError, PlatformError } from '../errors';
import { HttpRequestError, HttpStatusError, retryAfterSeconds } from './errors';
import { DEFAULT_RATE_LIMIT, type RateLimit, type RateLimiter, sharedRateLimiter } from './rate-limit';
import { type AttemptFailure, IDEMPOTENT_METHODS, retryDecision } from './retry-policy';

/** Connect timeout of every request, ms: a reachable endpoint connects in well under a second (same policy as `AWS_HTTP_TIMEOUTS`). */
export const CONNECT_TIMEOUT_MS = 3_000;
/** Default timeout of one attempt, ms: until the response's headers, and the longest silence in its body. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
/** Default retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 2;
/** Default bound on a response body, bytes (5 MiB): well above any page we ask for, far below Lambda's memory. */
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/** The logger calls the client makes (a Powertools Logger, which redacts every item). */
export interface HttpLogger {
  debug(message: string, attributes: Record<string, unknown>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
}

/** How a client is bounded; one client per tool call. */
export interface HttpClientOptions {
  /** The call's deadline: its `signal` is the hard stop of every request, `remainingMs` bounds every wait. */
  readonly deadline: Pick<Deadline, 'signal' | 'remainingMs'>;
  /** Where retries and requests are logged (never a URL or a header: the host and method only). */
  readonly logger?: HttpLogger;
  /** Whose rate-limit state requests count against (the tenant), so tenants never share a bucket. @default '' */
  readonly partition?: string;
  /** Reported as the errors' `service` (`slack`). */
  readonly service?: string;
  /** Per-host token bucket; `false` for none. @default {@link DEFAULT_RATE_LIMIT} */
  readonly rateLimit?: RateLimit | false;
  /** @default {@link DEFAULT_MAX_RETRIES} */
  readonly maxRetries?: number;
  /** Timeout of one attempt, ms, also bounded by the time left. @default {@link DEFAULT_ATTEMPT_TIMEOUT_MS} */
  readonly attemptTimeoutMs?: number;
  /** @default {@link DEFAULT_MAX_RESPONSE_BYTES} */
  readonly maxResponseBytes?: number;
  /** For {@link HttpClient.fetch}: whether a request is idempotent (a read sent as POST). @default by method */
  readonly isIdempotent?: (method: string, url: URL) => boolean;
  /** For {@link HttpClient.fetch}: see {@link HttpRequest.retryThrottled}. @default false */
  readonly retryThrottled?: boolean;
  /** @default the container's {@link sharedRateLimiter} */
  readonly rateLimiter?: RateLimiter;
}

/** One request. */
export interface HttpRequest {
  readonly method: string;
  readonly url: string | URL;
  /** Header names as sent; never logged. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Whether repeating the request is harmless. A request that is not idempotent is
   * retried only when it certainly did not reach the server (refused connection,
   * DNS failure, connect timeout) or on 429 with {@link retryThrottled}.
   * @default true for GET, HEAD, OPTIONS, PUT, DELETE, TRACE; false otherwise
   */
  readonly idempotent?: boolean;
  /** A 429 means the server did not act on the request (true of Slack), so it may be repeated after `Retry-After`. @default false */
  readonly retryThrottled?: boolean;
  /** Aborts the request besides the deadline (a caller's own timeout). */
  readonly signal?: AbortSignal;
}

/** A response, its body read in full (at most `maxResponseBytes`). */
export interface HttpResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** The client a tool call uses for plain HTTPS (webhooks, REST connectors). */
export interface HttpClient {
  /**
   * Sends the request, retrying per the policy (`retryDecision`), and returns the
   * last response whatever its status.
   *
   * @throws HttpRequestError (`network_error` | `timeout`, with `reached`) when no answer came.
   * @throws ThrottledError when the host's token bucket has no token before the deadline.
   * @throws LimitExceededError when the body exceeds `maxResponseBytes`.
   */
  request(request: HttpRequest): Promise<HttpResponse>;
  /**
   * As {@link request}, and a status outside 2xx becomes an {@link HttpStatusError}
   * (429 → `throttled` with `retryAfterSeconds`, 5xx → `upstream_error`…).
   */
  requestOk(request: HttpRequest): Promise<HttpResponse>;
  /**
   * A WHATWG `fetch` over {@link request}, for SDKs that take a `fetch` (the Slack
   * WebClient): string and `URLSearchParams` bodies only.
   */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
}

let dispatcher: Dispatcher | undefined;

/**
 * The container's connection pool, created on first use: keep-alive connections
 * per origin, undici's retry interceptor (its decisions are ours, per request:
 * `retryOptions.retry`). No tenant state lives here.
 */
function sharedDispatcher(): Dispatcher {
  dispatcher ??= new Agent({ connect: { timeout: CONNECT_TIMEOUT_MS } }).compose(
    interceptors.retry({ throwOnError: false }),
  );
  return dispatcher;
}

/**
 * A client bound to one call: every request is rate limited per host (and
 * partition), retried per the policy within the deadline, timed out per
 * attempt, stopped by the deadline's signal, and logged with its host only.
 *
 * @example
 * const http = createHttpClient({ deadline: ctx.deadline, logger: ctx.logger, partition: ctx.tenant, service: 'slack' });
 * const response = await http.requestOk({ method: 'POST', url: webhookUrl, body: JSON.stringify({ text }),
 *   headers: { 'content-type': 'application/json' } });
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const limiter = options.rateLimiter ?? sharedRateLimiter;

  const request = async (req: HttpRequest): Promise<HttpResponse> => {
    const url = typeof req.url === 'string' ? new URL(req.url) : req.url;
    const method = req.method.toUpperCase();
    const host = url.host;
    const idempotent = req.idempotent ?? IDEMPOTENT_METHODS.has(method);
    const deadline = options.deadline;
    if (rateLimit) {
      await limiter.acquire(`${options.partition ?? ''}\u0000${host}`, rateLimit, {
        remainingMs: deadline.remainingMs(),
        signal: deadline.signal,
        service: options.service,
      });
    }
    const started = Date.now();
    let attempts = 1;
    const retry: RetryCallback = (err, { state }, callback) => {
      const fields = err as {
        statusCode?: unknown;
        code?: unknown;
        headers?: Record<string, string | string[]>;
      };
      const status = typeof fields.statusCode === 'number' ? fields.statusCode : undefined;
      const failure: AttemptFailure = {
        status,
        code: status === undefined && typeof fields.code === 'string' ? fields.code : undefined,
        retryAfterSeconds:
          status !== undefined ? retryAfterSeconds(fields.headers?.['retry-after']) : undefined,
      };
      const decision = retryDecision(failure, {
        attempt: state.counter,
        maxRetries,
        idempotent,
        retryThrottled: req.retryThrottled ?? false,
        remainingMs: deadline.remainingMs(),
      });
      const facts = { host, method, status, errno: failure.code, attempt: state.counter };
      if (!decision.retry) {
        options.logger?.debug('http request not retried', { ...facts, reason: decision.reason });
        callback(err);
        return undefined;
      }
      attempts++;
      options.logger?.warn('http request retried', { ...facts, waitMs: decision.waitMs });
      return setTimeout(() => callback(null), decision.waitMs);
    };
    const timeout = Math.max(1, Math.min(attemptTimeoutMs, deadline.remainingMs()));
    try {
      const response = await undiciRequest(url, {
        method: method as Dispatcher.HttpMethod,
        headers: { ...req.headers },
        body: req.body,
        dispatcher: sharedDispatcher(),
        signal: req.signal ? AbortSignal.any([deadline.signal, req.signal]) : deadline.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        retryOptions: { retry, maxRetries },
      } as Parameters<typeof undiciRequest>[1]);
      const text = await readBounded(response.body, maxBytes, host);
      options.logger?.debug('http request', {
        host,
        method,
        status: response.statusCode,
        attempts,
        durationMs: Date.now() - started,
      });
      return { status: response.statusCode, headers: flatHeaders(response.headers), text };
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      throw new HttpRequestError(host, method, err, options.service);
    }
  };

  const requestOk = async (req: HttpRequest): Promise<HttpResponse> => {
    const response = await request(req);
    if (response.status >= 200 && response.status < 300) return response;
    const host = (typeof req.url === 'string' ? new URL(req.url) : req.url).host;
    throw new HttpStatusError(
      host,
      response.status,
      response.text,
      retryAfterSeconds(response.headers['retry-after']),
      options.service,
    );
  };

  const fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(href);
    const method = (init.method ?? 'GET').toUpperCase();
    const response = await request({
      method,
      url,
      headers: headerRecord(init.headers),
      body: bodyString(init.body),
      idempotent: options.isIdempotent?.(method, url),
      retryThrottled: options.retryThrottled,
      ...(init.signal ? { signal: init.signal } : {}),
    });
    // A null-body status (RFC 9110: 204, 205, 304) may not carry a body in a Response.
    const body = [204, 205, 304].includes(response.status) ? null : response.text;
    return new Response(body, { status: response.status, headers: response.headers });
  };

  return { request, requestOk, fetch };
}

type RetryCallback = (
  err: Error,
  context: { state: { counter: number } },
  callback: (err?: Error | null) => void,
) => NodeJS.Timeout | undefined;

async function readBounded(body: AsyncIterable<Buffer>, maxBytes: number, host: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new LimitExceededError(`The response from ${host} exceeds ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  return Object.fromEntries(new Headers(headers ?? {}).entries());
}

function bodyString(body: RequestInit['body']): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new PlatformError('internal_error', 'The HTTP client sends string and URLSearchParams bodies only');
}
