/**
 * A loopback stand-in for an Amazon Cognito user pool's OAuth 2.0 endpoints on
 * 127.0.0.1, with the documented shapes (Amazon Cognito developer guide, "User
 * pool endpoints": "Authorize endpoint" `GET /oauth2/authorize`, "Token endpoint"
 * `POST /oauth2/token`, and the pool's `/.well-known/jwks.json`), for the console's
 * PKCE sign-in in a real browser. Its hosted UI signs in one configured user at
 * once (no password page); everything else is checked as Cognito checks it:
 * `response_type=code`, the client id, the registered redirect URI, `S256` PKCE
 * (the verifier's SHA-256 must match the challenge), a code used once. Tokens are
 * RS256 JWTs with Cognito's ID-token claims (`iss`, `aud`, `token_use: id`,
 * `cognito:username`, `cognito:groups`), signed with a key the JWKS publishes.
 *
 * {@link verifyLikeApiGateway} checks a bearer token as API Gateway's HTTP API JWT
 * authorizer does ("Controlling access to HTTP APIs with JWT authorizers"): the
 * signature against the issuer's JWKS, `iss`, `aud` (or `client_id`) among the
 * audiences, `exp` and `nbf`.
 */
import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The user the fake's hosted UI signs in. */
export interface FakeCognitoUser {
  readonly username: string;
  readonly groups: readonly string[];
}

/** A running fake user pool. */
export interface FakeCognito {
  /** The hosted UI domain: `http://127.0.0.1:<port>` (the page's `config.domain`). */
  readonly domain: string;
  /** The token issuer (`https://cognito-idp.<region>.amazonaws.com/<pool id>` for a real pool). */
  readonly issuer: string;
  readonly clientId: string;
  /** What each endpoint was asked, in order: `authorize`, `token`, `jwks`. */
  readonly requests: string[];
  /**
   * When set, the authorize endpoint sends the browser back with this OAuth error
   * (`?error=access_denied&error_description=…&state=…`, RFC 6749 §4.1.2.1) instead of a code.
   */
  denyWith: string | undefined;
  /**
   * With {@link denyWith}: the error sent back without `state`, as Amazon Cognito documents its
   * error redirects ("Managed login and federation error responses":
   * `<Callback URL>/?error_description=…&error=…`, a Lambda trigger's or an IdP's failure).
   */
  denyWithoutState: boolean;
  /** A token signed with another key: a verifier must refuse it. */
  forgedToken(): string;
  stop(): Promise<void>;
}

const base64Url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

function jwt(claims: Record<string, unknown>, kid: string, privateKey: Parameters<typeof sign>[2]): string {
  const head = base64Url(JSON.stringify({ alg: 'RS256', kid, typ: 'JWT' }));
  const body = base64Url(JSON.stringify(claims));
  const signature = sign('RSA-SHA256', Buffer.from(`${head}.${body}`), privateKey);
  return `${head}.${body}.${base64Url(signature)}`;
}

/** Starts the fake for one app client and its one redirect URI (its callback URL). */
export async function startFakeCognito(options: {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly user: FakeCognitoUser;
}): Promise<FakeCognito> {
  const kid = randomBytes(8).toString('hex');
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(keys.publicKey.export({ format: 'jwk' }) as JsonWebKey), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const requests: string[] = [];
  let issuer = '';
  // Filled in once the server listens; `denyWith` is read per request (a test sets it).
  const fake = { denyWith: undefined, denyWithoutState: false } as {
    denyWith: string | undefined;
    denyWithoutState: boolean;
  } & FakeCognito;
  const idToken = () => {
    const now = Math.floor(Date.now() / 1000);
    return jwt(
      {
        sub: `sub-${options.user.username}`,
        aud: options.clientId,
        iss: issuer,
        token_use: 'id',
        'cognito:username': options.user.username,
        'cognito:groups': [...options.user.groups],
        auth_time: now,
        iat: now,
        exp: now + 3600,
      },
      kid,
      keys.privateKey,
    );
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // The token endpoint is called from the page's origin (CORS), as Cognito allows.
    const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Content-Type' };
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { ...cors, 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'OPTIONS') {
      response.writeHead(204, { ...cors, 'Access-Control-Allow-Methods': 'POST' });
      response.end();
      return;
    }
    if (request.method === 'GET' && url.pathname === '/oauth2/authorize') {
      requests.push('authorize');
      const q = url.searchParams;
      if (q.get('client_id') !== options.clientId) return json(400, { error: 'invalid_client' });
      if (q.get('redirect_uri') !== options.redirectUri) return json(400, { error: 'redirect_mismatch' });
      if (q.get('response_type') !== 'code') return json(400, { error: 'unsupported_response_type' });
      if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
        return json(400, { error: 'invalid_request' });
      }
      if (fake.denyWith !== undefined) {
        const back = new URL(options.redirectUri);
        back.searchParams.set('error', fake.denyWith);
        back.searchParams.set('error_description', 'The user is not allowed to sign in');
        if (!fake.denyWithoutState) back.searchParams.set('state', q.get('state') ?? '');
        response.writeHead(302, { Location: back.toString() });
        response.end();
        return;
      }
      const code = randomBytes(16).toString('hex');
      codes.set(code, { challenge: q.get('code_challenge') ?? '', redirectUri: options.redirectUri });
      const back = new URL(options.redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      response.writeHead(302, { Location: back.toString() });
      response.end();
      return;
    }
    if (request.method === 'POST' && url.pathname === '/oauth2/token') {
      requests.push('token');
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const issued = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (form.get('grant_type') !== 'authorization_code')
          return json(400, { error: 'unsupported_grant_type' });
        if (form.get('client_id') !== options.clientId) return json(400, { error: 'invalid_client' });
        if (!issued || form.get('redirect_uri') !== issued.redirectUri)
          return json(400, { error: 'invalid_grant' });
        const verifier = form.get('code_verifier') ?? '';
        if (base64Url(createHash('sha256').update(verifier).digest()) !== issued.challenge) {
          return json(400, { error: 'invalid_grant' });
        }
        json(200, {
          id_token: idToken(),
          access_token: randomBytes(16).toString('hex'),
          refresh_token: randomBytes(16).toString('hex'),
          token_type: 'Bearer',
          expires_in: 3600,
        });
      });
      return;
    }
    if (request.method === 'GET' && url.pathname === '/.well-known/jwks.json') {
      requests.push('jwks');
      return json(200, { keys: [jwk] });
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const domain = `http://127.0.0.1:${port}`;
  issuer = domain;
  Object.assign(fake, {
    domain,
    issuer,
    clientId: options.clientId,
    requests,
    forgedToken: () =>
      jwt(
        {
          aud: options.clientId,
          iss: issuer,
          token_use: 'id',
          'cognito:username': 'mallory',
          'cognito:groups': ['tenant-globex'],
          exp: Math.floor(Date.now() / 1000) + 3600,
        },
        kid,
        other.privateKey,
      ),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return fake;
}

/**
 * The claims of `token` when API Gateway's JWT authorizer would accept it for
 * `issuer` and `audience`, else undefined (API Gateway then answers 401).
 */
export async function verifyLikeApiGateway(
  token: string,
  issuer: string,
  audience: string,
): Promise<Record<string, unknown> | undefined> {
  const [head, body, signature] = token.split('.');
  if (!head || !body || !signature) return undefined;
  let header: { alg?: string; kid?: string };
  let claims: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (header.alg !== 'RS256') return undefined;
  const { keys } = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: JsonWebKey[] };
  const key = keys.find((candidate) => (candidate as { kid?: string }).kid === header.kid);
  if (!key) return undefined;
  const signed = verify(
    'RSA-SHA256',
    Buffer.from(`${head}.${body}`),
    createPublicKey({ key, format: 'jwk' }),
    Buffer.from(signature, 'base64url'),
  );
  const now = Math.floor(Date.now() / 1000);
  const audiences = [claims.aud, claims.client_id].flat();
  if (!signed || claims.iss !== issuer || !audiences.includes(audience)) return undefined;
  if (typeof claims.exp !== 'number' || claims.exp <= now) return undefined;
  if (typeof claims.nbf === 'number' && claims.nbf > now) return undefined;
  return claims;
}
