/**
 * Pagination strategies of REST connectors (Airbyte's declarative paginators:
 * `Link` header, cursor, offset) and one reader over them with a page and a
 * byte budget. A read that hits a rate limit (or the deadline) after some pages
 * returns the pages it has with a cursor to continue, never nothing (issue 18).
 */
import { InvalidArgsError } from '../errors';
import type { QueryValue, RestRequest, RestResponse, RestSession } from './connector';
import { RestApiError } from './rest-errors';

/**
 * One strategy: the first request (or the one a continuation cursor resumes),
 * the next from an answer, and the cursor that resumes a request not made.
 */
export interface Paginator {
  readonly kind: 'link' | 'cursor' | 'offset';
  /** The first page's request, or the page `resume` (a cursor this paginator gave) names. */
  first(request: RestRequest, resume?: string): RestRequest;
  /** The next page's request, or undefined after the last page. */
  next(request: RestRequest, response: RestResponse, recordsOnPage: number): RestRequest | undefined;
  /** A continuation cursor for `request` (not yet made): an opaque string the tool returns as is. */
  cursor(request: RestRequest): string;
  /**
   * Why the API would refuse `request` as past the end of what it pages through
   * (PagerDuty's offset + limit ≤ 10,000, HubSpot search's 10,000 results per
   * query), or undefined when it is within. @default always within
   */
  beyond?(request: RestRequest): string | undefined;
}

/**
 * Why a read stopped. `window`: the API pages no further for this query (its
 * documented maximum of records per query): the read is not complete and no
 * cursor continues it; a narrower query (a later `since`) does.
 */
export type StopReason =
  | 'end'
  | 'until'
  | 'enough'
  | 'max_pages'
  | 'max_bytes'
  | 'deadline'
  | 'throttled'
  | 'window';

/** What a read may spend. */
export interface PageBudget {
  /** Most pages requested. */
  readonly maxPages: number;
  /** Most response bytes read (bodies, UTF-8); the page that passes it is kept, no further one asked for. */
  readonly maxBytes: number;
  /** Time kept back before the deadline, ms: no page is started with less left. @default 1_500 */
  readonly reserveMs?: number;
}

/** A read's outcome. */
export interface PageRead<R> {
  readonly records: R[];
  readonly pages: number;
  readonly bytes: number;
  /** Whether the last page was read (or `until` said enough). */
  readonly complete: boolean;
  /** Resumes the read where it stopped (pass it back as `cursor`); null when complete, or stopped by `window`. */
  readonly next: string | null;
  readonly stoppedBy: StopReason;
  /** Set when stopped by a rate limit: how long to wait before resuming, ms. */
  readonly retryAfterMs?: number;
}

/** How to read pages. */
export interface PaginateOptions<R> {
  readonly paginator: Paginator;
  /** The records of one page's body (Airbyte's record selector: `body.incidents`). */
  readonly select: (body: unknown) => R[];
  readonly budget: PageBudget;
  /** A continuation cursor from an earlier read. */
  readonly resume?: string;
  /** Stop after this page when it says so (a page past the window of a list sorted by time): the read is complete. */
  readonly until?: (page: readonly R[], all: readonly R[]) => boolean;
  /** Stop after this page when enough records are read (a limit): the read is not complete, `next` resumes it. */
  readonly enough?: (all: readonly R[]) => boolean;
}

const DEFAULT_RESERVE_MS = 1_500;

/**
 * Reads pages until the end, `until`, the page or byte budget, the deadline, a
 * rate limit after the first page, or the API's window (`Paginator.beyond`),
 * whichever comes first.
 *
 * @throws the first page's error (a rate limit on the first page included: there is nothing to return).
 * @throws InvalidArgsError, before any request, when `resume` names a page past the API's window.
 * @example
 * const read = await paginate(session, { method: 'GET', path: '/incidents', query: { statuses: ['triggered'] } },
 *   { paginator: offsetPaginator({ pageSize: 100, hasMore: (b) => (b as { more?: boolean }).more === true }),
 *     select: (b) => (b as { incidents: Incident[] }).incidents, budget: { maxPages: 5, maxBytes: 1_000_000 } });
 */
export async function paginate<R>(
  session: Pick<RestSession<unknown>, 'request'>,
  request: RestRequest,
  options: PaginateOptions<R>,
  deadline?: { remainingMs(): number },
): Promise<PageRead<R>> {
  const { paginator, budget } = options;
  const reserveMs = budget.reserveMs ?? DEFAULT_RESERVE_MS;
  const records: R[] = [];
  let pages = 0;
  let bytes = 0;
  let current: RestRequest | undefined = paginator.first(request, options.resume);
  const stop = (stoppedBy: StopReason, extra: { retryAfterMs?: number } = {}): PageRead<R> => ({
    records,
    pages,
    bytes,
    complete: current === undefined,
    next: current === undefined ? null : paginator.cursor(current),
    stoppedBy,
    ...extra,
  });
  while (current) {
    const beyond = paginator.beyond?.(current);
    if (beyond !== undefined) {
      if (pages === 0) throw new InvalidArgsError(`cursor is past what the API pages through: ${beyond}`);
      return { ...stop('window'), complete: false, next: null };
    }
    if (pages >= budget.maxPages) return stop('max_pages');
    if (bytes >= budget.maxBytes) return stop('max_bytes');
    if (pages > 0 && deadline && deadline.remainingMs() < reserveMs) return stop('deadline');
    let response: RestResponse;
    try {
      response = await session.request(current);
    } catch (err) {
      if (pages > 0 && err instanceof RestApiError && err.code === 'throttled') {
        return stop('throttled', err.retryAfterMs === undefined ? {} : { retryAfterMs: err.retryAfterMs });
      }
      if (pages > 0 && isThrottle(err)) return stop('throttled', retryAfterOf(err));
      throw err;
    }
    pages++;
    bytes += response.bytes;
    const page = options.select(response.body);
    records.push(...page);
    current = paginator.next(current, response, page.length);
    if (current && options.until?.(page, records)) {
      current = undefined;
      return { ...stop('until'), complete: true, next: null };
    }
    if (current && options.enough?.(records)) return stop('enough');
  }
  return stop('end');
}

/**
 * What a tool reports of a read, in its output's snake_case: `complete`,
 * `next_cursor`, `stopped_by`, and `retry_after_ms` when a rate limit stopped it.
 *
 * @example readOutcome(read) // { complete: false, next_cursor: '/repositories/1/pulls?page=4', stopped_by: 'throttled', retry_after_ms: 60000 }
 */
export function readOutcome(read: PageRead<unknown>): {
  complete: boolean;
  next_cursor: string | null;
  stopped_by: StopReason;
  retry_after_ms?: number;
} {
  return {
    complete: read.complete,
    next_cursor: read.next,
    stopped_by: read.stoppedBy,
    ...(read.retryAfterMs === undefined ? {} : { retry_after_ms: read.retryAfterMs }),
  };
}

/** Whether a read was cut short by a budget, the deadline, a rate limit or the API's window (not by its own end or limit). */
export function cutShort(read: PageRead<unknown>): boolean {
  return !['end', 'until', 'enough'].includes(read.stoppedBy);
}

/** The local token bucket's refusal (`ThrottledError`) and any other `throttled` platform error. */
function isThrottle(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'throttled';
}

function retryAfterOf(err: unknown): { retryAfterMs?: number } {
  const seconds = (err as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' ? { retryAfterMs: seconds * 1000 } : {};
}

function withQuery(request: RestRequest, query: Record<string, QueryValue>): RestRequest {
  return { ...request, query: { ...request.query, ...query } };
}

/**
 * RFC 8288 `Link` header pagination (GitHub, Greenhouse Harvest): the next page
 * is the `rel="next"` URL. Its cursor is that URL's path and query from the
 * origin; a resumed cursor must stay on the API's origin and name the same
 * collection as the first request (the path's last segment: GitHub links to
 * `/repositories/<id>/pulls` for `/repos/<o>/<r>/pulls`), so a cursor cannot
 * point the credential at another host or another kind of endpoint.
 *
 * @param pageSizeParam - the page size parameter (`per_page`). @param pageSize - records per page.
 */
export function linkHeaderPaginator(options: {
  readonly pageSizeParam: string;
  readonly pageSize: number;
}): Paginator {
  return {
    kind: 'link',
    first(request, resume) {
      const sized = withQuery(request, { [options.pageSizeParam]: options.pageSize });
      if (resume === undefined) return sized;
      const resumed = new URL(resume, 'http://cursor.invalid');
      const last = (path: string) => path.split('?')[0]?.split('/').filter(Boolean).at(-1);
      if (
        !resume.startsWith('/') ||
        resumed.origin !== 'http://cursor.invalid' ||
        last(resumed.pathname) !== last(request.path)
      ) {
        throw invalidCursor(`a page of ${request.path.split('?')[0]}`);
      }
      return {
        ...request,
        path: resumed.pathname,
        query: Object.fromEntries(resumed.searchParams),
        fromOrigin: true,
      };
    },
    next(request, response) {
      const next = nextLink(response.headers.link);
      return next === undefined ? undefined : { ...request, path: next, query: {}, fromOrigin: false };
    },
    cursor(request) {
      if (!request.fromOrigin && /^https?:\/\//i.test(request.path)) {
        const url = new URL(request.path);
        return `${url.pathname}${url.search}`;
      }
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(request.query ?? {})) {
        if (value === undefined) continue;
        if (Array.isArray(value)) for (const item of value) query.append(name, String(item));
        else query.set(name, String(value));
      }
      const search = query.toString();
      return `${request.path}${search ? `?${search}` : ''}`;
    },
  };
}

/**
 * The `rel="next"` target of a `Link` header (RFC 8288), or undefined.
 *
 * @example nextLink('<https://api.github.com/repositories/1/pulls?page=2>; rel="next", <…?page=5>; rel="last"')
 * // 'https://api.github.com/repositories/1/pulls?page=2'
 */
export function nextLink(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,\s*(?=<)/)) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (match && /(?:^|;)\s*rel\s*=\s*"?(?:[^";]*\s)?next(?:\s[^";]*)?"?\s*(?:;|$)/i.test(match[2] ?? '')) {
      return match[1];
    }
  }
  return undefined;
}

/**
 * Cursor pagination (HubSpot `paging.next.after`, Lever `next`): the next
 * cursor is read from the body and sent as `cursorParam`, in the query or in a
 * JSON body (a search POST). Its cursor is the API's own token.
 */
export function cursorPaginator(options: {
  readonly cursorParam: string;
  /** The next cursor in a page's body; undefined or empty at the end. */
  readonly nextCursor: (body: unknown) => string | undefined;
  readonly placement?: 'query' | 'body';
  readonly pageSizeParam?: string;
  readonly pageSize?: number;
  /**
   * For an API whose cursor is a record count (HubSpot search's `after`): the most
   * records one query pages through (10,000, "CRM search" → "Limitations"). A page
   * that would pass it asks for fewer records; a cursor at it is past the window
   * (`beyond`). Needs `pageSizeParam` and `pageSize`. @default none
   */
  readonly maxEnd?: number;
}): Paginator {
  const placement = options.placement ?? 'query';
  const set = (request: RestRequest, values: Record<string, string | number>): RestRequest =>
    placement === 'query'
      ? withQuery(request, values)
      : { ...request, body: { ...(request.body as Record<string, unknown> | undefined), ...values } };
  const cursorOf = (request: RestRequest): string | undefined => {
    const holder =
      placement === 'query' ? request.query : (request.body as Record<string, unknown> | undefined);
    const value = holder?.[options.cursorParam];
    return value === undefined ? undefined : String(value);
  };
  const { maxEnd, pageSize, pageSizeParam } = options;
  /** The request at `cursor`, asking for no more records than the window has left. */
  const at = (request: RestRequest, cursor: string | undefined): RestRequest => {
    const count = cursor === undefined ? 0 : Number(cursor);
    const size =
      maxEnd !== undefined && pageSize && Number.isSafeInteger(count) && count < maxEnd
        ? Math.min(pageSize, maxEnd - count)
        : pageSize;
    const sized = pageSizeParam && size ? set(request, { [pageSizeParam]: size }) : request;
    return cursor === undefined ? sized : set(sized, { [options.cursorParam]: cursor });
  };
  return {
    kind: 'cursor',
    first: (request, resume) => at(request, resume),
    next(request, response) {
      const cursor = options.nextCursor(response.body);
      return cursor ? at(request, cursor) : undefined;
    },
    cursor: (request) => cursorOf(request) ?? '',
    beyond(request) {
      const cursor = cursorOf(request);
      if (maxEnd === undefined || cursor === undefined || !/^\d+$/.test(cursor)) return undefined;
      return Number(cursor) >= maxEnd
        ? `${options.cursorParam} ${cursor}, and the API returns at most ${maxEnd} records per query; narrow the query`
        : undefined;
    },
  };
}

/**
 * Limit/offset pagination (PagerDuty `more`, Attio): the offset grows by the
 * records of each page; the end is `hasMore` false, or a short page. Its cursor
 * is the offset in decimal.
 */
export function offsetPaginator(options: {
  readonly pageSize: number;
  readonly limitParam?: string;
  readonly offsetParam?: string;
  /** Whether the API says more follow (PagerDuty `more`). @default a full page means more */
  readonly hasMore?: (body: unknown, recordsOnPage: number) => boolean;
  /**
   * The API's bound on offset + limit (PagerDuty "Pagination": 10,000): a page
   * that would pass it asks for fewer records, and a page at it is past the
   * window (`beyond`). @default none
   */
  readonly maxEnd?: number;
}): Paginator {
  const limitParam = options.limitParam ?? 'limit';
  const offsetParam = options.offsetParam ?? 'offset';
  const { maxEnd } = options;
  const offsetOf = (request: RestRequest) => Number(request.query?.[offsetParam] ?? 0);
  const at = (request: RestRequest, offset: number) =>
    withQuery(request, {
      [limitParam]: maxEnd === undefined ? options.pageSize : Math.min(options.pageSize, maxEnd - offset),
      [offsetParam]: offset,
    });
  return {
    kind: 'offset',
    first(request, resume) {
      if (resume !== undefined && !/^\d{1,9}$/.test(resume)) throw invalidCursor('an offset (digits)');
      return at(request, Number(resume ?? 0));
    },
    next(request, response, recordsOnPage) {
      const more = options.hasMore
        ? options.hasMore(response.body, recordsOnPage)
        : recordsOnPage >= options.pageSize;
      if (!more || recordsOnPage === 0) return undefined;
      return at(request, offsetOf(request) + recordsOnPage);
    },
    cursor: (request) => String(offsetOf(request)),
    beyond: (request) =>
      maxEnd !== undefined && offsetOf(request) >= maxEnd
        ? `offset ${offsetOf(request)}, and the API reads at most ${maxEnd} records per query (offset + limit); narrow the query`
        : undefined,
  };
}

function invalidCursor(expected: string): InvalidArgsError {
  return new InvalidArgsError(`cursor is not one this tool returned: expected ${expected}`);
}
