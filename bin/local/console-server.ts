/**
 * `etp console`'s server: the console page (functions/console/web/) and its API
 * (functions/console/routes.ts) on 127.0.0.1, with the security headers the
 * deployed CloudFront distribution sends. No sign-in: the one person at this
 * machine sees every local tenant (or those of `--tenants`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { type ConsoleUser, userOfClaims } from '../../functions/console/authz';
import type { ConsoleBackend } from '../../functions/console/backend';
import { contentSecurityPolicy, SECURITY_HEADERS } from '../../functions/console/headers';
import { handleConsoleRequest } from '../../functions/console/routes';

/** The folder of the console page's files. */
export const CONSOLE_WEB_DIR = path.join(__dirname, '../../functions/console/web');

/** Largest request body accepted, in bytes: a reference or an answer is a few KB. */
export const MAX_BODY_BYTES = 65_536;

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

interface StaticFile {
  readonly type: string;
  readonly body: Buffer;
  readonly gzip: Buffer;
}

/**
 * Sign-in as deployed: the page signs in through a Cognito hosted UI (its
 * `config.json` names it, as lib/console.ts writes it) and every API request
 * must carry an ID token the `verify` function accepts, as API Gateway's JWT
 * authorizer checks it; the user and their tenants come from the token's claims.
 */
export interface ConsoleSignIn {
  /** The hosted UI domain, e.g. `https://etp-console-<account>.auth.<region>.amazoncognito.com`. */
  readonly domain: string;
  readonly clientId: string;
  /** The page's URL registered as the app client's callback URL. */
  readonly redirectUri: string;
  /** The claims of a bearer token when it is accepted, else undefined (401). */
  readonly verify: (token: string) => Promise<Readonly<Record<string, unknown>> | undefined>;
}

function jsonFile(value: unknown): StaticFile {
  const body = Buffer.from(JSON.stringify(value));
  return { type: TYPES['.json'] ?? '', body, gzip: gzipSync(body) };
}

/** The page's files by URL path, read and compressed once. */
function staticFiles(dir: string, signIn: ConsoleSignIn | undefined): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const body = readFileSync(path.join(dir, name));
    files.set(`/${name}`, { type, body, gzip: gzipSync(body) });
  }
  const index = files.get('/index.html');
  if (index) files.set('/', index);
  // What the deployed page reads from its bucket (lib/console.ts).
  files.set(
    '/config.json',
    jsonFile(
      signIn
        ? {
            auth: 'cognito',
            domain: signIn.domain,
            clientId: signIn.clientId,
            redirectUri: signIn.redirectUri,
          }
        : { auth: 'none' },
    ),
  );
  return files;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request) {
    bytes += (chunk as Buffer).byteLength;
    if (bytes > MAX_BODY_BYTES) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  if (bytes === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw Object.assign(new Error('body is not JSON'), { status: 400 });
  }
}

function send(
  response: ServerResponse,
  status: number,
  type: string,
  body: Buffer,
  options: { readonly gzip?: boolean; readonly connectSources?: readonly string[] } = {},
): void {
  const { gzip } = options;
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Security-Policy': contentSecurityPolicy(options.connectSources),
    'Content-Type': type,
    'Cache-Control': 'no-store',
    'Content-Length': String(body.length),
    ...(gzip ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
  });
  response.end(body);
}

/** A running console server. */
export interface ConsoleServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly server: Server;
  stop(): Promise<void>;
}

/**
 * Why a request is not the console page's own, or undefined when it is: its `Host` must
 * name this server (`127.0.0.1:<port>` or `localhost:<port>`), so a site whose DNS name
 * is rebound to 127.0.0.1 is not answered even though the browser calls it same-origin;
 * an API request's `Origin`, when sent, must be this server's; and a body must be sent as
 * `application/json`, which a cross-site HTML form cannot send (a form posts
 * `text/plain`, whose text may well be JSON).
 */
function foreignRequest(request: IncomingMessage, port: number, api: boolean): string | undefined {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(String(request.headers.host ?? '').toLowerCase())) {
    return `The console answers requests for ${hosts.join(' or ')} only`;
  }
  if (!api) return undefined;
  const origin = request.headers.origin;
  if (origin !== undefined && !hosts.some((host) => origin.toLowerCase() === `http://${host}`)) {
    return 'The console API answers its own page only';
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return 'The console API answers its own page only';
  }
  return undefined;
}

/** Whether a request with a body says it is JSON (`application/json`, any parameters). */
function sendsJson(request: IncomingMessage): boolean {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  return type === 'application/json';
}

/** Whether a request carries a body (RFC 9112, "Message Body Length"). */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Serves the page and the API on `127.0.0.1:<port>` (0: an OS-chosen port).
 * Only the page's own requests are answered (`Host` this server, an API request's
 * `Origin` and `Sec-Fetch-Site` its own, a body sent as `application/json`), so
 * neither another site open in the browser nor one rebinding its name to 127.0.0.1 can use it.
 * The page's files answer GET and HEAD (the same status and headers, no body).
 * `user` is everyone's user (`etp console`: the one person at this machine);
 * with `options.signIn`, each request's user is its token's instead.
 */
export async function startConsoleServer(
  backend: ConsoleBackend,
  user: ConsoleUser,
  options: { readonly port?: number; readonly webDir?: string; readonly signIn?: ConsoleSignIn } = {},
): Promise<ConsoleServer> {
  const { signIn } = options;
  const files = staticFiles(options.webDir ?? CONSOLE_WEB_DIR, signIn);
  const connectSources = signIn ? [signIn.domain] : [];
  const userOf = async (request: IncomingMessage): Promise<ConsoleUser | undefined> => {
    if (!signIn) return user;
    const token = /^Bearer (\S+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    return token ? userOfClaims(await signIn.verify(token)) : undefined;
  };
  let port = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const api = url.pathname.startsWith('/api/');
    const foreign = foreignRequest(request, port, api);
    if (foreign) {
      const body = { error: { code: 'access_denied', message: foreign } };
      return send(response, 403, 'application/json', Buffer.from(JSON.stringify(body)));
    }
    if (!api) {
      // HEAD answers as GET does, headers only (RFC 9110, "HEAD"; Node's server sends no body for it).
      const file =
        request.method === 'GET' || request.method === 'HEAD' ? files.get(url.pathname) : undefined;
      if (!file) return send(response, 404, 'text/plain; charset=utf-8', Buffer.from('Not found\n'));
      const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
      return send(response, 200, file.type, gzip ? file.gzip : file.body, { gzip, connectSources });
    }
    if (hasBody(request) && !sendsJson(request)) {
      const body = {
        error: { code: 'invalid_args', message: 'Send the request body as Content-Type: application/json' },
      };
      return send(response, 415, 'application/json', Buffer.from(JSON.stringify(body)));
    }
    Promise.all([readBody(request), userOf(request)])
      .then(([body, caller]) =>
        caller
          ? handleConsoleRequest(
              {
                method: request.method ?? 'GET',
                path: url.pathname,
                query: Object.fromEntries(url.searchParams),
                body,
                user: caller,
              },
              backend,
            )
          : { status: 401, body: { error: { code: 'auth_failed', message: 'Sign in first' } } },
      )
      .then(
        (answer) =>
          send(response, answer.status, 'application/json', Buffer.from(JSON.stringify(answer.body))),
        (err: { status?: number; message?: string }) =>
          send(
            response,
            err.status ?? 500,
            'application/json',
            Buffer.from(
              JSON.stringify({ error: { code: 'invalid_args', message: err.message ?? 'bad request' } }),
            ),
          ),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  ({ port } = server.address() as AddressInfo);
  return {
    url: `http://127.0.0.1:${port}/`,
    server,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
