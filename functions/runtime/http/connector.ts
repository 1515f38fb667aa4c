/**
 * REST connectors declared over the shared plumbing (docs/rest-connectors.md).
 *
 * A connector folder declares, in the spirit of Airbyte's declarative
 * connectors, its secret (validated payload), its authenticator, its per-host
 * token bucket from the API's documented limits, its quota headers and its error
 * table; {@link defineRestConnector} composes them, as Octokit composes its
 * plugins over one core, into a {@link RestSession} per call that:
 *
 * - injects the credential (and records it, derived ones included, as a secret
 *   of the call, so logs, errors and results mask it by exact match);
 * - rate limits per tenant and host, retries per the platform's policy
 *   (`retryDecision`: `Retry-After`, backoff, only what is safe to repeat);
 * - reads the quota headers and waits for (or refuses before) an exhausted quota
 *   instead of sending a request the API will refuse;
 * - waits out a rate limit the API signals without a 429 (GitHub's secondary
 *   limit) when the wait fits the deadline;
 * - after a 401, drops derived credentials, reads the secret again bypassing
 *   every cache and repeats the request once;
 * - maps every error answer to the platform's codes (`mapRestError`).
 *
 * Pagination (`pagination.ts`) and exactly-once writes (`write-once.ts`) build on it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolContext } from '../context';
import { PlatformError } from '../errors';
import { currentSecretValues } from '../secret-values';
import { parseSecretPayload, type SecretPayloadSpec } from '../secrets/secret-payload';
import type { AuthCall, Authenticator } from './auth';
import { createHttpClient, type HttpClient, type HttpResponse } from './client';
import type { RateLimit } from './rate-limit';
import type { QuotaReader, QuotaState } from './rate-limit-headers';
import { type ErrorTable, mapRestError, parseJsonBody, RestApiError, throttledAnswer } from './rest-errors';
import { MIN_ATTEMPT_MS } from './retry-policy';
import { pathBelow, publishRestRequest, type RestMethod, type ScopeTable, scopesNeeded } from './scopes';

/** A connector's declaration: everything specific to its API that the shared session needs. */
export interface RestConnectorDeclaration<S> {
  /** Reported as errors' `service` and in logs (`github`). */
  readonly service: string;
  /** For messages (`GitHub`). */
  readonly label: string;
  /** The secret every tool of the connector reads, and its accepted payloads. */
  readonly secret: SecretPayloadSpec<S>;
  /**
   * The API's base URL without a trailing slash, read per call (an env override
   * such as `GITHUB_API_URL` points a loaded tool at a test server).
   */
  readonly baseUrl: (secret: S) => string;
  /** How the secret becomes headers, possibly chosen by the secret's form (token or app). */
  readonly authenticator: (secret: S) => Authenticator<S>;
  /** Headers every request carries (`accept`, an API version header, `user-agent`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-tenant, per-host token bucket, from the API's documented limits (cite the page). */
  readonly rateLimit: RateLimit;
  /** Reads the API's quota headers. @default none */
  readonly quota?: QuotaReader;
  /** The API's error answers. @default status only */
  readonly errors?: ErrorTable;
  /** Timeout of one attempt, ms. @default the HTTP client's */
  readonly attemptTimeoutMs?: number;
  /**
   * A 429 means the API did not act on the request, so a write may be repeated
   * after `Retry-After` (true of GitHub, PagerDuty, HubSpot). @default true
   */
  readonly throttledNotProcessed?: boolean;
  /**
   * The endpoints the connector's tools call and the token scopes each needs,
   * from the vendor's reference (functions/runtime/http/scopes.ts). Names the
   * scope a 403 lacks when the API does not say it; a tool's requests are checked
   * against its spec's `tokenScopes` with it. @default none
   */
  readonly scopes?: ScopeTable;
}

/** Query values: arrays repeat the parameter (`statuses[]=triggered&statuses[]=acknowledged` as given). */
export type QueryValue = string | number | boolean | undefined | readonly (string | number)[];

/** One request of a session. */
export interface RestRequest {
  readonly method: RestMethod;
  /** Path below the base URL (`/repos/o/r/pulls`), or an absolute URL on the base URL's origin (a `Link`). */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** @default true for GET, PUT, DELETE; false for POST, PATCH */
  readonly idempotent?: boolean;
  /** `path` is from the origin (a resumed `Link` target), not below the base URL's path. @default false */
  readonly fromOrigin?: boolean;
  /** The scope or permission this request needs (`incidents.write`), named in a 403 the API does not explain. */
  readonly scope?: string;
}

/** A 2xx answer. */
export interface RestResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The body parsed as JSON; undefined when empty or not JSON. */
  readonly body: unknown;
  /** Body size, bytes (UTF-8). */
  readonly bytes: number;
}

/** Most waits on one request for a throttle the API signals without a 429 (GitHub's secondary limit). */
export const MAX_THROTTLE_WAITS = 2;

/** Quota states kept per container (tenants × hosts), least recently used first out. */
const MAX_QUOTA_ENTRIES = 1_000;

/** The session of one tool call with one connector. */
export interface RestSession<S> {
  /** The connector's declaration. */
  readonly connector: RestConnectorDeclaration<S>;
  /** The parsed secret (read on first use). @throws SecretInvalidError | SecretNotFoundError */
  secret(): Promise<S>;
  /**
   * Sends one request and returns its 2xx answer.
   *
   * @throws RestApiError for an error answer (see `mapRestError`), `throttled` with
   *   `retryAfterMs` when the quota is spent and the wait does not fit the deadline.
   * @throws HttpRequestError when no answer came (`reached` says whether it may have been sent).
   */
  request(request: RestRequest): Promise<RestResponse>;
  /** As {@link request}, returning the JSON body. @throws RestApiError (`upstream_error`) when a 2xx body is not JSON. */
  json<T = unknown>(request: RestRequest): Promise<T>;
  /** Requests sent by this session so far (each retry the HTTP client makes counts once per request). */
  readonly requests: number;
}

/** A declared connector: open one {@link RestSession} per call. */
export interface RestConnector<S> {
  readonly declaration: RestConnectorDeclaration<S>;
  /** A session for one call; `options` override the declaration for this call (a write's shorter attempts). */
  session(ctx: ToolContext, options?: SessionOptions): RestSession<S>;
}

/** Per-call settings of a session. */
export interface SessionOptions {
  /** Timeout of one attempt, ms. @default the declaration's */
  readonly attemptTimeoutMs?: number;
}

/**
 * One attempt's timeout for a write with `remainingMs` left: a third of it (at
 * least 1 s, at most 10 s), so that after an answer that never came there is
 * time to look the write up by its marker instead of sending it again.
 *
 * @example writeAttemptTimeoutMs(21_000) // 7_000
 */
export function writeAttemptTimeoutMs(remainingMs: number): number {
  return Math.min(10_000, Math.max(1_000, Math.floor(remainingMs / 3)));
}

/**
 * Declares a REST connector.
 *
 * @example
 * export const pagerduty = defineRestConnector({
 *   service: 'pagerduty', label: 'PagerDuty', secret: pagerdutySecret,
 *   baseUrl: () => process.env.PAGERDUTY_API_URL ?? 'https://api.pagerduty.com',
 *   authenticator: (s) => authorizationAuth((s) => `Token token=${s.token}`),
 *   rateLimit: { burst: 10, perSecond: 15 }, errors: pagerdutyErrors,
 * });
 * const incidents = await pagerduty.session(ctx).json({ method: 'GET', path: '/incidents' });
 */
export function defineRestConnector<S>(declaration: RestConnectorDeclaration<S>): RestConnector<S> {
  return { declaration, session: (ctx, options = {}) => new Session(declaration, ctx, options) };
}

let quotas: import('lru-cache').LRUCache<string, QuotaState> | undefined;

function quotaCache() {
  if (!quotas) {
    const { boundedCache } = require('../bounded-cache') as typeof import('../bounded-cache');
    quotas = boundedCache<string, QuotaState>({ max: MAX_QUOTA_ENTRIES, ttlMs: 60 * 60 * 1000 });
  }
  return quotas;
}

/** Forgets every quota state (tests). */
export function clearQuotaStates(): void {
  quotas?.clear();
}

class Session<S> implements RestSession<S> {
  readonly #http: HttpClient;
  #secret: S | undefined;
  #renewed = false;
  requests = 0;

  constructor(
    readonly connector: RestConnectorDeclaration<S>,
    private readonly ctx: ToolContext,
    options: SessionOptions,
  ) {
    const attemptTimeoutMs = options.attemptTimeoutMs ?? connector.attemptTimeoutMs;
    this.#http = createHttpClient({
      deadline: ctx.deadline,
      logger: ctx.logger,
      partition: ctx.tenant,
      service: connector.service,
      rateLimit: connector.rateLimit,
      ...(attemptTimeoutMs ? { attemptTimeoutMs } : {}),
    });
  }

  async secret(): Promise<S> {
    this.#secret ??= await this.#read(false);
    return this.#secret;
  }

  async #read(fresh: boolean): Promise<S> {
    const raw = await this.ctx.secret(this.connector.secret.name, { fresh });
    return parseSecretPayload(raw, this.connector.secret);
  }

  #call(secret: S): AuthCall {
    return {
      tenant: this.ctx.tenant,
      baseUrl: this.connector.baseUrl(secret),
      http: this.#http,
      deadline: this.ctx.deadline,
    };
  }

  async #authorize(secret: S): Promise<Readonly<Record<string, string>>> {
    const headers = await this.connector.authenticator(secret).authorize(secret, this.#call(secret));
    // Derived credentials (an exchanged token) are secrets of the call like the payload.
    const values = currentSecretValues();
    for (const value of Object.values(headers)) values?.add([value, value.split(' ').at(-1) ?? value]);
    return headers;
  }

  async json<T>(request: RestRequest): Promise<T> {
    const response = await this.request(request);
    if (response.body === undefined && response.status !== 204) {
      throw new RestApiError(
        'upstream_error',
        `${this.connector.label} answered HTTP ${response.status} with a body that is not JSON`,
        response.status,
        { service: this.connector.service, retryable: true, details: { httpStatusCode: response.status } },
      );
    }
    return response.body as T;
  }

  async request(request: RestRequest): Promise<RestResponse> {
    let secret: S = await this.secret();
    let headers = await this.#authorize(secret);
    const { errors = {}, label, service } = this.connector;
    const idempotent = request.idempotent ?? !['POST', 'PATCH'].includes(request.method);
    for (let waits = 0; ; ) {
      const url = this.#url(secret, request);
      publishRestRequest(() => ({
        tool: this.ctx.tool,
        service,
        method: request.method,
        path: pathBelow(this.connector.baseUrl(secret), url),
        scopes: this.connector.scopes,
      }));
      await this.#respectQuota(url.host);
      const response = await this.#send(url, request, headers, idempotent);
      const now = Date.now();
      const quota = this.connector.quota?.(response, now);
      if (quota) quotaCache().set(this.#quotaKey(url.host), quota);
      if (response.status >= 200 && response.status < 300) return rest(response);
      const answer = { response, body: parseJsonBody(response.text) };
      if (response.status === 401 && !this.#renewed) {
        this.#renewed = true;
        const renewed = await this.#renew(secret, headers);
        if (renewed) {
          [secret, headers] = renewed;
          continue;
        }
      }
      // A 429 was already retried by the HTTP client as far as the deadline allows.
      const wait = response.status === 429 ? undefined : throttledAnswer(answer, errors, now);
      const repeatable = idempotent || this.connector.throttledNotProcessed !== false;
      if (
        wait !== undefined &&
        repeatable &&
        waits < MAX_THROTTLE_WAITS &&
        wait + MIN_ATTEMPT_MS <= this.ctx.deadline.remainingMs()
      ) {
        waits++;
        this.ctx.logger.warn('rate limited; waiting', { service, status: response.status, waitMs: wait });
        await sleep(wait, undefined, { signal: this.ctx.deadline.signal });
        continue;
      }
      const scope =
        request.scope ??
        scopesNeeded(this.connector.scopes, request.method, pathBelow(this.connector.baseUrl(secret), url));
      throw mapRestError(answer, service, label, errors, now, scope);
    }
  }

  /** After a 401: drop derived credentials, re-read the secret; the new headers, or undefined when nothing changed. */
  async #renew(
    secret: S,
    before: Readonly<Record<string, string>>,
  ): Promise<[S, Readonly<Record<string, string>>] | undefined> {
    this.connector.authenticator(secret).invalidate?.(secret, this.#call(secret));
    const fresh = await this.#read(true);
    const headers = await this.#authorize(fresh);
    if (JSON.stringify(headers) === JSON.stringify(before)) return undefined;
    this.ctx.logger.info('credential renewed after HTTP 401', { service: this.connector.service });
    this.#secret = fresh as S;
    return [fresh, headers];
  }

  #quotaKey(host: string): string {
    return `${this.ctx.tenant}\u0000${host}`;
  }

  /** An exhausted quota: wait for its reset when that fits the deadline, else refuse without sending. */
  async #respectQuota(host: string): Promise<void> {
    const state = quotaCache().get(this.#quotaKey(host));
    if (!state || state.remaining > 0) return;
    const waitMs = state.resetAtMs - Date.now();
    if (waitMs <= 0) return;
    if (waitMs + MIN_ATTEMPT_MS > this.ctx.deadline.remainingMs()) {
      throw new RestApiError(
        'throttled',
        `${this.connector.label} rate limit is spent for this tenant until ${new Date(state.resetAtMs).toISOString()}; retry after ${waitMs} ms`,
        429,
        {
          service: this.connector.service,
          retryable: true,
          details: { retryAfterMs: waitMs, retryAfterSeconds: Math.ceil(waitMs / 1000), quota: 'spent' },
        },
      );
    }
    this.ctx.logger.warn('quota spent; waiting for its reset', { service: this.connector.service, waitMs });
    await sleep(waitMs, undefined, { signal: this.ctx.deadline.signal });
  }

  async #send(
    url: URL,
    request: RestRequest,
    auth: Readonly<Record<string, string>>,
    idempotent: boolean,
  ): Promise<HttpResponse> {
    this.requests++;
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    return this.#http.request({
      method: request.method,
      url,
      headers: {
        ...this.connector.headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
        ...auth,
      },
      ...(body === undefined ? {} : { body }),
      idempotent,
      retryThrottled: this.connector.throttledNotProcessed !== false,
      // A 429 without Retry-After waits what the API says elsewhere (its reset), not the backoff.
      throttleWaitMs: (response) =>
        this.connector.errors?.throttle?.({ response, body: parseJsonBody(response.text) }, Date.now())
          ?.retryAfterMs,
    });
  }

  /**
   * The request's URL: a path below the base URL, or an absolute URL on its
   * origin (a `Link` header's); any other origin is refused (a link must never
   * carry the credential elsewhere).
   */
  #url(secret: S, request: RestRequest): URL {
    const base = new URL(this.connector.baseUrl(secret));
    const url = /^https?:\/\//i.test(request.path)
      ? new URL(request.path)
      : request.fromOrigin
        ? new URL(request.path, base.origin)
        : new URL(`${base.pathname.replace(/\/$/, '')}${request.path}`, base.origin);
    if (url.origin !== base.origin) {
      throw new PlatformError(
        'upstream_error',
        `${this.connector.label} pointed to another origin (${url.host}); the request was not sent`,
        { service: this.connector.service },
      );
    }
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
      else url.searchParams.set(name, String(value));
    }
    return url;
  }
}

function rest(response: HttpResponse): RestResponse {
  return {
    status: response.status,
    headers: response.headers,
    text: response.text,
    body: parseJsonBody(response.text),
    bytes: Buffer.byteLength(response.text),
  };
}
