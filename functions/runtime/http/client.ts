import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import type { Deadline } from '../deadline';
import { LimitExceededError, PlatformError } from '../errors';
import { HttpRequestError, HttpStatusError, retryAfterSeconds } from './errors';
import { DEFAULT_RATE_LIMIT, type RateLimit, type RateLimiter, sharedRateLimiter } from './rate-limit';
import { type AttemptFailure, IDEMPOTENT_METHODS, RETRY_STATUSES, retryDecision } from './retry-policy';

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
  /**
   * How long a 429 without `Retry-After` asks to wait, ms, as the API says it
   * elsewhere (GitHub `x-ratelimit-reset` at `x-ratelimit-remaining: 0`, PagerDuty
   * `ratelimit-reset`); undefined for the backoff. A retry is then made only when
   * that wait fits the deadline: a request sent before the API's reset only earns
   * another refusal. @default the backoff
   */
  readonly throttleWaitMs?: (response: HttpResponse) => number | undefined;
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

/**
 * A failed attempt as the retry loop sees it: an error status (with the response,
 * returned as is when not retried), or no answer (with what `fetch` threw).
 */
class AttemptError extends Error {
  override readonly name = 'AttemptError';
  constructor(
    readonly failure: AttemptFailure,
    readonly response?: HttpResponse,
    readonly thrown?: unknown,
  ) {
    super(failure.status === undefined ? `request failed (${failure.code})` : `HTTP ${failure.status}`);
  }
}

/**
 * A client bound to one call: every request is rate limited per host (and
 * partition), retried per the policy within the deadline (`p-retry` runs the
 * attempts, `retryDecision` decides each retry and its wait), timed out per
 * attempt, stopped by the deadline's signal, and logged with its host only.
 *
 * Requests go through Node's own `fetch` (undici inside Node.js): no HTTP library
 * in the bundle. The `undici` package with its retry interceptor added 500-750 KiB
 * and 150-370 ms of module load to each function (bench, "Slack functions").
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

    const attempt = async (): Promise<HttpResponse> => {
      const timeout = AbortSignal.timeout(Math.max(1, Math.min(attemptTimeoutMs, deadline.remainingMs())));
      const signals = [deadline.signal, timeout, ...(req.signal ? [req.signal] : [])];
      let response: Response;
      let text: string;
      try {
        response = await fetch(url, {
          method,
          headers: { ...req.headers },
          body: req.body,
          // A redirect could carry the request (and its credentials) elsewhere: refused.
          redirect: 'error',
          signal: AbortSignal.any(signals),
        });
        text = await readBounded(response, maxBytes, host);
      } catch (err) {
        if (err instanceof PlatformError) throw err;
        // The call's deadline (or the caller's signal) ended it: no retry. Our attempt timeout: maybe sent.
        const ended = deadline.signal.aborted || req.signal?.aborted;
        const code = ended ? 'Aborted' : timeout.aborted ? 'AttemptTimeout' : errnoOf(err);
        throw new AttemptError({ code }, undefined, err);
      }
      const answer = { status: response.status, headers: flatHeaders(response.headers), text };
      if (RETRY_STATUSES.has(answer.status)) {
        const header = retryAfterSeconds(answer.headers['retry-after']);
        const own = header === undefined && answer.status === 429 ? req.throttleWaitMs?.(answer) : undefined;
        throw new AttemptError(
          {
            status: answer.status,
            retryAfterSeconds: header ?? (own === undefined ? undefined : own / 1000),
          },
          answer,
        );
      }
      return answer;
    };

    let attempts = 1;
    try {
      const response = await pRetry(attempt, {
        retries: maxRetries,
        // The waits are retryDecision's (Retry-After, or backoff with jitter), slept below.
        minTimeout: 0,
        maxTimeout: 0,
        factor: 1,
        onFailedAttempt: async (error) => {
          if (!(error instanceof AttemptError)) throw error;
          const decision = retryDecision(error.failure, {
            attempt: error.attemptNumber,
            maxRetries,
            idempotent,
            retryThrottled: req.retryThrottled ?? false,
            remainingMs: deadline.remainingMs(),
          });
          const facts = {
            host,
            method,
            status: error.failure.status,
            errno: error.failure.code,
            attempt: error.attemptNumber,
          };
          if (!decision.retry) {
            options.logger?.debug('http request not retried', { ...facts, reason: decision.reason });
            throw error;
          }
          options.logger?.warn('http request retried', { ...facts, waitMs: decision.waitMs });
          await sleep(decision.waitMs, undefined, { signal: deadline.signal });
          attempts++;
        },
      });
      options.logger?.debug('http request', {
        host,
        method,
        status: response.status,
        attempts,
        durationMs: Date.now() - started,
      });
      return response;
    } catch (err) {
      // An error status not retried (or retried to the end): the caller reads it.
      if (err instanceof AttemptError && err.response) return err.response;
      if (err instanceof PlatformError) throw err;
      if (err instanceof AttemptError) {
        throw new HttpRequestError(host, method, err.thrown, options.service, err.failure.code);
      }
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

  const fetchAdapter = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
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

  return { request, requestOk, fetch: fetchAdapter };
}

async function readBounded(response: Response, maxBytes: number, host: string): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new LimitExceededError(`The response from ${host} exceeds ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The system error code of what `fetch` threw: Node's "fetch failed" TypeError
 * carries it in `cause` (`ECONNREFUSED`, `ENOTFOUND`, undici's `UND_ERR_SOCKET`…).
 */
function errnoOf(err: unknown): string {
  for (let current: unknown = err, depth = 0; current && depth < 4; depth++) {
    const fields = current as { code?: unknown; cause?: unknown; name?: unknown };
    if (typeof fields.code === 'string') return fields.code;
    current = fields.cause;
  }
  const name = (err as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : 'Error';
}

function flatHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries(headers.entries());
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
