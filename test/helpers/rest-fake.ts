/**
 * The core of the loopback fakes of REST APIs (HubSpot, Attio, Greenhouse,
 * Lever): routes by method and path pattern, an auth check per request, every
 * request kept for assertions, and injected behaviours for the next request(s):
 * an error answer (status, body, headers), a late answer (handled now, answered
 * after the client gave up) and a connection reset after the request was handled.
 */
import type { ServerResponse } from 'node:http';
import { listenOnLoopback, type ReceivedRequest, sendJson } from './loopback-server';
import { discarded, lateResponse } from './slack-server';

/** A request as a route sees it. */
export interface FakeRequest extends ReceivedRequest {
  /** The query parameters. */
  readonly query: URLSearchParams;
  /** The route pattern's capture groups. */
  readonly params: readonly string[];
  /** The body parsed as JSON (undefined when empty or not JSON). */
  readonly json: unknown;
}

/** One route: `method` and a `path` pattern (anchored), its handler. */
export interface FakeRoute {
  readonly method: string;
  readonly path: RegExp;
  readonly handle: (request: FakeRequest, response: ServerResponse) => void;
}

/** An error answer. */
export interface FakeErrorAnswer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * An error answer whose body is made from the request, as an API that echoes what
 * it received (the Authorization header included) in its error message.
 */
export interface FakeEchoAnswer {
  readonly status: number;
  readonly echo: (request: FakeRequest) => unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An injected behaviour: an error answer (fixed or echoing the request), a late answer, or a reset after handling. */
export type FakeFailure =
  | FakeErrorAnswer
  | FakeEchoAnswer
  | { readonly delayMs: number }
  | { readonly reset: true };

/** Which requests an injected behaviour applies to. @default every request */
export interface FakeScope {
  readonly method?: string;
  /** Matched against the path (without query). */
  readonly path?: RegExp;
}

/** A running fake. */
export interface RestFake {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request received, in order (refused ones too). */
  readonly requests: FakeRequest[];
  /** Applies `failure` to the next `times` requests in `scope`. */
  failNext(failure: FakeFailure, times?: number, scope?: FakeScope): void;
  /** Drops injected behaviours not yet used. */
  clearFailures(): void;
  stop(): Promise<void>;
}

/** What a fake is made of. */
export interface RestFakeOptions {
  readonly routes: readonly FakeRoute[];
  /** The answer refusing a request (401, 403), or undefined to let it through. */
  readonly authorize: (request: FakeRequest) => FakeErrorAnswer | undefined;
  /** The API's answer to an unknown path. */
  readonly notFound: (request: FakeRequest) => FakeErrorAnswer;
  /** Headers every routed answer carries (rate-limit headers), computed per request. */
  readonly headers?: (request: FakeRequest) => Record<string, string>;
}

/** Starts a fake on 127.0.0.1. */
export async function startRestFake(options: RestFakeOptions): Promise<RestFake> {
  const requests: FakeRequest[] = [];
  const failures: { failure: FakeFailure; left: number; scope: FakeScope }[] = [];

  const route = (request: FakeRequest, response: ServerResponse) => {
    for (const [name, value] of Object.entries(options.headers?.(request) ?? {})) {
      response.setHeader(name, value);
    }
    const refused = options.authorize(request);
    if (refused) return sendAnswer(response, refused);
    for (const candidate of options.routes) {
      if (candidate.method !== request.method) continue;
      const match = candidate.path.exec(request.path);
      if (!match) continue;
      return candidate.handle({ ...request, params: match.slice(1) }, response);
    }
    sendAnswer(response, options.notFound(request));
  };

  const server = await listenOnLoopback((received, response) => {
    const request: FakeRequest = {
      ...received,
      query: new URLSearchParams(received.search),
      params: [],
      json: parseJson(received.body),
    };
    requests.push(request);
    const at = failures.findIndex(
      ({ scope }) =>
        (scope.method === undefined || scope.method === request.method) &&
        (scope.path === undefined || scope.path.test(request.path)),
    );
    const injected = at >= 0 ? failures[at] : undefined;
    if (!injected) return route(request, response);
    if (--injected.left <= 0) failures.splice(at, 1);
    const failure = injected.failure;
    if ('delayMs' in failure) {
      const late = lateResponse(response);
      route(request, late.response);
      return late.flushAfter(failure.delayMs);
    }
    if ('reset' in failure) {
      route(request, discarded(response));
      response.socket?.destroy();
      return;
    }
    sendAnswer(
      response,
      'echo' in failure
        ? { status: failure.status, body: failure.echo(request), headers: failure.headers ?? {} }
        : failure,
    );
  });

  return {
    url: server.url,
    requests,
    failNext(failure, times = 1, scope = {}) {
      failures.push({ failure, left: times, scope });
    },
    clearFailures() {
      failures.length = 0;
    },
    stop: server.stop,
  };
}

/** Writes an error answer (JSON unless the body is a string). */
export function sendAnswer(response: ServerResponse, answer: FakeErrorAnswer): void {
  if (typeof answer.body === 'string') {
    response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
    response.end(answer.body);
    return;
  }
  sendJson(response, answer.status, answer.body ?? {}, { ...answer.headers });
}

/** The credential of an `Authorization: Basic` header (RFC 7617): the user part, password ignored. */
export function basicUser(request: ReceivedRequest): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/.exec(String(request.headers.authorization ?? ''));
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(0, colon);
}

/** The token of an `Authorization: Bearer` header. */
export function bearer(request: ReceivedRequest): string | undefined {
  return /^Bearer\s+(\S+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A deterministic ISO time `minutes` after 2026-03-01T00:00:00Z. */
export function isoAt(minutes: number): string {
  return new Date(Date.parse('2026-03-01T00:00:00Z') + minutes * 60_000).toISOString();
}
