/**
 * Authenticators of REST connectors (Airbyte's declarative `authenticator`):
 * how a parsed secret becomes request headers. The session records every header
 * value they return as a secret of the call, so a derived credential (a GitHub
 * App installation token) is masked by exact match like the secret itself.
 */
import type { Deadline } from '../deadline';
import type { HttpClient } from './client';

/** What an authenticator may use besides the secret. */
export interface AuthCall {
  /** The call's tenant: the key of any credential cached across calls. */
  readonly tenant: string;
  /** The connector's base URL (`https://api.github.com`), for an exchange request. */
  readonly baseUrl: string;
  /** The call's HTTP client (rate limited, retried, bounded by the deadline). */
  readonly http: HttpClient;
  readonly deadline: Pick<Deadline, 'remainingMs' | 'signal'>;
}

/**
 * Turns a secret into request headers.
 *
 * `authorize` may cache what it derives (an exchanged token) per tenant;
 * `invalidate` drops that cache after a 401, before the session reads the
 * secret again and retries once.
 */
export interface Authenticator<S> {
  /** The headers every request carries (`authorization`). */
  authorize(secret: S, call: AuthCall): Promise<Readonly<Record<string, string>>>;
  /** Forgets what was derived from the secret (after a 401). */
  invalidate?(secret: S, call: AuthCall): void;
}

/**
 * `Authorization: Bearer <token>` (RFC 6750): GitHub tokens, PagerDuty OAuth,
 * HubSpot private apps, Attio.
 *
 * @example bearerAuth((secret: { token: string }) => secret.token)
 */
export function bearerAuth<S>(token: (secret: S) => string): Authenticator<S> {
  return { authorize: async (secret) => ({ authorization: `Bearer ${token(secret)}` }) };
}

/**
 * `Authorization: <scheme> <credential>` for an API's own scheme (PagerDuty's
 * `Token token=<key>`).
 *
 * @example authorizationAuth((secret: { token: string }) => `Token token=${secret.token}`)
 */
export function authorizationAuth<S>(value: (secret: S) => string): Authenticator<S> {
  return { authorize: async (secret) => ({ authorization: value(secret) }) };
}

/**
 * HTTP Basic (RFC 7617): Greenhouse Harvest and Lever take the API key as the
 * user name and an empty password (the default `password`).
 *
 * @example basicAuth((secret: { api_key: string }) => secret.api_key)
 */
export function basicAuth<S>(
  user: (secret: S) => string,
  password: (secret: S) => string = () => '',
): Authenticator<S> {
  return {
    authorize: async (secret) => ({
      authorization: `Basic ${Buffer.from(`${user(secret)}:${password(secret)}`, 'utf8').toString('base64')}`,
    }),
  };
}
