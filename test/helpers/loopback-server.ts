/** Plumbing shared by the local servers of the tests (Slack, Lambda, dynalite). */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Credentials for SDK clients of local AWS endpoints: they sign requests, nobody
 * checks by whom. AWS's documented example key, so redaction sees a real shape.
 */
export const FAKE_AWS_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

/** A request as a local server received it. */
export interface ReceivedRequest {
  readonly method: string;
  /** Path without the query string (`/api/chat.postMessage`). */
  readonly path: string;
  /** The query string with its `?`, or `''`. */
  readonly search: string;
  /** Header names lower-cased, as Node reports them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The raw body, UTF-8. */
  readonly body: string;
}

/** Answers one request; may be async. A throw becomes HTTP 500 with the message. */
export type RequestHandler = (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>;

/** A listening local server. */
export interface ListeningServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Stops listening and drops every open (keep-alive) connection. */
  stop(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 with an OS-chosen port; each request's body
 * is read in full before `handle` runs.
 */
export async function listenOnLoopback(handle: RequestHandler): Promise<ListeningServer> {
  const server = createServer((req, res) => {
    void readRequest(req)
      .then((request) => handle(request, res))
      .catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(err instanceof Error ? err.message : String(err));
      });
  });
  holdIdleConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stop: () => close(server) };
}

/**
 * Keeps idle keep-alive connections open for a test's length. Node closes them
 * after 5 s by default (`keepAliveTimeout`), and a client that reuses one just
 * as the server closes it gets ECONNRESET — a race of loaded machines, not a
 * fault of the code under test. `stop()` still drops every connection.
 */
export function holdIdleConnections(server: Server): void {
  server.keepAliveTimeout = 10 * 60_000;
  server.headersTimeout = 10 * 60_000 + 1_000;
}

/** Writes a JSON response. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** Writes a plain-text response. */
export function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

async function readRequest(req: IncomingMessage): Promise<ReceivedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return {
    method: req.method ?? 'GET',
    path: (req.url ?? '/').split('?')[0] ?? '/',
    search: (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?')) : '',
    headers: { ...req.headers },
    body: Buffer.concat(chunks).toString('utf8'),
  };
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    // Clients keep sockets alive (fetch, the AWS SDK): drop them so close() returns now.
    server.closeAllConnections();
  });
}

/**
 * The call budget, ms, of a test whose server answers after the client's
 * timeout: each write attempt then waits a third of it (5 s,
 * `writeAttemptTimeoutMs` / `slackAttemptTimeoutMs`). The fake server shares
 * the test's event loop: after a stall longer than the attempt timeout (a
 * loaded CI machine), libuv runs the client's timer before the server reads
 * the request, and the write is never made; 2 s attempts failed that way.
 */
export const LATE_ANSWER_BUDGET_MS = 15_000;

/** An answer held until after the client gave up on a {@link LATE_ANSWER_BUDGET_MS} call. */
export const ANSWER_AFTER_TIMEOUT = { delayMs: 20_000 } as const;
