import type { ServerResponse } from 'node:http';
import { deadlineIn } from '../../../functions/runtime/deadline';
import {
  createHttpClient,
  type HttpClientOptions,
  type HttpLogger,
} from '../../../functions/runtime/http/client';
import { HttpRequestError, HttpStatusError, ThrottledError } from '../../../functions/runtime/http/errors';
import { RateLimiter } from '../../../functions/runtime/http/rate-limit';
import {
  type ListeningServer,
  listenOnLoopback,
  type ReceivedRequest,
  sendText,
} from '../../helpers/loopback-server';
import { type SilentServer, startSilentServer } from '../../helpers/silent-server';

/** A scripted answer: a status (and headers), or `reset` to destroy the connection after reading the request. */
type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'reset';

let server: ListeningServer;
let answers: Answer[];
let received: { request: ReceivedRequest; at: number }[];

/** Log lines the client wrote, as the logger received them. */
let logged: { level: string; message: string; attributes: Record<string, unknown> }[];
const logger: HttpLogger = {
  debug: (message, attributes) => logged.push({ level: 'debug', message, attributes }),
  warn: (message, attributes) => logged.push({ level: 'warn', message, attributes }),
};

function client(extra: Partial<HttpClientOptions> = {}, budgetMs = 10_000) {
  // A fresh limiter per client: buckets never leak between tests.
  return createHttpClient({
    deadline: deadlineIn(budgetMs),
    logger,
    rateLimiter: new RateLimiter(),
    ...extra,
  });
}

beforeEach(async () => {
  answers = [];
  received = [];
  logged = [];
  server = await listenOnLoopback((request, response: ServerResponse) => {
    received.push({ request, at: Date.now() });
    const answer = answers.shift() ?? { status: 200, body: 'ok' };
    if (answer === 'reset') {
      response.socket?.destroy();
      return;
    }
    sendText(response, answer.status, answer.body ?? '', answer.headers);
  });
});

afterEach(async () => {
  await server.stop();
});

describe('createHttpClient() retries', () => {
  it('retries a GET answered 503, then returns the 200', async () => {
    // Prepare
    answers = [{ status: 503, body: 'busy' }];

    // Act
    const response = await client().request({ method: 'GET', url: `${server.url}/items` });

    // Assess
    expect(response).toMatchObject({ status: 200, text: 'ok' });
    expect(received.map((r) => r.request.method)).toEqual(['GET', 'GET']);
    expect(logged.filter((l) => l.level === 'warn')).toEqual([
      {
        level: 'warn',
        message: 'http request retried',
        attributes: expect.objectContaining({ status: 503, attempt: 1, method: 'GET' }),
      },
    ]);
  });

  it('honors Retry-After on a 429 before the retry', async () => {
    // Prepare
    answers = [{ status: 429, body: 'ratelimited', headers: { 'retry-after': '1' } }];

    // Act
    const response = await client().request({ method: 'GET', url: `${server.url}/items` });

    // Assess
    expect(response.status).toBe(200);
    expect(received).toHaveLength(2);
    const [first, second] = received;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('does not retry a POST answered 503, and requestOk reports upstream_error', async () => {
    // Prepare
    answers = [{ status: 503, body: 'busy' }];

    // Act
    const error = await client()
      .requestOk({ method: 'POST', url: `${server.url}/hook`, body: '{"text":"hi"}' })
      .catch((err: unknown) => err);

    // Assess
    expect(received).toHaveLength(1);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ code: 'upstream_error', retryable: true, status: 503, body: 'busy' });
  });

  it('retries a POST on 429 only when told that a 429 means "not acted on"', async () => {
    // Prepare
    answers = [
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 429, headers: { 'retry-after': '0' } },
    ];

    // Act
    const refused = await client().request({ method: 'POST', url: `${server.url}/api`, body: 'a=1' });
    const retried = await client().request({
      method: 'POST',
      url: `${server.url}/api`,
      body: 'a=1',
      retryThrottled: true,
    });

    // Assess
    expect(refused.status).toBe(429);
    expect(retried.status).toBe(200);
    expect(received).toHaveLength(3);
  });

  it('does not retry a POST whose connection was reset after sending: its outcome is unknown', async () => {
    // Prepare
    answers = ['reset', 'reset', 'reset'];

    // Act
    const error = await client()
      .request({ method: 'POST', url: `${server.url}/hook`, body: 'x' })
      .catch((err: unknown) => err);

    // Assess
    expect(received).toHaveLength(1);
    expect(error).toBeInstanceOf(HttpRequestError);
    expect(error).toMatchObject({ code: 'network_error', reached: 'maybe', errno: 'UND_ERR_SOCKET' });
  });

  it('retries a POST refused before sending, which certainly never reached the server', async () => {
    // Prepare: a port nothing listens on.
    const closed = await listenOnLoopback(() => undefined);
    await closed.stop();

    // Act
    const error = await client()
      .request({ method: 'POST', url: `${closed.url}/hook`, body: 'x' })
      .catch((err: unknown) => err);

    // Assess
    expect(error).toMatchObject({
      code: 'network_error',
      reached: 'no',
      errno: 'ECONNREFUSED',
      retryable: true,
    });
    expect(logged.filter((l) => l.message === 'http request retried')).toHaveLength(2);
  });

  it('retries a POST whose TLS handshake failed, which sent no HTTP byte', async () => {
    // Prepare: HTTPS to a server that speaks plain HTTP: the handshake fails (OpenSSL "wrong version number").
    const url = `${server.url.replace(/^http:/, 'https:')}/hook`;

    // Act
    const error = await client()
      .request({ method: 'POST', url, body: 'x' })
      .catch((err: unknown) => err);

    // Assess
    expect(error).toMatchObject({
      code: 'network_error',
      reached: 'no',
      errno: 'ERR_SSL_WRONG_VERSION_NUMBER',
      retryable: true,
    });
    expect(received).toEqual([]);
    expect(logged.filter((l) => l.message === 'http request retried')).toHaveLength(2);
  });

  it('answers a Retry-After longer than the time left at once: throttled with retryAfterSeconds', async () => {
    // Prepare
    answers = [{ status: 429, body: 'ratelimited', headers: { 'retry-after': '30' } }];
    const started = Date.now();

    // Act
    const error = await client({}, 5_000)
      .requestOk({ method: 'GET', url: `${server.url}/items` })
      .catch((err: unknown) => err);

    // Assess
    expect(error).toMatchObject({ code: 'throttled', retryable: true, retryAfterSeconds: 30 });
    expect((error as HttpStatusError).details).toEqual({ httpStatusCode: 429, retryAfterSeconds: 30 });
    expect(received).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('createHttpClient() rate limit', () => {
  it('holds a burst to the bucket: 2 at once, then 4 per second', async () => {
    // Prepare
    const http = client({ rateLimit: { burst: 2, perSecond: 4 } });
    const start = Date.now();

    // Act
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => http.request({ method: 'GET', url: `${server.url}/items/${i}` })),
    );

    // Assess: the i-th request (0-based) cannot start before (i - 1) × 250 ms.
    const times = received.map((r) => r.at).sort((a, b) => a - b);
    times.forEach((at, i) => {
      expect(at - start).toBeGreaterThanOrEqual(Math.max(0, (i - 1) * 250) - 25);
    });
    expect((times[5] ?? 0) - start).toBeGreaterThanOrEqual(975);
  });

  it('refuses a request whose token would come after the deadline, without sending it', async () => {
    // Prepare
    const http = client({ rateLimit: { burst: 1, perSecond: 0.1 }, partition: 'acme' }, 2_000);
    await http.request({ method: 'GET', url: `${server.url}/items` });

    // Act
    const error = await http
      .request({ method: 'GET', url: `${server.url}/items` })
      .catch((err: unknown) => err);

    // Assess
    expect(error).toBeInstanceOf(ThrottledError);
    expect(error).toMatchObject({ code: 'throttled', retryable: true, retryAfterSeconds: 10 });
    expect(received).toHaveLength(1);
  });

  it('keeps tenants apart: one partition at its limit does not delay another', async () => {
    // Prepare
    const limiter = new RateLimiter();
    const rateLimit = { burst: 1, perSecond: 0.1 };
    const acme = createHttpClient({
      deadline: deadlineIn(2_000),
      rateLimiter: limiter,
      rateLimit,
      partition: 'acme',
    });
    const globex = createHttpClient({
      deadline: deadlineIn(2_000),
      rateLimiter: limiter,
      rateLimit,
      partition: 'globex',
    });
    await acme.request({ method: 'GET', url: `${server.url}/a` });

    // Act
    const response = await globex.request({ method: 'GET', url: `${server.url}/b` });

    // Assess
    expect(response.status).toBe(200);
    await expect(acme.request({ method: 'GET', url: `${server.url}/a` })).rejects.toBeInstanceOf(
      ThrottledError,
    );
  });
});

describe('createHttpClient() timeouts and logging', () => {
  let silent: SilentServer;

  beforeAll(async () => {
    silent = await startSilentServer();
  });

  afterAll(async () => {
    await silent.stop();
  });

  it('stops a POST at its attempt timeout, within the deadline, and does not retry it', async () => {
    // Prepare
    const started = Date.now();

    // Act
    const error = await client({ attemptTimeoutMs: 300 })
      .request({ method: 'POST', url: `${silent.url}/hook`, body: 'x' })
      .catch((err: unknown) => err);

    // Assess
    expect(error).toMatchObject({ code: 'timeout', reached: 'maybe', errno: 'AttemptTimeout' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(silent.connections()).toBe(1);
  });

  it('stops at the deadline whatever the attempt timeout', async () => {
    // Act
    const error = await client({ attemptTimeoutMs: 60_000 }, 400)
      .request({ method: 'GET', url: `${silent.url}/items` })
      .catch((err: unknown) => err);

    // Assess
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
  });

  it('logs the host and method, never the URL path, query or headers', async () => {
    // Prepare
    answers = [{ status: 503 }];
    const secretPath = '/services/T000/B000/webhooksecretpart0001';

    // Act
    await client().request({
      method: 'GET',
      url: `${server.url}${secretPath}?token=abc123secret`,
      headers: { authorization: 'Bearer abc123secret' },
    });

    // Assess
    const text = JSON.stringify(logged);
    expect(logged.length).toBeGreaterThan(0);
    expect(text).not.toContain('webhooksecretpart0001');
    expect(text).not.toContain('abc123secret');
    expect(logged[0]?.attributes.host).toBe(new URL(server.url).host);
  });

  it('reports a failure with the host, never the URL', async () => {
    // Prepare
    answers = ['reset'];

    // Act
    const error = (await client()
      .request({ method: 'POST', url: `${server.url}/services/T0/B0/secretpath0002`, body: 'x' })
      .catch((err: unknown) => err)) as HttpRequestError;

    // Assess
    expect(error.message).toBe(`POST to ${new URL(server.url).host} failed: other side closed`);
    expect(JSON.stringify(error.details)).not.toContain('secretpath0002');
  });
});
