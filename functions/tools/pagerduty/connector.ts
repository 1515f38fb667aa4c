/**
 * The PagerDuty REST API v2 as a declared connector (docs/pagerduty.md): the
 * `pagerduty_default` secret (a REST API key sent as `Token token=…`, or an
 * OAuth access token sent as a bearer), PagerDuty's error bodies, its rate
 * limit headers and its offset pagination (`limit`, `offset`, `more`).
 *
 * The platform's shared client rather than `@pagerduty/pdjs`: pdjs brings its own
 * fetch polyfill (cross-fetch) and retry loop, which would sit beside the
 * runtime's (deadline-bounded retries, per-tenant buckets, pagination that
 * returns what it read when throttled); see docs/pagerduty.md, "Why not pdjs".
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import { authorizationAuth, bearerAuth } from '../../runtime/http/auth';
import { defineRestConnector } from '../../runtime/http/connector';
import { offsetPaginator } from '../../runtime/http/pagination';
import { quotaHeaders } from '../../runtime/http/rate-limit-headers';
import type { ErrorTable } from '../../runtime/http/rest-errors';
import { withSchemaBuiltOnRead } from '../../runtime/secrets/secret-payload';
import { PAGERDUTY_SCOPES } from './scopes';

/** The secret every PagerDuty tool reads. */
export const PAGERDUTY_SECRET = 'pagerduty_default';

/** The service regions' API hosts ("Service Regions"). */
const REGION_URLS = { us: 'https://api.pagerduty.com', eu: 'https://api.eu.pagerduty.com' } as const;

/*
 * Built on first use, not at module load: a function's cold start pays for
 * every module-scope zod schema (functions/runtime/built-once.ts).
 */
const region = () => z.optional(z.enum(['us', 'eu']));
/** A user's e-mail, sent as `From` on writes (required with an account-level REST API key). */
const from = () => z.optional(z.email());

const apiKeySecret = () =>
  z.strictObject({
    token: z
      .string()
      .check(z.regex(/^\S{16,128}$/, 'a REST API key of 16-128 characters without white space')),
    from: from(),
    region: region(),
  });
const oauthSecret = () =>
  z.strictObject({
    access_token: z
      .string()
      .check(z.regex(/^\S{16,4096}$/, 'an OAuth access token of 16-4096 characters without white space')),
    from: from(),
    region: region(),
  });

/** A REST API key (account or user level). */
export type PagerDutyKeySecret = z.output<ReturnType<typeof apiKeySecret>>;
/** An OAuth 2.0 access token (a scoped app or a user's authorization). */
export type PagerDutyOAuthSecret = z.output<ReturnType<typeof oauthSecret>>;
/** The parsed `pagerduty_default` secret. */
export type PagerDutySecret = PagerDutyKeySecret | PagerDutyOAuthSecret;

/**
 * The API base URL: `PAGERDUTY_API_URL` when set (the local fake of the tests),
 * else the secret's region (`us` by default).
 */
export function pagerdutyApiUrl(secret: PagerDutySecret): string {
  return (process.env.PAGERDUTY_API_URL || REGION_URLS[secret.region ?? 'us']).replace(/\/$/, '');
}

/** PagerDuty's error answers ("Errors": `{ "error": { "code", "message", "errors": [] } }`). */
export const pagerdutyErrors: ErrorTable = {
  message: ({ body }) => {
    const error = (body as { error?: { message?: unknown; code?: unknown } } | undefined)?.error;
    if (typeof error?.message !== 'string') return undefined;
    return typeof error.code === 'number' ? `${error.message} (code ${error.code})` : error.message;
  },
  fieldMessages: ({ body }) => {
    const errors = (body as { error?: { errors?: unknown } } | undefined)?.error?.errors;
    return Array.isArray(errors) ? errors.filter((e): e is string => typeof e === 'string') : [];
  },
  // A 429 may come without Retry-After: ratelimit-reset says when the window opens again.
  throttle: ({ response }) => {
    if (response.status !== 429) return undefined;
    const reset = Number(response.headers['ratelimit-reset']);
    return Number.isFinite(reset) && reset > 0 ? { retryAfterMs: reset * 1000 } : undefined;
  },
  requestIdHeader: 'x-request-id',
};

/**
 * The PagerDuty connector.
 *
 * Rate limits ("REST API Rate Limits"): 960 requests a minute per API key or
 * OAuth token, reported in `ratelimit-limit`, `ratelimit-remaining` and
 * `ratelimit-reset` (seconds). The bucket (10 at once, 15 a second) keeps one
 * tenant's calls just under that.
 */
export const pagerduty = defineRestConnector<PagerDutySecret>({
  scopes: PAGERDUTY_SCOPES,
  service: 'pagerduty',
  label: 'PagerDuty',
  secret: withSchemaBuiltOnRead(
    {
      name: PAGERDUTY_SECRET,
      label: 'PagerDuty',
      service: 'pagerduty',
      accepted:
        '{ "token": "<REST API key>", "from"?: "<user e-mail, for writes with an account key>", "region"?: "us" | "eu" } or { "access_token": "<OAuth token>", "from"?, "region"? }',
      example: { token: 'example-pd-key-0123', from: 'oncall@example.com' },
    },
    builtOnce(() => z.union([apiKeySecret(), oauthSecret()]) as z.ZodMiniType<PagerDutySecret>),
  ),
  baseUrl: pagerdutyApiUrl,
  authenticator: (secret) =>
    'access_token' in secret
      ? bearerAuth((s: PagerDutySecret) => (s as PagerDutyOAuthSecret).access_token)
      : authorizationAuth((s: PagerDutySecret) => `Token token=${(s as PagerDutyKeySecret).token}`),
  headers: { accept: 'application/vnd.pagerduty+json;version=2' },
  rateLimit: { burst: 10, perSecond: 15 },
  quota: quotaHeaders({
    remaining: 'ratelimit-remaining',
    reset: 'ratelimit-reset',
    resetUnit: 'delta_seconds',
  }),
  errors: pagerdutyErrors,
});

/** The most records classic pagination reads of one query: offset + limit ≤ 10,000 ("Pagination", classic). */
export const PAGERDUTY_MAX_OFFSET_PLUS_LIMIT = 10_000;

/**
 * PagerDuty's offset pagination: `limit` up to 100, `offset`, and `more`
 * ("Pagination", classic); offset + limit at most
 * {@link PAGERDUTY_MAX_OFFSET_PLUS_LIMIT}: the last page asks for fewer, a read
 * that reaches it stops as `window` (a cursor at it is `invalid_args`).
 */
export function pagerdutyPages(pageSize: number) {
  return offsetPaginator({
    pageSize,
    hasMore: (body) => (body as { more?: unknown } | undefined)?.more === true,
    maxEnd: PAGERDUTY_MAX_OFFSET_PLUS_LIMIT,
  });
}

/** A reference's display name (`summary`) and id, as PagerDuty embeds users, services and policies. */
export function reference(value: unknown): { id: string; name: string } | null {
  const ref = value as { id?: unknown; summary?: unknown } | null | undefined;
  return typeof ref?.id === 'string'
    ? { id: ref.id, name: typeof ref.summary === 'string' ? ref.summary : '' }
    : null;
}
