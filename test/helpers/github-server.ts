/**
 * A loopback fake of the GitHub REST API for the GitHub tools' tests: the
 * documented shapes (test/helpers/github-fixtures.ts), `Link` pagination,
 * `x-ratelimit-*` headers on every answer, the error bodies (`message`,
 * `documentation_url`, `errors`), classic-token scopes (`x-oauth-scopes`,
 * `x-accepted-oauth-scopes`), organizations with their public repositories, and GitHub App auth: a JWT verified with the app's
 * public key exchanged for installation tokens that expire.
 */
import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type ApiRequest, type FakeApi, linkHeader, pageOf, startFakeApi } from './fake-api';
import { issue } from './github-fixtures';
import { sendJson } from './loopback-server';

/** What one repository holds. */
export interface FakeRepo {
  pulls: Record<string, unknown>[];
  commits: Record<string, unknown>[];
  deployments: { deployment: Record<string, unknown>; statuses: Record<string, unknown>[] }[];
  issues: Record<string, unknown>[];
  dependabot: Record<string, unknown>[] | 'disabled';
  codeScanning: Record<string, unknown>[] | 'disabled';
  secretScanning: Record<string, unknown>[] | 'disabled';
}

/** An empty repository. */
export function emptyRepo(): FakeRepo {
  return {
    pulls: [],
    commits: [],
    deployments: [],
    issues: [],
    dependabot: [],
    codeScanning: [],
    secretScanning: [],
  };
}

/** How the fake is set up. */
export interface GitHubServerOptions {
  /** Repositories by `owner/name`; an organization's are those whose owner is its login. */
  readonly repos?: Record<string, FakeRepo>;
  /** Scopes of the classic token (`x-oauth-scopes`). @default ['repo', 'security_events'] */
  readonly scopes?: readonly string[];
  /** Installation tokens' lifetime, ms. @default one hour, as GitHub's */
  readonly installationTokenTtlMs?: number;
  /** Requests per hour of the primary limit (`x-ratelimit-limit`). @default 5000 */
  readonly rateLimit?: number;
  /**
   * Organizations by login (`GET /orgs/{org}`, test/helpers/github-fixtures.ts
   * `organization`) with their repositories as listed (`GET /orgs/{org}/repos`,
   * `orgRepository`; `type` public/private and `sort=pushed` honoured). @default none
   */
  readonly orgs?: Record<string, { org: Record<string, unknown>; repos: Record<string, unknown>[] }>;
}

/** The running fake. */
export interface LocalGitHub extends FakeApi {
  /** `<url>`: what `GITHUB_API_URL` is set to. */
  readonly apiUrl: string;
  /** A classic personal access token it accepts. */
  readonly token: string;
  /** A GitHub App it knows: its id, installation id and private key (PEM). */
  readonly app: { readonly app_id: number; readonly installation_id: number; readonly private_key: string };
  /** Installation tokens issued so far, in order. */
  readonly installationTokens: string[];
  readonly repos: Record<string, FakeRepo>;
  /** Accept `token` as a classic token (a rotation); the old one keeps working unless revoked. */
  acceptToken(token: string): void;
  /** Refuse a token from now on (401 Bad credentials). */
  revoke(token: string): void;
  /** Sets what is left of the primary limit. */
  setRemaining(remaining: number, resetInSeconds?: number): void;
  /** The search API's next answers say `incomplete_results: true` (the query timed out, "Search" → "Timeouts and incomplete results"). */
  searchTimesOut(timesOut: boolean): void;
}

const documentation = (path: string) => `https://docs.github.com/rest${path}`;

/** A classic token's shape: `ghp_` and 36 characters. */
export function classicToken(): string {
  return `ghp_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`;
}

/**
 * Starts the fake.
 *
 * @example const github = await startGitHubServer({ repos: { 'octocat/Hello-World': repo } });
 */
export async function startGitHubServer(options: GitHubServerOptions = {}): Promise<LocalGitHub> {
  const repos = options.repos ?? {};
  const token = classicToken();
  const accepted = new Set([token]);
  const revoked = new Set<string>();
  const installations = new Map<string, number>();
  const installationTokens: string[] = [];
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const app = {
    app_id: 1234,
    installation_id: 5678,
    private_key: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
  const limit = options.rateLimit ?? 5000;
  let remaining = limit;
  let resetAt = Math.floor(Date.now() / 1000) + 3600;
  let apiUrl = '';

  const quotaHeaders = () => ({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(Math.max(0, remaining)),
    'x-ratelimit-reset': String(resetAt),
    'x-ratelimit-used': String(limit - remaining),
    'x-ratelimit-resource': 'core',
    'x-github-request-id': `CAFE:${randomBytes(4).toString('hex').toUpperCase()}`,
  });
  const send = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => sendJson(response, status, body, { ...quotaHeaders(), ...headers });

  /** The bearer of a request, and the scopes it has; undefined when refused. */
  const caller = (request: ApiRequest): { scopes: readonly string[] } | undefined => {
    const match = /^(?:Bearer|token)\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''));
    const presented = match?.[1];
    if (!presented || revoked.has(presented)) return undefined;
    if (accepted.has(presented)) return { scopes: options.scopes ?? ['repo', 'security_events'] };
    const expiresAt = installations.get(presented);
    if (expiresAt !== undefined && expiresAt > Date.now()) return { scopes: ['*'] };
    return undefined;
  };

  const verifyJwt = (request: ApiRequest): boolean => {
    const jwt = /^Bearer\s+(\S+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    const [header, payload, signature] = jwt?.split('.') ?? [];
    if (!header || !payload || !signature) return false;
    const valid = createVerify('RSA-SHA256')
      .update(`${header}.${payload}`)
      .verify(publicKey, Buffer.from(signature, 'base64url'));
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
      iss?: string;
      exp?: number;
      iat?: number;
    };
    const now = Date.now() / 1000;
    return (
      valid &&
      claims.iss === String(app.app_id) &&
      (claims.exp ?? 0) > now &&
      (claims.exp ?? 0) - (claims.iat ?? 0) <= 600
    );
  };

  /** A list answered page by page with `Link`. */
  let searchTimedOut = false;

  const list = (request: ApiRequest, response: ServerResponse, items: readonly unknown[]) => {
    const page = pageOf(items, request.query, { perPage: 30, maxPerPage: 100 });
    const link = linkHeader(`${apiUrl}${request.path}`, request.query, page.page, page.last);
    send(response, 200, page.items, link ? { link } : {});
  };

  const needsScope = (response: ServerResponse, has: readonly string[], needed: readonly string[]) => {
    if (has.includes('*') || needed.some((s) => has.includes(s))) return false;
    send(
      response,
      403,
      {
        message: 'Resource not accessible by personal access token',
        documentation_url: documentation(''),
        status: '403',
      },
      { 'x-oauth-scopes': has.join(', '), 'x-accepted-oauth-scopes': needed.join(', ') },
    );
    return true;
  };

  const alerts = (
    request: ApiRequest,
    response: ServerResponse,
    kind: 'dependabot' | 'codeScanning' | 'secretScanning',
    owned: FakeRepo[],
  ) => {
    const disabled = owned.some((r) => r[kind] === 'disabled');
    if (disabled) {
      const message =
        kind === 'codeScanning'
          ? 'Advanced Security must be enabled for this repository to use code scanning.'
          : kind === 'secretScanning'
            ? 'Secret scanning is disabled on this repository.'
            : 'Dependabot alerts are disabled for this repository.';
      return send(response, kind === 'codeScanning' ? 403 : 404, {
        message,
        documentation_url: documentation(''),
        status: '404',
      });
    }
    // Each list's own `state` query (REST reference): Dependabot a comma-separated list of
    // auto_dismissed, dismissed, fixed, open; code scanning one of open, closed (fixed or
    // dismissed), dismissed, fixed; secret scanning a comma-separated list of open, resolved.
    const state = request.query.get('state');
    const known = {
      dependabot: ['auto_dismissed', 'dismissed', 'fixed', 'open'],
      codeScanning: ['open', 'closed', 'dismissed', 'fixed'],
      secretScanning: ['open', 'resolved'],
    }[kind];
    const states = state === null ? [] : kind === 'codeScanning' ? [state] : state.split(',');
    if (states.some((s) => !known.includes(s))) {
      return send(response, 422, {
        message: `Invalid state: ${state}`,
        documentation_url: documentation(''),
        status: '422',
      });
    }
    // Secret scanning's `resolution`: a comma-separated list of false_positive, wont_fix,
    // revoked, pattern_edited, pattern_deleted, used_in_tests; 422 for anything else.
    const resolution = kind === 'secretScanning' ? request.query.get('resolution') : null;
    const resolutions = resolution === null ? [] : resolution.split(',');
    const knownResolutions = [
      'false_positive',
      'wont_fix',
      'revoked',
      'pattern_edited',
      'pattern_deleted',
      'used_in_tests',
    ];
    if (resolutions.some((r) => !knownResolutions.includes(r))) {
      return send(response, 422, {
        message: `Invalid resolution: ${resolution}`,
        documentation_url: documentation(''),
        status: '422',
      });
    }
    const wanted = states.flatMap((s) => (s === 'closed' ? ['fixed', 'dismissed'] : [s]));
    const all = owned
      .flatMap((r) => r[kind] as Record<string, unknown>[])
      .filter((a) => wanted.length === 0 || wanted.includes(String(a.state)))
      .filter((a) => resolutions.length === 0 || resolutions.includes(String(a.resolution)));
    list(request, response, all);
  };

  const route = async (request: ApiRequest, response: ServerResponse): Promise<boolean> => {
    remaining--;
    if (request.method === 'POST' && /^\/app\/installations\/\d+\/access_tokens$/.test(request.path)) {
      if (!verifyJwt(request)) {
        send(response, 401, {
          message: 'A JSON web token could not be decoded',
          documentation_url: documentation(''),
          status: '401',
        });
        return true;
      }
      if (request.path !== `/app/installations/${app.installation_id}/access_tokens`) return false;
      const issued = `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'y').slice(0, 36)}`;
      const expiresAt = Date.now() + (options.installationTokenTtlMs ?? 3_600_000);
      installations.set(issued, expiresAt);
      installationTokens.push(issued);
      send(response, 201, {
        token: issued,
        expires_at: new Date(expiresAt).toISOString(),
        permissions: { issues: 'write', contents: 'read' },
        repository_selection: 'all',
      });
      return true;
    }
    const who = caller(request);
    if (!who) {
      send(response, 401, {
        message: 'Bad credentials',
        documentation_url: 'https://docs.github.com/rest',
        status: '401',
      });
      return true;
    }
    const orgAlerts = /^\/orgs\/([^/]+)\/(dependabot|code-scanning|secret-scanning)\/alerts$/.exec(
      request.path,
    );
    if (orgAlerts && request.method === 'GET') {
      const owned = Object.entries(repos)
        .filter(([name]) => name.split('/')[0] === orgAlerts[1])
        .map(([, r]) => r);
      if (owned.length === 0) return false;
      const kind =
        orgAlerts[2] === 'dependabot'
          ? 'dependabot'
          : orgAlerts[2] === 'code-scanning'
            ? 'codeScanning'
            : 'secretScanning';
      if (
        needsScope(
          response,
          who.scopes,
          kind === 'secretScanning' ? ['repo', 'security_events'] : ['security_events'],
        )
      )
        return true;
      alerts(request, response, kind, owned);
      return true;
    }
    const orgPath = /^\/orgs\/([^/]+)(\/repos)?$/.exec(request.path);
    const org = orgPath ? options.orgs?.[decodeURIComponent(orgPath[1] as string)] : undefined;
    if (orgPath && request.method === 'GET') {
      if (!org) {
        // A login that is no organization (a user's, or none): "Get an organization" answers 404.
        send(response, 404, {
          message: 'Not Found',
          documentation_url: documentation('/orgs/orgs#get-an-organization'),
          status: '404',
        });
        return true;
      }
      if (!orgPath[2]) {
        send(response, 200, org.org);
        return true;
      }
      const type = request.query.get('type') ?? 'all';
      const byPush = (a: Record<string, unknown>, b: Record<string, unknown>) =>
        Date.parse(String(b.pushed_at)) - Date.parse(String(a.pushed_at));
      const listed = org.repos.filter((r) => type === 'all' || (type === 'public') === (r.private !== true));
      list(request, response, request.query.get('sort') === 'pushed' ? [...listed].sort(byPush) : listed);
      return true;
    }
    if (request.path === '/search/issues' && request.method === 'GET') {
      const q = request.query.get('q') ?? '';
      const org = /org:(\S+)/.exec(q)?.[1];
      const bounds = (/merged:(\S+)\.\.(\S+)/.exec(q) ?? []).slice(1);
      // "Query by dates": YYYY-MM-DD, optionally THH:MM:SS and a UTC offset; anything else is refused.
      if (bounds.some((t) => !/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2}|Z))?$/.test(t ?? ''))) {
        send(response, 422, {
          message: 'Validation Failed',
          documentation_url: documentation(''),
          status: '422',
        });
        return true;
      }
      const [from, to] = bounds.map((t) => Date.parse(t ?? ''));
      const items = Object.entries(repos)
        .filter(([name]) => name.split('/')[0] === org)
        .flatMap(([name, r]) =>
          r.pulls
            .filter(
              (p) =>
                typeof p.merged_at === 'string' &&
                Date.parse(p.merged_at) >= (from ?? 0) &&
                Date.parse(p.merged_at) <= (to ?? Infinity),
            )
            .map((p) => ({
              ...p,
              repository_url: `https://api.github.com/repos/${name}`,
              pull_request: { merged_at: p.merged_at },
            })),
        );
      // "Search": up to 1,000 results for each search; the pages stop there, total_count does not.
      const page = pageOf(items.slice(0, 1_000), request.query, { perPage: 30, maxPerPage: 100 });
      if ((page.page - 1) * page.perPage >= 1_000) {
        send(response, 422, {
          message: 'Only the first 1000 search results are available',
          documentation_url: documentation('/search/search#about-search'),
          status: '422',
        });
        return true;
      }
      const link = linkHeader(`${apiUrl}${request.path}`, request.query, page.page, page.last);
      send(
        response,
        200,
        { total_count: items.length, incomplete_results: searchTimedOut, items: page.items },
        link ? { link } : {},
      );
      return true;
    }
    const match = /^\/repos\/([^/]+\/[^/]+)(\/.*)?$/.exec(request.path);
    const repo = match ? repos[match[1] as string] : undefined;
    if (!match || !repo) return false;
    const rest = match[2] ?? '';
    const name = match[1] as string;
    if (rest === '/pulls' && request.method === 'GET') {
      if (needsScope(response, who.scopes, ['repo'])) return true;
      const base = request.query.get('base');
      const state = request.query.get('state') ?? 'open';
      const pulls = repo.pulls
        .filter(
          (p) =>
            (state === 'all' || p.state === state) && (!base || (p.base as { ref: string }).ref === base),
        )
        .sort((a, b) => Date.parse(String(b.updated_at)) - Date.parse(String(a.updated_at)));
      list(request, response, pulls);
      return true;
    }
    if (rest === '/commits' && request.method === 'GET') {
      const since = Date.parse(request.query.get('since') ?? '') || 0;
      const until = Date.parse(request.query.get('until') ?? '') || Number.POSITIVE_INFINITY;
      const date = (c: Record<string, unknown>) =>
        Date.parse((c.commit as { committer: { date: string } }).committer.date);
      list(
        request,
        response,
        repo.commits.filter((c) => date(c) >= since && date(c) <= until).sort((a, b) => date(b) - date(a)),
      );
      return true;
    }
    if (rest === '/deployments' && request.method === 'GET') {
      const environment = request.query.get('environment');
      const deployments = repo.deployments
        .map((d) => d.deployment)
        .filter((d) => !environment || d.environment === environment)
        .sort((a, b) => Date.parse(String(b.created_at)) - Date.parse(String(a.created_at)));
      list(request, response, deployments);
      return true;
    }
    const statuses = /^\/deployments\/(\d+)\/statuses$/.exec(rest);
    if (statuses && request.method === 'GET') {
      const found = repo.deployments.find((d) => String(d.deployment.id) === statuses[1]);
      if (!found) return false;
      list(request, response, [...found.statuses].reverse());
      return true;
    }
    const alertKind = /^\/(dependabot|code-scanning|secret-scanning)\/alerts$/.exec(rest)?.[1];
    if (alertKind && request.method === 'GET') {
      const kind =
        alertKind === 'dependabot'
          ? 'dependabot'
          : alertKind === 'code-scanning'
            ? 'codeScanning'
            : 'secretScanning';
      if (
        needsScope(
          response,
          who.scopes,
          kind === 'secretScanning' ? ['repo', 'security_events'] : ['security_events'],
        )
      )
        return true;
      alerts(request, response, kind, [repo]);
      return true;
    }
    if (rest === '/issues' && request.method === 'POST') {
      if (needsScope(response, who.scopes, ['repo', 'public_repo'])) return true;
      const body = JSON.parse(request.body || '{}') as {
        title?: unknown;
        body?: unknown;
        labels?: string[];
        assignees?: string[];
      };
      if (typeof body.title !== 'string' || body.title === '') {
        send(response, 422, {
          message: 'Validation Failed',
          errors: [{ resource: 'Issue', code: 'missing_field', field: 'title' }],
          documentation_url: documentation('/issues/issues#create-an-issue'),
          status: '422',
        });
        return true;
      }
      const unknownAssignee = (body.assignees ?? []).find((a) => a === 'ghost');
      if (unknownAssignee) {
        send(response, 422, {
          message: 'Validation Failed',
          errors: [{ value: unknownAssignee, resource: 'Issue', field: 'assignees', code: 'invalid' }],
          documentation_url: documentation('/issues/issues#create-an-issue'),
          status: '422',
        });
        return true;
      }
      const created = issue(name, repo.issues.length + 1, {
        title: body.title,
        body: typeof body.body === 'string' ? body.body : '',
        labels: body.labels ?? [],
        assignees: body.assignees ?? [],
        createdAt: new Date().toISOString(),
      });
      repo.issues.push(created);
      send(response, 201, created, { location: String(created.url) });
      return true;
    }
    if (rest === '/issues' && request.method === 'GET') {
      const since = Date.parse(request.query.get('since') ?? '') || 0;
      const issues = repo.issues
        .filter((i) => Date.parse(String(i.updated_at)) >= since)
        .sort((a, b) => Date.parse(String(b.created_at)) - Date.parse(String(a.created_at)));
      list(request, response, issues);
      return true;
    }
    return false;
  };

  const api = await startFakeApi(route, (response) =>
    send(response, 404, {
      message: 'Not Found',
      documentation_url: 'https://docs.github.com/rest',
      status: '404',
    }),
  );
  apiUrl = api.url;
  return {
    ...api,
    apiUrl: api.url,
    token,
    app,
    installationTokens,
    repos,
    acceptToken: (next) => {
      accepted.add(next);
    },
    revoke: (old) => {
      revoked.add(old);
    },
    setRemaining: (next, resetInSeconds = 3600) => {
      remaining = next;
      resetAt = Math.floor(Date.now() / 1000) + resetInSeconds;
    },
    searchTimesOut: (timesOut) => {
      searchTimedOut = timesOut;
    },
  };
}
