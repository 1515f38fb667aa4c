/**
 * What every loopback fake of a REST API shares (GitHub, PagerDuty, and the CRM
 * and ATS fakes): request recording with the query parsed, failures injected on
 * the next requests (an error answer, an answer after the client's timeout, a
 * connection reset after the request was handled), and page slicing.
 */
import type { ServerResponse } from 'node:http';
import { type ListeningServer, listenOnLoopback, type ReceivedRequest, sendJson } from './loopback-server';

/** A request as the fake received it, with its query. */
export interface ApiRequest extends ReceivedRequest {
  readonly query: URLSearchParams;
}

/**
 * A failure injected on matching requests: an error answer (`status`, JSON
 * `body` or one made from the request by `echo`, `headers`); `delayMs`: handled now (its effect recorded), answered
 * late; `reset`: handled, then the connection destroyed with no answer.
 */
export type InjectedFailure =
  | { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  | {
      readonly status: number;
      /** The body made from the request, as an API that echoes what it received (its Authorization header). */
      readonly echo: (request: ApiRequest) => unknown;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly delayMs: number }
  | { readonly reset: true };

/** Which requests a failure applies to. */
export interface FailureScope {
  /** Only requests with this method. */
  readonly method?: string;
  /** Only requests whose path matches. */
  readonly path?: string | RegExp;
  /** Let this many matching requests pass first (a failure after some pages). @default 0 */
  readonly after?: number;
}

/** Answers one request; returns false when no route matched (then 404). */
export type ApiRoute = (request: ApiRequest, response: ServerResponse) => boolean | Promise<boolean>;

/** A running fake. */
export interface FakeApi {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request received, in order (injected failures included). */
  readonly requests: ApiRequest[];
  /** Injects `failure` on the next `times` matching requests. */
  failNext(failure: InjectedFailure, times?: number, scope?: FailureScope): void;
  stop(): Promise<void>;
}

/**
 * Starts a fake on 127.0.0.1: `route` answers; `notFound` answers what no route matched.
 *
 * @example const api = await startFakeApi(route, (res) => sendJson(res, 404, { message: 'Not Found' }));
 */
export async function startFakeApi(
  route: ApiRoute,
  notFound: (response: ServerResponse) => void,
): Promise<FakeApi> {
  const requests: ApiRequest[] = [];
  const failures: { failure: InjectedFailure; left: number; skip: number; scope: FailureScope }[] = [];
  const matches = (scope: FailureScope, request: ApiRequest) =>
    (scope.method === undefined || scope.method === request.method) &&
    (scope.path === undefined ||
      (typeof scope.path === 'string' ? scope.path === request.path : scope.path.test(request.path)));
  const handle = async (request: ApiRequest, response: ServerResponse) => {
    if (!(await route(request, response))) notFound(response);
  };
  const server: ListeningServer = await listenOnLoopback(async (received, response) => {
    const raw = (response.req.url ?? '/').split('?')[1] ?? '';
    const request: ApiRequest = { ...received, query: new URLSearchParams(raw) };
    requests.push(request);
    const at = failures.findIndex((f) => matches(f.scope, request));
    const injected = at >= 0 ? failures[at] : undefined;
    if (injected && injected.skip > 0) {
      injected.skip--;
      return handle(request, response);
    }
    if (!injected) return handle(request, response);
    if (--injected.left <= 0) failures.splice(at, 1);
    const { failure } = injected;
    if ('delayMs' in failure) {
      const late = heldResponse(response);
      await handle(request, late.response);
      late.flushAfter(failure.delayMs);
      return;
    }
    if ('reset' in failure) {
      await handle(request, heldResponse(response).response);
      response.socket?.destroy();
      return;
    }
    const body = 'echo' in failure ? failure.echo(request) : failure.body;
    sendJson(response, failure.status, body ?? {}, { ...failure.headers });
  });
  return {
    url: server.url,
    requests,
    failNext(failure, times = 1, scope = {}) {
      failures.push({ failure, left: times, skip: scope.after ?? 0, scope });
    },
    stop: server.stop,
  };
}

/** A response whose writes are held until flushed (or dropped when the client is gone by then). */
function heldResponse(response: ServerResponse): { response: ServerResponse; flushAfter(ms: number): void } {
  const held: (() => void)[] = [];
  const proxy = new Proxy(response, {
    get(target, property, receiver) {
      if (
        property === 'writeHead' ||
        property === 'end' ||
        property === 'write' ||
        property === 'setHeader'
      ) {
        return (...args: unknown[]) => {
          held.push(() => (target[property] as (...a: unknown[]) => unknown).apply(target, args));
          return receiver;
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    response: proxy,
    flushAfter(ms) {
      setTimeout(() => {
        if (response.destroyed || response.socket?.destroyed) return;
        for (const write of held) write();
      }, ms).unref();
    },
  };
}

/** One page of `items` by `page` (1-based) and `per_page`, as GitHub and Greenhouse number pages. */
export function pageOf<T>(
  items: readonly T[],
  query: URLSearchParams,
  defaults: { perPage: number; maxPerPage: number },
): { items: T[]; page: number; perPage: number; last: number } {
  const perPage = Math.min(
    defaults.maxPerPage,
    Math.max(1, Number(query.get('per_page') ?? defaults.perPage)),
  );
  const page = Math.max(1, Number(query.get('page') ?? 1));
  const last = Math.max(1, Math.ceil(items.length / perPage));
  return { items: items.slice((page - 1) * perPage, page * perPage), page, perPage, last };
}

/**
 * An RFC 8288 `Link` header for page `page` of `last` (GitHub's `next`, `last`,
 * `first`, `prev`), or undefined for a single page.
 */
export function linkHeader(
  base: string,
  query: URLSearchParams,
  page: number,
  last: number,
): string | undefined {
  const at = (n: number) => {
    const q = new URLSearchParams(query);
    q.set('page', String(n));
    return `<${base}?${q.toString()}>`;
  };
  const links: string[] = [];
  if (page < last) links.push(`${at(page + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (page > 1) links.push(`${at(1)}; rel="first"`, `${at(page - 1)}; rel="prev"`);
  return links.length > 0 ? links.join(', ') : undefined;
}
