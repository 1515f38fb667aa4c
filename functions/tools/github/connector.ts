/**
 * The GitHub REST API as a declared connector (docs/github.md): the
 * `github_default` secret (a personal access token, or a GitHub App's id,
 * private key and installation), the API version header, the primary and
 * secondary rate limits, and GitHub's error bodies.
 *
 * The platform's shared client rather than Octokit: `@octokit/core` with the
 * paginate, retry and throttling plugins duplicates what the runtime already does
 * once for every connector (retry within the deadline, `Retry-After`, per-tenant
 * buckets, pagination that returns what it read when throttled), and its bundle
 * costs cold start the shared client does not (docs/github.md, "Why not Octokit").
 */
import { bearerAuth } from '../../runtime/http/auth';
import { defineRestConnector } from '../../runtime/http/connector';
import { quotaHeaders } from '../../runtime/http/rate-limit-headers';
import type { ErrorAnswer, ErrorTable } from '../../runtime/http/rest-errors';
import { withSchemaBuiltOnRead } from '../../runtime/secrets/secret-payload';
import { githubAppAuth } from './app-auth';
import { GITHUB_SCOPES } from './scopes';
import { type GitHubSecret, type GitHubTokenSecret, githubSecretSchema, isAppSecret } from './secret';

/** The secret every GitHub tool reads. */
export const GITHUB_SECRET = 'github_default';

/** api.github.com ("About the REST API"). */
const GITHUB_DEFAULT_API_URL = 'https://api.github.com';

/** The REST API version the tools are written against ("API Versions"). */
export const GITHUB_API_VERSION = '2022-11-28';

/**
 * The API base URL: `GITHUB_API_URL` when set (GitHub Enterprise Server's
 * `https://<host>/api/v3`, the local fake of the tests), else api.github.com.
 */
export function githubApiUrl(): string {
  return (process.env.GITHUB_API_URL || GITHUB_DEFAULT_API_URL).replace(/\/$/, '');
}

const accepted =
  '{ "token": "ghp_… or github_pat_…" } or { "app_id", "private_key" (PEM), "installation_id" }';

/** The scopes an answer says the endpoint accepts, less those the token has (classic tokens). */
function missingScope({ response }: ErrorAnswer): string | undefined {
  const permission = response.headers['x-accepted-github-permissions'];
  if (permission) return `the permission ${permission} (fine-grained token or app)`;
  const needed = (response.headers['x-accepted-oauth-scopes'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (needed.length === 0) return undefined;
  const has = new Set(
    (response.headers['x-oauth-scopes'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  if (needed.some((scope) => has.has(scope))) return undefined;
  return `one of the scopes ${needed.join(', ')}`;
}

/** GitHub's error answers ("Troubleshooting the REST API"; "Rate limits for the REST API"). */
export const githubErrors: ErrorTable = {
  message: ({ body }) => {
    const message = (body as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' ? message : undefined;
  },
  fieldMessages: ({ body }) => {
    const errors = (body as { errors?: unknown } | undefined)?.errors;
    if (!Array.isArray(errors)) return [];
    return errors.map((e: unknown) => {
      if (typeof e === 'string') return e;
      const { field, code, message } = (e ?? {}) as Record<string, unknown>;
      return [field, typeof message === 'string' ? message : code].filter(Boolean).join(': ');
    });
  },
  missingScope,
  // "Rate limits for the REST API", "Exceeding the rate limit": a 403 or 429 that is a
  // primary limit (x-ratelimit-remaining 0) or a secondary one (its message says so).
  // Retry-After first (read by the runtime before this), then x-ratelimit-reset when
  // x-ratelimit-remaining is 0 (secondary limits too), else at least a minute.
  throttle: ({ response, body }, now) => {
    if (response.status !== 403 && response.status !== 429) return undefined;
    if (response.headers['x-ratelimit-remaining'] === '0') {
      const reset = Number(response.headers['x-ratelimit-reset']);
      return Number.isFinite(reset) && reset > 0
        ? { retryAfterMs: Math.max(1_000, reset * 1000 - now) }
        : { retryAfterMs: 60_000 };
    }
    const message = (body as { message?: unknown } | undefined)?.message;
    if (typeof message === 'string' && /secondary rate limit/i.test(message)) return { retryAfterMs: 60_000 };
    return undefined;
  },
  requestIdHeader: 'x-github-request-id',
  notFoundMayBeAccess: true,
};

/**
 * The GitHub connector.
 *
 * Rate limits ("Rate limits for the REST API"): 5,000 requests an hour per token
 * (15,000 for apps on Enterprise Cloud), read from `x-ratelimit-*`; secondary
 * limits of 900 points a minute per endpoint family (a GET is 1 point, a write 5)
 * and 80 content-creating requests a minute. The bucket below (10 at once, 10 a
 * second) stays under the secondary limit for reads.
 */
export const github = defineRestConnector<GitHubSecret>({
  scopes: GITHUB_SCOPES,
  service: 'github',
  label: 'GitHub',
  secret: withSchemaBuiltOnRead(
    {
      name: GITHUB_SECRET,
      label: 'GitHub',
      service: 'github',
      accepted,
      example: { token: 'example-github-token-0123456789' },
    },
    githubSecretSchema,
  ),
  baseUrl: githubApiUrl,
  authenticator: (secret) =>
    isAppSecret(secret) ? githubAppAuth : bearerAuth((s: GitHubSecret) => (s as GitHubTokenSecret).token),
  headers: {
    accept: 'application/vnd.github+json',
    'x-github-api-version': GITHUB_API_VERSION,
    // GitHub refuses requests without a User-Agent ("Getting started with the REST API").
    'user-agent': 'external-tools-platform',
  },
  rateLimit: { burst: 10, perSecond: 10 },
  quota: quotaHeaders({
    remaining: 'x-ratelimit-remaining',
    reset: 'x-ratelimit-reset',
    resetUnit: 'epoch_seconds',
  }),
  errors: githubErrors,
});

/** `owner/name` split, as the tools' `repo` argument gives it. */
export function repoPath(repo: string): string {
  const [owner, name] = repo.split('/');
  return `/repos/${encodeURIComponent(owner as string)}/${encodeURIComponent(name as string)}`;
}
