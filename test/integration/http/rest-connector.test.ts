/**
 * The REST plumbing of functions/runtime/http/ over a loopback API whose answers
 * each test scripts: auth injection and masking, the one renewal after a 401,
 * the error mapping, 429 and a throttle without 429, spent quotas, the three
 * pagination strategies with their budgets, a rate limit after some pages, and
 * exactly-once writes through a lost answer and a reset connection.
 */
import type { ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { bearerAuth } from '../../../functions/runtime/http/auth';
import { defineRestConnector, type RestSession } from '../../../functions/runtime/http/connector';
import {
  cursorPaginator,
  linkHeaderPaginator,
  nextLink,
  offsetPaginator,
  paginate,
} from '../../../functions/runtime/http/pagination';
import { quotaHeaders } from '../../../functions/runtime/http/rate-limit-headers';
import { writeMarker, writeOnce } from '../../../functions/runtime/http/write-once';
import { InMemoryIdempotencyStore } from '../../../functions/runtime/idempotency-layers';
import { defineTool, defineToolSpec, type Tool } from '../../../functions/runtime/spec';
import {
  type ListeningServer,
  listenOnLoopback,
  type ReceivedRequest,
  sendJson,
} from '../../helpers/loopback-server';
import { callRestTool, restSecrets, useQuietRestCalls } from '../../helpers/rest-tool';

const TOKEN = 'exmpl_0123456789abcdefghijklmnopqrstuv';
const ROTATED = 'exmpl_rotated9876543210zyxwvutsrqponm';

type Handler = (request: ReceivedRequest & { query: URLSearchParams }, response: ServerResponse) => void;

let server: ListeningServer;
let handler: Handler;
const received: (ReceivedRequest & { query: URLSearchParams })[] = [];

beforeAll(async () => {
  server = await listenOnLoopback((request, response) => {
    const raw = (response.req.url ?? '/').split('?')[1] ?? '';
    const withQuery = { ...request, query: new URLSearchParams(raw) };
    received.push(withQuery);
    handler(withQuery, response);
  });
  process.env.EXAMPLE_API_URL = `${server.url}/v1`;
});
afterAll(async () => {
  delete process.env.EXAMPLE_API_URL;
  await server.stop();
});
const quiet = useQuietRestCalls();
beforeEach(() => {
  received.length = 0;
});

const example = defineRestConnector({
  service: 'example',
  label: 'Example',
  secret: {
    name: 'example_default',
    label: 'Example',
    service: 'example',
    schema: z.object({ token: z.string().check(z.minLength(8)) }),
    accepted: '{ "token": "exmpl_…" }',
    example: { token: 'exmpl_0123456789' },
  },
  baseUrl: () => process.env.EXAMPLE_API_URL as string,
  authenticator: () => bearerAuth((s: { token: string }) => s.token),
  headers: { accept: 'application/json', 'x-api-version': '2024-01-01' },
  rateLimit: { burst: 50, perSecond: 50 },
  quota: quotaHeaders({
    remaining: 'x-ratelimit-remaining',
    reset: 'x-ratelimit-reset',
    resetUnit: 'delta_seconds',
  }),
  errors: {
    message: ({ body }) => (body as { message?: string } | undefined)?.message,
    fieldMessages: ({ body }) =>
      ((body as { errors?: { field: string; code: string }[] } | undefined)?.errors ?? []).map(
        (e) => `${e.field}: ${e.code}`,
      ),
    missingScope: ({ response }) => response.headers['x-needed-scope'],
    throttle: ({ body }, _now) =>
      /secondary rate limit/i.test((body as { message?: string } | undefined)?.message ?? '')
        ? { retryAfterMs: 60_000 }
        : undefined,
  },
});

type Run = (session: RestSession<{ token: string }>) => Promise<unknown>;

function specFor(sideEffects: 'none' | 'write') {
  return defineToolSpec({
    name: 'example_tool',
    description: 'test',
    inputSchema: z.strictObject({}),
    tags: [],
    requiresSecrets: ['example_default'],
    sideEffects,
    iam: [],
  });
}

/** A read tool running `run` with a session of the example connector. */
function tool(run: Run): Tool {
  return defineTool(specFor('none'), async (ctx) => ({
    value: await run(example.session(ctx)),
  })) as unknown as Tool;
}

const items = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: from + i }));
const authorized = (request: ReceivedRequest, token = TOKEN) =>
  request.headers.authorization === `Bearer ${token}`;

describe('requests', () => {
  it('sends the credential, the declared headers and JSON; returns the parsed body', async () => {
    handler = (request, response) =>
      authorized(request)
        ? sendJson(response, 200, { echo: JSON.parse(request.body) })
        : sendJson(response, 401, {});
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(
      tool((s) =>
        s.json({ method: 'POST', path: '/things', body: { name: 'a' }, query: { tags: ['x', 'y'] } }),
      ),
      {},
      secrets,
    );
    expect(result).toMatchObject({ ok: true, value: { echo: { name: 'a' } } });
    expect(received[0]).toMatchObject({ method: 'POST', path: '/v1/things' });
    expect(received[0]?.headers['x-api-version']).toBe('2024-01-01');
    expect(received[0]?.query.getAll('tags')).toEqual(['x', 'y']);
  });

  it('refuses a malformed secret naming the field, never its value, and sends nothing', async () => {
    const secrets = restSecrets({ example_default: { token: 'short' } });
    const result = await callRestTool(
      tool((s) => s.json({ method: 'GET', path: '/x' })),
      {},
      secrets,
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'secret_invalid', service: 'example' } });
    expect(!result.ok && result.error.message).toMatch(
      /invalid in: token \(Too small: expected string to have >=8 characters\)\. Accepted: \{ "token"/,
    );
    expect(JSON.stringify(result)).not.toContain('short');
    expect(received).toHaveLength(0);
  });

  it('masks the credential wherever the API echoes it', async () => {
    handler = (_request, response) =>
      sendJson(response, 422, { message: `token ${TOKEN} is not allowed here` });
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(
      tool((s) => s.json({ method: 'GET', path: '/x' })),
      {},
      secrets,
    );
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(quiet.logs()).not.toContain(TOKEN);
  });

  it('refuses a link to another origin without sending the credential there', async () => {
    handler = (_request, response) => sendJson(response, 200, {});
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(
      tool((s) => s.json({ method: 'GET', path: 'http://169.254.169.254/latest' })),
      {},
      secrets,
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'upstream_error' } });
    expect(received).toHaveLength(0);
  });
});

describe('error mapping', () => {
  const cases: [string, number, unknown, Record<string, string>, Record<string, unknown>][] = [
    ['404 → not_found', 404, { message: 'Not Found' }, {}, { code: 'not_found', retryable: false }],
    [
      '403 naming a scope → access_denied with the scope',
      403,
      { message: 'Resource not accessible' },
      { 'x-needed-scope': 'repo' },
      { code: 'access_denied', details: { missingScope: 'repo' } },
    ],
    ['403 otherwise → access_denied', 403, { message: 'Forbidden' }, {}, { code: 'access_denied' }],
    [
      '422 → invalid_args with the field messages',
      422,
      { message: 'Validation Failed', errors: [{ field: 'title', code: 'missing_field' }] },
      {},
      { code: 'invalid_args', details: { fields: ['title: missing_field'] } },
    ],
    ['409 → invalid_args', 409, { message: 'Conflict' }, {}, { code: 'invalid_args' }],
    [
      '500 → upstream_error, retryable',
      500,
      { message: 'boom' },
      {},
      { code: 'upstream_error', retryable: true },
    ],
  ];
  it.each(cases)('%s', async (_name, status, body, headers, expected) => {
    handler = (_request, response) => sendJson(response, status, body, headers);
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(
      tool((s) => s.json({ method: 'GET', path: '/x' })),
      {},
      secrets,
      {
        budgetMs: 5_000,
      },
    );
    expect(result).toMatchObject({ ok: false, error: { service: 'example', ...expected } });
  });

  it('401: reads the secret again once and repeats the request with the rotated credential', async () => {
    handler = (request, response) =>
      authorized(request, ROTATED)
        ? sendJson(response, 200, { ok: 1 })
        : sendJson(response, 401, { message: 'Bad credentials' });
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const t = tool((s) => s.json({ method: 'GET', path: '/x' }));
    // The first call caches the old value; it is then rotated behind the cache.
    expect(await callRestTool(t, {}, secrets)).toMatchObject({ ok: false, error: { code: 'auth_failed' } });
    secrets.set('example_default', { token: ROTATED });
    received.length = 0;
    expect(await callRestTool(t, {}, secrets)).toMatchObject({ ok: true, value: { ok: 1 } });
    expect(received.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${ROTATED}`]);
  });

  it('401 with an unchanged secret: auth_failed after one request, no loop', async () => {
    handler = (_request, response) => sendJson(response, 401, { message: 'Bad credentials' });
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(
      tool((s) => s.json({ method: 'GET', path: '/x' })),
      {},
      secrets,
    );
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'auth_failed', message: expect.stringContaining('Bad credentials') },
    });
    expect(received).toHaveLength(1);
  });
});

describe('rate limits', () => {
  it('429 then success: waits Retry-After and returns the answer', async () => {
    let calls = 0;
    handler = (_request, response) =>
      ++calls === 1
        ? sendJson(response, 429, { message: 'slow down' }, { 'retry-after': '1' })
        : sendJson(response, 200, { n: calls });
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const started = Date.now();
    const result = await callRestTool(
      tool((s) => s.json({ method: 'GET', path: '/x' })),
      {},
      secrets,
    );
    expect(result).toMatchObject({ ok: true, value: { n: 2 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('429 longer than the deadline: throttled with retryAfterMs', async () => {
    handler = (_request, response) =>
      sendJson(response, 429, { message: 'slow down' }, { 'retry-after': '120' });
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(
      tool((s) => s.json({ method: 'GET', path: '/x' })),
      {},
      secrets,
      { budgetMs: 5_000 },
    );
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'throttled', retryable: true, details: { retryAfterMs: 120_000, httpStatusCode: 429 } },
    });
  });

  it('a throttle without 429 (403 "secondary rate limit") is waited out when it fits, else throttled', async () => {
    let calls = 0;
    handler = (_request, response) =>
      ++calls === 1
        ? sendJson(
            response,
            403,
            { message: 'You have exceeded a secondary rate limit' },
            { 'retry-after': '1' },
          )
        : sendJson(response, 200, { n: calls });
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const t = tool((s) => s.json({ method: 'GET', path: '/x' }));
    expect(await callRestTool(t, {}, secrets)).toMatchObject({ ok: true, value: { n: 2 } });
    handler = (_request, response) =>
      sendJson(response, 403, { message: 'You have exceeded a secondary rate limit' });
    expect(await callRestTool(t, {}, secrets, { budgetMs: 5_000 })).toMatchObject({
      ok: false,
      error: { code: 'throttled', details: { retryAfterMs: 60_000 } },
    });
  });

  it('a spent quota is refused before sending when its reset is after the deadline', async () => {
    handler = (_request, response) =>
      sendJson(response, 200, { ok: 1 }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '300' });
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const t = tool(async (s) => [
      await s.json({ method: 'GET', path: '/x' }),
      await s.json({ method: 'GET', path: '/y' }),
    ]);
    const result = await callRestTool(t, {}, secrets, { budgetMs: 5_000 });
    expect(result).toMatchObject({ ok: false, error: { code: 'throttled', details: { quota: 'spent' } } });
    expect(received.map((r) => r.path)).toEqual(['/v1/x']);
    expect(!result.ok && (result.error.details?.retryAfterMs as number)).toBeGreaterThan(290_000);
  });
});

describe('pagination', () => {
  const linkServer = (pages: number, perPage: number, failOn?: number) => {
    handler = (request, response) => {
      const page = Number(request.query.get('page') ?? 1);
      if (page === failOn) return sendJson(response, 429, { message: 'slow' }, { 'retry-after': '90' });
      const next: Record<string, string> =
        page < pages
          ? { link: `<${server.url}${request.path}?per_page=${perPage}&page=${page + 1}>; rel="next"` }
          : {};
      sendJson(response, 200, items((page - 1) * perPage, perPage), next);
    };
  };
  const readLinks = (maxPages: number, resume?: string) =>
    tool((s) =>
      paginate(
        s,
        { method: 'GET', path: '/items' },
        {
          paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: 2 }),
          select: (b) => b as { id: number }[],
          budget: { maxPages, maxBytes: 1_000_000 },
          ...(resume ? { resume } : {}),
        },
      ),
    );

  it('Link: reads every page to the end', async () => {
    linkServer(4, 2);
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(readLinks(10), {}, secrets);
    expect(result).toMatchObject({
      ok: true,
      value: { pages: 4, complete: true, next: null, stoppedBy: 'end' },
    });
    expect(result.ok && (result.value as { records: unknown[] }).records).toEqual(items(0, 8));
  });

  it('Link: stops at the page budget with a cursor that resumes the rest', async () => {
    linkServer(5, 2);
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const first = await callRestTool(readLinks(3), {}, secrets);
    expect(first).toMatchObject({ ok: true, value: { pages: 3, complete: false, stoppedBy: 'max_pages' } });
    const next = first.ok ? (first.value as { next: string }).next : '';
    expect(next).toBe('/v1/items?per_page=2&page=4');
    const rest = await callRestTool(readLinks(3, next), {}, secrets);
    expect(rest.ok && (rest.value as { records: unknown[] }).records).toEqual(items(6, 4));
  });

  it('Link: a cursor naming another endpoint is invalid_args, nothing sent', async () => {
    linkServer(5, 2);
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(readLinks(3, '/v1/admin/keys?page=2'), {}, secrets);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(received).toHaveLength(0);
  });

  it('a rate limit after some pages returns the pages read with a cursor to continue, never nothing', async () => {
    linkServer(5, 2, 3);
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(readLinks(10), {}, secrets, { budgetMs: 5_000 });
    expect(result).toMatchObject({
      ok: true,
      value: { pages: 2, stoppedBy: 'throttled', retryAfterMs: 90_000, next: '/v1/items?per_page=2&page=3' },
    });
    expect(result.ok && (result.value as { records: unknown[] }).records).toEqual(items(0, 4));
  });

  it('a rate limit on the first page is throttled (there is nothing to return)', async () => {
    linkServer(5, 2, 1);
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(readLinks(10), {}, secrets, { budgetMs: 5_000 });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'throttled', details: { retryAfterMs: 90_000 } },
    });
  });

  it('cursor in a JSON body (a search POST): three pages, then the end', async () => {
    handler = (request, response) => {
      const after = Number((JSON.parse(request.body) as { after?: string }).after ?? 0);
      sendJson(response, 200, {
        results: items(after, 2),
        ...(after < 4 ? { paging: { next: { after: String(after + 2) } } } : {}),
      });
    };
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const t = tool((s) =>
      paginate(
        s,
        { method: 'POST', path: '/search', body: { filter: 'x' }, idempotent: true },
        {
          paginator: cursorPaginator({
            cursorParam: 'after',
            placement: 'body',
            pageSizeParam: 'limit',
            pageSize: 2,
            nextCursor: (b) => (b as { paging?: { next?: { after?: string } } }).paging?.next?.after,
          }),
          select: (b) => (b as { results: unknown[] }).results,
          budget: { maxPages: 10, maxBytes: 1_000_000 },
        },
      ),
    );
    const result = await callRestTool(t, {}, secrets);
    expect(result).toMatchObject({ ok: true, value: { pages: 3, complete: true, records: items(0, 6) } });
    expect(received.map((r) => JSON.parse(r.body))).toEqual([
      { filter: 'x', limit: 2 },
      { filter: 'x', limit: 2, after: '2' },
      { filter: 'x', limit: 2, after: '4' },
    ]);
  });

  it('offset with `more`: pages until more is false; the byte budget stops early with the offset to resume', async () => {
    handler = (request, response) => {
      const offset = Number(request.query.get('offset'));
      sendJson(response, 200, { incidents: items(offset, 3), more: offset < 9, limit: 3, offset });
    };
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const read = (maxBytes: number) =>
      tool((s) =>
        paginate(
          s,
          { method: 'GET', path: '/incidents' },
          {
            paginator: offsetPaginator({ pageSize: 3, hasMore: (b) => (b as { more: boolean }).more }),
            select: (b) => (b as { incidents: unknown[] }).incidents,
            budget: { maxPages: 10, maxBytes },
          },
        ),
      );
    const all = await callRestTool(read(1_000_000), {}, secrets);
    expect(all).toMatchObject({ ok: true, value: { pages: 4, complete: true, records: items(0, 12) } });
    const cut = await callRestTool(read(100), {}, secrets);
    expect(cut).toMatchObject({ ok: true, value: { pages: 2, stoppedBy: 'max_bytes', next: '6' } });
  });

  it('nextLink reads RFC 8288 headers', () => {
    expect(nextLink('<https://a/x?page=2>; rel="next", <https://a/x?page=9>; rel="last"')).toBe(
      'https://a/x?page=2',
    );
    expect(nextLink('<https://a/x?page=1>; rel="prev"')).toBeUndefined();
    expect(nextLink(undefined)).toBeUndefined();
  });
});

describe('exactly-once writes', () => {
  /** A write endpoint that records each accepted write (with its marker) and can answer late or reset. */
  const writes: { marker: string }[] = [];
  let behavior: 'normal' | 'late' | 'reset' = 'normal';
  beforeEach(() => {
    writes.length = 0;
    behavior = 'normal';
    handler = (request, response) => {
      if (request.method === 'GET') return sendJson(response, 200, writes);
      const body = JSON.parse(request.body) as { marker: string };
      writes.push({ marker: body.marker });
      if (behavior === 'reset') {
        behavior = 'normal';
        response.socket?.destroy();
        return;
      }
      if (behavior === 'late') {
        behavior = 'normal';
        setTimeout(() => sendJson(response, 201, { id: writes.length }), 1_500).unref();
        return;
      }
      sendJson(response, 201, { id: writes.length });
    };
  });
  const writeTool = (): Tool => {
    return defineTool(specFor('write'), async (ctx) => {
      // An attempt timeout shorter than the late answer: the client gives up first.
      const session = example.session(ctx, { attemptTimeoutMs: 500 });
      const marker = writeMarker(ctx);
      const outcome = await writeOnce(ctx, {
        service: 'example',
        what: 'thing',
        write: () => session.json<{ id: number }>({ method: 'POST', path: '/things', body: { marker } }),
        find: async () => {
          const all = await session.json<{ marker: string }[]>({ method: 'GET', path: '/things' });
          const at = all.findIndex((w) => w.marker === marker);
          return at < 0 ? undefined : { id: at + 1 };
        },
      });
      return { value: outcome };
    }) as unknown as Tool;
  };

  it.each(['late', 'reset'] as const)(
    'an answer that is %s: one write, found by its marker',
    async (kind) => {
      behavior = kind;
      const secrets = restSecrets({ example_default: { token: TOKEN } });
      const store = new InMemoryIdempotencyStore();
      const t = writeTool();
      const result = await callRestTool(t, {}, secrets, { idempotency: store.layer });
      expect(result).toMatchObject({ ok: true, value: { value: { id: 1 }, recovered: true } });
      expect(writes).toHaveLength(1);
      // The same call again (a Step Functions retry): the record answers, nothing is sent.
      const before = received.length;
      const again = await callRestTool(t, {}, secrets, { idempotency: store.layer });
      expect(again).toMatchObject({ ok: true, value: { value: { id: 1 }, recovered: true } });
      expect(writes).toHaveLength(1);
      expect(received).toHaveLength(before);
    },
  );

  it('a write that certainly did nothing (422) is not looked up and may run again', async () => {
    handler = (request, response) =>
      request.method === 'GET'
        ? sendJson(response, 200, [])
        : sendJson(response, 422, { message: 'Validation Failed' });
    const secrets = restSecrets({ example_default: { token: TOKEN } });
    const result = await callRestTool(writeTool(), {}, secrets, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(received.map((r) => r.method)).toEqual(['POST']);
  });
});
