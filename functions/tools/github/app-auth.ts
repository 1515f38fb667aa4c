/**
 * GitHub App authentication ("Authenticating as a GitHub App installation"): a
 * JWT signed with the app's private key (RS256, `iss` the app id, at most ten
 * minutes) is exchanged for an installation access token, which expires after
 * one hour. The token is cached per tenant, app and installation, and renewed
 * five minutes before it expires, or at once after a 401.
 *
 * The JWT is signed with `node:crypto` (`createSign('RSA-SHA256')`): three
 * base64url segments, no library needed (`universal-github-app-jwt` does the
 * same, ESM only).
 */
import { createHash, createPrivateKey, createSign } from 'node:crypto';
import { SecretInvalidError } from '../../runtime/errors';
import type { AuthCall, Authenticator } from '../../runtime/http/auth';
import { mapRestError, parseJsonBody } from '../../runtime/http/rest-errors';
import { currentSecretValues } from '../../runtime/secret-values';
import type { GitHubAppSecret, GitHubSecret } from './secret';

/** Renewal margin before an installation token's `expires_at`, ms. */
export const INSTALLATION_TOKEN_RENEW_MS = 5 * 60 * 1000;

/** Installation tokens cached per container (tenants × installations). */
const MAX_CACHED_TOKENS = 500;

interface InstallationToken {
  readonly token: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

let cache: import('lru-cache').LRUCache<string, InstallationToken> | undefined;

function tokens() {
  if (!cache) {
    const { boundedCache } =
      require('../../runtime/bounded-cache') as typeof import('../../runtime/bounded-cache');
    cache = boundedCache<string, InstallationToken>({ max: MAX_CACHED_TOKENS, ttlMs: 60 * 60 * 1000 });
  }
  return cache;
}

/** Forgets every cached installation token (tests). */
export function clearInstallationTokens(): void {
  cache?.clear();
}

/** The cache key: tenant, app, installation and a hash of the key (a rotated key gets its own token). */
function keyOf(secret: GitHubAppSecret, tenant: string): string {
  const keyHash = createHash('sha256').update(secret.private_key).digest('hex').slice(0, 16);
  return [tenant, secret.app_id, secret.installation_id, keyHash].join('\u0000');
}

/**
 * A JWT for the app: `iat` 60 s in the past (clock drift, as GitHub advises),
 * `exp` 9 minutes ahead (GitHub's maximum is 10).
 *
 * @throws SecretInvalidError when the private key cannot be read.
 */
export function appJwt(secret: GitHubAppSecret, now = Date.now()): string {
  const seconds = Math.floor(now / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({ iat: seconds - 60, exp: seconds + 540, iss: String(secret.app_id) })}`;
  let key: ReturnType<typeof createPrivateKey>;
  try {
    // Keys pasted into JSON often carry "\n" as two characters.
    key = createPrivateKey(secret.private_key.replace(/\\n/g, '\n'));
  } catch {
    throw new SecretInvalidError(
      'GitHub secret github_default is invalid in: private_key (not a readable PEM private key). Accepted: the .pem file GitHub generated for the app',
      { service: 'github' },
    );
  }
  const signature = createSign('RSA-SHA256').update(unsigned).sign(key).toString('base64url');
  return `${unsigned}.${signature}`;
}

async function exchange(secret: GitHubAppSecret, call: AuthCall): Promise<InstallationToken> {
  const jwt = appJwt(secret);
  currentSecretValues()?.add(jwt);
  const response = await call.http.request({
    method: 'POST',
    url: `${call.baseUrl}/app/installations/${encodeURIComponent(String(secret.installation_id))}/access_tokens`,
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${jwt}`,
      'user-agent': 'external-tools-platform',
    },
    // Creating a token twice is harmless: the exchange may be repeated.
    idempotent: true,
  });
  const body = parseJsonBody(response.text) as { token?: unknown; expires_at?: unknown } | undefined;
  if (response.status !== 201 && response.status !== 200) {
    throw mapRestError({ response, body }, 'github', 'GitHub (installation token)');
  }
  const expiresAt = typeof body?.expires_at === 'string' ? Date.parse(body.expires_at) : Number.NaN;
  if (typeof body?.token !== 'string' || Number.isNaN(expiresAt)) {
    throw mapRestError(
      { response: { ...response, status: 502 }, body },
      'github',
      'GitHub (installation token)',
    );
  }
  currentSecretValues()?.add(body.token);
  return { token: body.token, expiresAt };
}

/** Installation-token authentication, cached per tenant and installation. */
export const githubAppAuth: Authenticator<GitHubSecret> = {
  async authorize(secret, call) {
    const app = secret as GitHubAppSecret;
    const key = keyOf(app, call.tenant);
    let token = tokens().get(key);
    if (!token || token.expiresAt - INSTALLATION_TOKEN_RENEW_MS <= Date.now()) {
      token = await exchange(app, call);
      tokens().set(key, token, {
        ttl: Math.max(1, token.expiresAt - INSTALLATION_TOKEN_RENEW_MS - Date.now()),
      });
    }
    return { authorization: `Bearer ${token.token}` };
  },
  invalidate(secret, call) {
    tokens().delete(keyOf(secret as GitHubAppSecret, call.tenant));
  },
};
