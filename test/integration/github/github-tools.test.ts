/**
 * The GitHub tools against the loopback GitHub (test/helpers/github-server.ts):
 * each tool's happy path and error kinds, `Link` pagination over pages with the
 * page budget, 429 and the secondary limit, a spent primary quota, the renewal
 * after a 401 (a rotated token, an installation token), the installation token
 * cache, and exactly one issue through a lost answer and a reset connection.
 */

import { InMemoryIdempotencyStore } from '../../../functions/runtime/idempotency-layers';
import type { ToolResult } from '../../../functions/runtime/result';
import type { Tool } from '../../../functions/runtime/spec';
import { clearInstallationTokens } from '../../../functions/tools/github/app-auth';
import { githubCreateIssueTool } from '../../../functions/tools/github/create-issue';
import { githubMergedPullsTool } from '../../../functions/tools/github/merged-pulls';
import { githubRecentChangesTool } from '../../../functions/tools/github/recent-changes';
import { RECENT_DEPLOYMENTS_MAX } from '../../../functions/tools/github/recent-changes.meta';
import { githubSecurityAlertsTool } from '../../../functions/tools/github/security-alerts';
import {
  codeScanningAlert,
  commit,
  dependabotAlert,
  deployment,
  deploymentStatus,
  organization,
  orgRepository,
  pullRequest,
  secretScanningAlert,
} from '../../helpers/github-fixtures';
import {
  classicToken,
  emptyRepo,
  type FakeRepo,
  type LocalGitHub,
  startGitHubServer,
} from '../../helpers/github-server';
import { ANSWER_AFTER_TIMEOUT, LATE_ANSWER_BUDGET_MS } from '../../helpers/loopback-server';
import type { RequestCase, RequestCaseWorld } from '../../helpers/request-case';
import { callRestTool, type RestSecrets, restSecrets, useQuietRestCalls } from '../../helpers/rest-tool';

const REPO = 'octocat/Hello-World';
const HOUR = 3_600_000;
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
/** 50 minutes ago: two pull requests merged since (0 and 30 minutes ago). */
const RECENT = iso(NOW - 50 * 60_000);
/** The value a secret scanning alert holds: never in any result. */
const LEAKED = 'aio_Fa1seLeakedAdafruitKey0123456789';

function world(): Record<string, FakeRepo> {
  const repo = emptyRepo();
  // 60 closed pull requests, one updated every 10 minutes back from now; every third merged.
  for (let i = 0; i < 60; i++) {
    const at = NOW - i * 10 * 60_000;
    repo.pulls.push(
      pullRequest(REPO, 1400 - i, {
        merged_at: i % 3 === 0 ? iso(at) : null,
        updated_at: iso(at),
        base: i % 2 ? 'main' : 'master',
      }),
    );
  }
  for (let i = 0; i < 12; i++) repo.commits.push(commit(REPO, i, iso(NOW - i * 20 * 60_000), `Fix bug ${i}`));
  for (let i = 0; i < 4; i++) {
    const at = NOW - (i * 2 + 1) * HOUR;
    repo.deployments.push({
      deployment: deployment(REPO, 100 + i, iso(at)),
      statuses: [deploymentStatus(REPO, 100 + i, i === 0 ? 'failure' : 'success', iso(at + 60_000))],
    });
  }
  repo.dependabot = [
    dependabotAlert(REPO, 1, 'low'),
    dependabotAlert(REPO, 2, 'critical'),
    dependabotAlert(REPO, 3, 'high'),
  ];
  repo.codeScanning = [codeScanningAlert(REPO, 7, 'medium')];
  repo.secretScanning = [secretScanningAlert(REPO, 2, LEAKED)];
  const other = emptyRepo();
  other.pulls.push(
    pullRequest('octocat/Spoon-Knife', 9, { merged_at: iso(NOW - HOUR), updated_at: iso(NOW - HOUR) }),
  );
  other.codeScanning = 'disabled';
  return { [REPO]: repo, 'octocat/Spoon-Knife': other };
}

/** A GitHub fake holding {@link world} and a public organization of 40 repositories, for one request case. */
async function requestCaseWorld(): Promise<RequestCaseWorld> {
  clearInstallationTokens();
  const repos = Array.from({ length: 40 }, (_, n) =>
    orgRepository('biglytics', n, iso(NOW - (n + 1) * HOUR)),
  );
  const fake = await startGitHubServer({
    repos: world(),
    orgs: { biglytics: { org: organization('biglytics', { public_repos: 40 }), repos } },
  });
  process.env.GITHUB_API_URL = fake.apiUrl;
  return {
    secrets: { github_default: { token: fake.token } },
    stop: async () => {
      delete process.env.GITHUB_API_URL;
      await fake.stop();
    },
  };
}

/** Pages one GitHub read may take (docs/github.md, "Limits": at most 5 pages of 100 per read). */
const GITHUB_READ_PAGES = 5;

/** Each tool's typical call and its request ceiling (`npm run bench`, "API requests per call"). */
// biome-ignore lint/suspicious/noExportsInTest: the tools' request cases, read by bench/rest-request-cases.ts (the bench, test/integration/http/rest-request-cases.test.ts)
export const requestCases: readonly RequestCase[] = [
  {
    tool: 'github_merged_pulls',
    call: 'one repository, 6 hours: 12 merged of 36 closed pull requests',
    args: { repo: REPO, lookback_hours: 6 },
    ceiling: GITHUB_READ_PAGES,
    ceilingSource: 'at most 5 pages (the spec\'s description; docs/github.md, "Limits")',
    start: requestCaseWorld,
  },
  {
    tool: 'github_recent_changes',
    call: 'one repository, 6 hours: 12 commits, 3 deployments with their statuses',
    args: { repo: REPO, lookback_hours: 6 },
    ceiling: 2 * GITHUB_READ_PAGES + RECENT_DEPLOYMENTS_MAX,
    ceilingSource: `commits ≤ 5 pages + deployments ≤ 5 pages + 1 status request per deployment (≤ ${RECENT_DEPLOYMENTS_MAX}; the spec)`,
    start: requestCaseWorld,
  },
  {
    tool: 'github_security_alerts',
    call: 'one repository: 3 Dependabot, 1 code scanning, 1 secret scanning alert',
    args: { repo: REPO },
    ceiling: 3 * GITHUB_READ_PAGES,
    ceilingSource: 'three kinds, each ≤ 5 pages (500 alerts counted per kind; docs/github.md, "Limits")',
    start: requestCaseWorld,
  },
  {
    tool: 'github_create_issue',
    call: 'one issue, its answer received',
    args: {
      repo: REPO,
      title: 'Incident INC-1234: checkout errors',
      body: 'Triage: rollback of deploy 100.',
    },
    ceiling: 1,
    ceilingSource: 'POST …/issues once; the lookup of recent issues (≤ 3 pages) only after a lost answer',
    start: requestCaseWorld,
  },
  {
    tool: 'github_org_facts',
    call: 'one organization of 40 public repositories, the 10 pushed last',
    args: { org: 'biglytics', recent_repos: 10 },
    ceiling: 1 + GITHUB_READ_PAGES,
    ceilingSource:
      '"Get an organization" 1 + repositories ≤ 5 pages (the spec\'s description; docs/github.md)',
    start: requestCaseWorld,
  },
];

let github: LocalGitHub;
let secrets: RestSecrets;
const quiet = useQuietRestCalls();
const asTool = (tool: unknown) => tool as Tool;

let running = false;

async function start(options: Parameters<typeof startGitHubServer>[0] = {}) {
  if (running) await github.stop();
  running = true;
  github = await startGitHubServer({ repos: world(), ...options });
  process.env.GITHUB_API_URL = github.apiUrl;
  secrets = restSecrets({ github_default: { token: github.token } });
}

beforeEach(async () => {
  clearInstallationTokens();
  await start();
});
afterEach(async () => {
  delete process.env.GITHUB_API_URL;
  running = false;
  await github.stop();
});

const call = (tool: unknown, args: unknown, options: Parameters<typeof callRestTool>[3] = {}) =>
  callRestTool(asTool(tool), args, secrets, options);
const value = (result: ToolResult) => {
  if (!result.ok) throw new Error(`expected a success, got ${JSON.stringify(result.error)}`);
  return result.value as Record<string, unknown>;
};

describe('github_merged_pulls', () => {
  it('lists pull requests merged in the window, newest first, with the documented fields only', async () => {
    const result = await call(githubMergedPullsTool, { repo: REPO, since: iso(NOW - 2 * HOUR), limit: 100 });
    const pulls = value(result).pulls as Record<string, unknown>[];
    // Merged every 30 minutes: at 0, 30, 60, 90 minutes ago (120 is at the edge, included when merged at since).
    expect(pulls.map((p) => p.number)).toEqual([1400, 1397, 1394, 1391, 1388]);
    expect(pulls[0]).toEqual({
      repo: REPO,
      number: 1400,
      title: 'Amazing new feature #1400',
      author: 'octocat',
      merged_at: expect.any(String),
      base: 'master',
      merge_commit_sha: 'e5bd3914e2e596debea16f433f57875b5b91400',
      labels: ['bug'],
      url: `https://github.com/${REPO}/pull/1400`,
    });
    expect(JSON.stringify(result)).not.toContain('Please pull these awesome changes in!');
    expect(value(result)).toMatchObject({ complete: true, next_cursor: null });
    // The API version header and user agent on every request.
    expect(github.requests[0]?.headers['x-github-api-version']).toBe('2022-11-28');
    expect(github.requests[0]?.headers['user-agent']).toBe('external-tools-platform');
  });

  it('pages with Link over three pages, then stops at its limit with a cursor that resumes', async () => {
    const result = await call(githubMergedPullsTool, { repo: REPO, since: iso(NOW - 24 * HOUR), limit: 4 });
    // Pages of 4, a third merged: 4 merged after 3 pages (12 pull requests, 4 merged).
    expect(value(result)).toMatchObject({ count: 4, complete: false, stopped_by: 'enough' });
    expect(github.requests.map((r) => r.query.get('page') ?? '1')).toEqual(['1', '2', '3']);
    const next = value(result).next_cursor as string;
    const rest = await call(githubMergedPullsTool, {
      repo: REPO,
      since: iso(NOW - 24 * HOUR),
      limit: 4,
      cursor: next,
    });
    expect((value(rest).pulls as { number: number }[])[0]?.number).toBe(1388);
  });

  it('stops at the page budget (5 pages) and says so, truncated', async () => {
    // Only the oldest pull requests are in the window: every page read, none past it yet.
    const result = await call(githubMergedPullsTool, {
      repo: REPO,
      since: iso(NOW - 24 * HOUR),
      until: iso(NOW - 9 * HOUR),
      limit: 2,
    });
    expect(value(result)).toMatchObject({ count: 0, complete: false, stopped_by: 'max_pages' });
    expect(result).toMatchObject({ truncated: true });
    expect(github.requests).toHaveLength(5);
  });

  it('an organization through the search API', async () => {
    const result = await call(githubMergedPullsTool, {
      org: 'octocat',
      since: iso(NOW - 90 * 60_000),
      limit: 50,
    });
    const pulls = value(result).pulls as { repo: string; number: number }[];
    expect(pulls.map((p) => `${p.repo}#${p.number}`).sort()).toEqual(
      [
        'octocat/Hello-World#1391',
        'octocat/Hello-World#1394',
        'octocat/Hello-World#1397',
        'octocat/Hello-World#1400',
        'octocat/Spoon-Knife#9',
      ].sort(),
    );
    expect(github.requests[0]?.query.get('q')).toMatch(/^org:octocat is:pr is:merged merged:\S+\.\.\S+$/);
  });

  it('sends the search window in whole seconds with a UTC offset, as the search syntax takes dates', async () => {
    const result = await call(githubMergedPullsTool, {
      org: 'octocat',
      since: '2026-03-01T10:00:00.250Z',
      until: '2026-03-02T10:00:00.250Z',
    });
    expect(result).toMatchObject({ ok: true });
    expect(github.requests[0]?.query.get('q')).toBe(
      'org:octocat is:pr is:merged merged:2026-03-01T10:00:00+00:00..2026-03-02T10:00:01+00:00',
    );
  });

  it('a search past its 1,000 results is not complete: stopped_by window, total_count said', async () => {
    const many = emptyRepo();
    for (let i = 0; i < 1_200; i++) {
      const at = iso(NOW - (i + 1) * 60_000);
      many.pulls.push(pullRequest('octocat/many', 5_000 + i, { merged_at: at, updated_at: at }));
    }
    github.repos['octocat/many'] = many;
    const since = NOW - 30 * HOUR;
    const args = { org: 'octocat', since: iso(since), limit: 100 };
    const matches = Object.entries(github.repos)
      .filter(([name]) => name.startsWith('octocat/'))
      .flatMap(([, r]) => r.pulls)
      .filter((p) => typeof p.merged_at === 'string' && Date.parse(p.merged_at) >= since).length;
    expect(matches).toBeGreaterThan(1_200);
    const first = value(await call(githubMergedPullsTool, args));
    expect(first).toMatchObject({ complete: false, stopped_by: 'enough', total_count: matches });

    // The last page the API serves (1,000 results: page 10 of 100).
    const cursor = (first.next_cursor as string).replace(/([?&])page=2(&|$)/, '$1page=10$2');
    const result = await call(githubMergedPullsTool, { ...args, cursor });
    expect(value(result)).toMatchObject({
      count: 100,
      complete: false,
      stopped_by: 'window',
      next_cursor: null,
      total_count: matches,
    });
    expect(result).toMatchObject({ truncated: true, summary: expect.stringContaining('narrow the window') });
  });

  it('a search answered incomplete_results (timed out) is not complete', async () => {
    github.searchTimesOut(true);
    const result = await call(githubMergedPullsTool, { org: 'octocat', since: iso(NOW - 90 * 60_000) });
    expect(value(result)).toMatchObject({ count: 5, complete: false, incomplete_results: true });
    expect(result).toMatchObject({ truncated: true });
  });

  it('refuses bad arguments before any request', async () => {
    for (const args of [
      { repo: 'not a repo', since: iso(NOW) },
      { repo: REPO, org: 'octocat', since: iso(NOW) },
      { since: iso(NOW) },
      { repo: REPO, since: iso(NOW), until: iso(NOW - HOUR) },
      { repo: REPO, since: 'yesterday' },
      { repo: REPO, since: iso(NOW), cursor: '/repos/octocat/Hello-World/issues?page=2' },
    ]) {
      expect(await call(githubMergedPullsTool, args)).toMatchObject({
        ok: false,
        error: { code: 'invalid_args' },
      });
    }
    expect(github.requests).toHaveLength(0);
  });

  it('404 for an unknown repository is not_found and says GitHub hides what the token cannot see', async () => {
    const result = await call(githubMergedPullsTool, { repo: 'octocat/nope', since: RECENT });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'not_found',
        service: 'github',
        details: { httpStatusCode: 404, apiMessage: 'Not Found' },
      },
    });
    expect(!result.ok && result.error.message).toMatch(/also answers 404/);
    expect(!result.ok && result.error.details?.requestId).toMatch(/^CAFE:/);
  });

  it('403 without the repo scope is access_denied naming the scope', async () => {
    await start({ scopes: ['read:org'] });
    const result = await call(githubMergedPullsTool, { repo: REPO, since: RECENT });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'access_denied', details: { missingScope: 'one of the scopes repo' } },
    });
  });

  it('429 then success', async () => {
    github.failNext({
      status: 429,
      body: { message: 'API rate limit exceeded' },
      headers: { 'retry-after': '1' },
    });
    const result = await call(githubMergedPullsTool, { repo: REPO, since: RECENT });
    expect(value(result).count).toBe(2);
    expect(github.requests).toHaveLength(2);
  });

  it('the secondary rate limit (403, Retry-After) is waited out, then success', async () => {
    github.failNext({
      status: 403,
      body: {
        message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        documentation_url:
          'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
      },
      headers: { 'retry-after': '1' },
    });
    const result = await call(githubMergedPullsTool, { repo: REPO, since: RECENT });
    expect(value(result).count).toBe(2);
  });

  it('the secondary rate limit longer than the call: throttled with retryAfterMs, not access_denied', async () => {
    github.failNext({ status: 403, body: { message: 'You have exceeded a secondary rate limit.' } }, 5);
    const result = await call(githubMergedPullsTool, { repo: REPO, since: RECENT }, { budgetMs: 5_000 });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'throttled', retryable: true, details: { retryAfterMs: 60_000 } },
    });
  });

  it('a primary limit answered 429 (x-ratelimit-remaining 0) is not sent again before x-ratelimit-reset', async () => {
    const reset = Math.ceil(Date.now() / 1000) + 1_800;
    github.failNext(
      {
        status: 429,
        body: { message: 'API rate limit exceeded for user ID 1.' },
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      },
      5,
    );
    const result = await call(githubMergedPullsTool, { repo: REPO, since: RECENT }, { budgetMs: 5_000 });
    expect(result).toMatchObject({ ok: false, error: { code: 'throttled', retryable: true } });
    const { retryAfterMs } = (result as unknown as { error: { details: { retryAfterMs: number } } }).error
      .details;
    expect(retryAfterMs).toBeGreaterThan(1_790_000);
    expect(retryAfterMs).toBeLessThanOrEqual(1_801_000);
    // One request: a retry before the reset only earns another refusal ("Exceeding the rate limit").
    expect(github.requests).toHaveLength(1);
  });

  it('a secondary limit answered 429 without Retry-After waits at least a minute, not a backoff', async () => {
    github.failNext({ status: 429, body: { message: 'You have exceeded a secondary rate limit.' } }, 5);
    const result = await call(githubMergedPullsTool, { repo: REPO, since: RECENT }, { budgetMs: 5_000 });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'throttled', details: { retryAfterMs: 60_000 } },
    });
    expect(github.requests).toHaveLength(1);
  });

  it('a secondary limit with x-ratelimit-remaining 0 and no Retry-After waits for x-ratelimit-reset', async () => {
    const reset = Math.ceil(Date.now() / 1000) + 900;
    github.failNext(
      {
        status: 403,
        body: { message: 'You have exceeded a secondary rate limit.' },
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      },
      5,
    );
    const result = await call(githubMergedPullsTool, { repo: REPO, since: RECENT }, { budgetMs: 5_000 });
    expect(result).toMatchObject({ ok: false, error: { code: 'throttled' } });
    const { retryAfterMs } = (result as unknown as { error: { details: { retryAfterMs: number } } }).error
      .details;
    expect(retryAfterMs).toBeGreaterThan(890_000);
    expect(retryAfterMs).toBeLessThanOrEqual(901_000);
  });

  it('a secondary limit after some pages returns the pages read with a cursor, never nothing', async () => {
    github.failNext(
      {
        status: 429,
        body: { message: 'You have exceeded a secondary rate limit.' },
        headers: { 'retry-after': '120' },
      },
      5,
      { path: /pulls/, after: 1 },
    );
    const result = await call(
      githubMergedPullsTool,
      { repo: REPO, since: iso(NOW - 24 * HOUR), limit: 4 },
      { budgetMs: 5_000 },
    );
    expect(value(result)).toMatchObject({
      count: 2,
      complete: false,
      stopped_by: 'throttled',
      retry_after_ms: 120_000,
      next_cursor: expect.stringContaining('page=2'),
    });
    expect(result).toMatchObject({ truncated: true });
  });

  it('a spent primary quota (x-ratelimit-remaining 0) is refused before sending when its reset is far', async () => {
    github.setRemaining(1, 1_800);
    const result = await call(
      githubMergedPullsTool,
      { repo: REPO, since: iso(NOW - 24 * HOUR), limit: 4 },
      { budgetMs: 5_000 },
    );
    // Page 1 is read (leaving 0); page 2 is not sent: what was read comes back with its cursor.
    expect(value(result)).toMatchObject({
      stopped_by: 'throttled',
      next_cursor: expect.stringContaining('page=2'),
    });
    expect(value(result).retry_after_ms as number).toBeGreaterThan(1_700_000);
    expect(github.requests).toHaveLength(1);
  });
});

describe('auth', () => {
  it('a rotated token: 401, the secret read again, the request repeated once with the new token', async () => {
    const args = { repo: REPO, since: RECENT };
    expect(value(await call(githubMergedPullsTool, args)).count).toBe(2);
    const rotated = classicToken();
    github.acceptToken(rotated);
    github.revoke(github.token);
    secrets.set('github_default', { token: rotated });
    const before = github.requests.length;
    expect(value(await call(githubMergedPullsTool, args)).count).toBe(2);
    expect(github.requests.slice(before).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${github.token}`,
      `Bearer ${rotated}`,
    ]);
  });

  it('a revoked token that was not rotated: auth_failed, the token never shown', async () => {
    github.revoke(github.token);
    const result = await call(githubMergedPullsTool, { repo: REPO, since: RECENT });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'auth_failed', details: { apiMessage: 'Bad credentials' } },
    });
    expect(JSON.stringify(result)).not.toContain(github.token);
  });

  it('a GitHub App: one installation token for several calls, renewed after a 401', async () => {
    secrets.set('github_default', github.app);
    const args = { repo: REPO, since: RECENT };
    expect(value(await call(githubMergedPullsTool, args)).count).toBe(2);
    expect(value(await call(githubMergedPullsTool, args)).count).toBe(2);
    expect(github.installationTokens).toHaveLength(1);
    github.revoke(github.installationTokens[0] as string);
    const result = await call(githubMergedPullsTool, args);
    expect(value(result).count).toBe(2);
    expect(github.installationTokens).toHaveLength(2);
    expect(JSON.stringify(result)).not.toContain(github.installationTokens[1]);
    expect(quiet.logs()).not.toContain(github.installationTokens[1] as string);
  });

  it('an installation token close to its expiry is renewed before use', async () => {
    await start({ installationTokenTtlMs: 4 * 60_000 });
    secrets.set('github_default', github.app);
    const args = { repo: REPO, since: RECENT };
    await call(githubMergedPullsTool, args);
    await call(githubMergedPullsTool, args);
    // Within the 5-minute renewal margin from the start: each call exchanges again.
    expect(github.installationTokens).toHaveLength(2);
  });

  it.each([
    [{}, /invalid in: .*Accepted: \{ "token"/],
    // Too short: the reason and the accepted length, never the value.
    [
      { token: 'short' },
      /invalid in: token \(a token of 20-255 characters without white space: ghp_…, github_pat_…\)\. Accepted: /,
    ],
    [{ app_id: 1, installation_id: 2, private_key: 'not a key' }, /private_key/],
    [
      {
        app_id: 1,
        installation_id: 2,
        private_key: '-----BEGIN RSA PRIVATE KEY-----\ngarbage\n-----END RSA PRIVATE KEY-----',
      },
      /not a readable PEM/,
    ],
  ])(
    'refuses the secret %j, naming what is wrong, before any request to the API',
    async (secret, message) => {
      secrets.set('github_default', secret);
      const result = await call(githubMergedPullsTool, { repo: REPO, since: RECENT });
      expect(result).toMatchObject({ ok: false, error: { code: 'secret_invalid', service: 'github' } });
      expect(!result.ok && result.error.message).toMatch(message);
      expect(github.requests).toHaveLength(0);
    },
  );
});

describe('github_recent_changes', () => {
  it('commits and deployments in the window, with the latest deployment status', async () => {
    const result = await call(githubRecentChangesTool, {
      repo: REPO,
      since: iso(NOW - 4 * HOUR),
      environment: 'production',
    });
    const changes = value(result);
    expect((changes.commits as unknown[]).length).toBe(12);
    expect((changes.commits as Record<string, unknown>[])[0]).toEqual({
      sha: '6dcb09b5b57875f334f61aebed695e2e41000000',
      subject: 'Fix bug 0',
      author: 'octocat',
      committed_at: expect.any(String),
      url: `https://github.com/${REPO}/commit/6dcb09b5b57875f334f61aebed695e2e41000000`,
    });
    expect(changes.deployments).toEqual([
      expect.objectContaining({
        id: 100,
        environment: 'production',
        state: 'failure',
        creator: 'octocat',
        ref: 'topic-branch',
      }),
      expect.objectContaining({ id: 101, state: 'success' }),
    ]);
    expect(JSON.stringify(result)).not.toMatch(/support@github\.com|longer explanation/);
  });
});

describe('github_security_alerts', () => {
  it('counts by severity, most severe first, and never the leaked secret', async () => {
    const result = await call(githubSecurityAlertsTool, { repo: REPO });
    const kinds = value(result).kinds as Record<string, Record<string, unknown>>;
    expect(kinds.dependabot).toMatchObject({
      count: 3,
      by_severity: { low: 1, critical: 1, high: 1 },
      counted_all: true,
    });
    expect((kinds.dependabot?.top as { severity: string }[] | undefined)?.map((a) => a.severity)).toEqual([
      'critical',
      'high',
      'low',
    ]);
    expect(kinds.code_scanning).toMatchObject({
      count: 1,
      top: [expect.objectContaining({ subject: 'CodeQL js/zipslip', path: 'spec-main/api-session-spec.ts' })],
    });
    expect(kinds.secret_scanning).toMatchObject({ count: 1, by_secret_type: { 'Adafruit IO Key': 1 } });
    expect(JSON.stringify(result)).not.toContain(LEAKED);
  });

  it("each state is sent in each kind's own state query: resolved is every alert no longer open", async () => {
    const alerts = github.repos[REPO] as unknown as Record<string, { state: string }[]>;
    const setState = (kind: string, index: number, state: string) =>
      Object.assign(alerts[kind]?.[index] ?? {}, { state });
    setState('dependabot', 0, 'fixed');
    setState('dependabot', 1, 'auto_dismissed');
    setState('codeScanning', 0, 'dismissed');
    setState('secretScanning', 0, 'resolved');

    const result = await call(githubSecurityAlertsTool, { repo: REPO, state: 'resolved' });
    const kinds = value(result).kinds as Record<string, Record<string, unknown>>;

    expect(kinds.dependabot).toMatchObject({ count: 2, counted_all: true });
    expect(kinds.code_scanning).toMatchObject({ count: 1, counted_all: true });
    expect(kinds.secret_scanning).toMatchObject({ count: 1, counted_all: true });
    expect(
      github.requests.map((r) => `${r.path.split('/').slice(-2).join('/')}?${r.query.get('state')}`),
    ).toEqual([
      'dependabot/alerts?fixed,dismissed,auto_dismissed',
      'code-scanning/alerts?closed',
      'secret-scanning/alerts?resolved',
    ]);
    expect(result).toMatchObject({ truncated: false });
  });

  it('dependabot dismissed counts an alert an auto-triage rule dismissed (auto_dismissed), as resolved does', async () => {
    const alerts = github.repos[REPO] as unknown as Record<string, { state: string }[]>;
    Object.assign(alerts.dependabot?.[0] ?? {}, { state: 'dismissed' });
    Object.assign(alerts.dependabot?.[1] ?? {}, { state: 'auto_dismissed' });

    const result = await call(githubSecurityAlertsTool, {
      repo: REPO,
      kinds: ['dependabot'],
      state: 'dismissed',
    });
    const kinds = value(result).kinds as Record<string, Record<string, unknown>>;

    expect(kinds.dependabot).toMatchObject({ count: 2, counted_all: true });
    expect(github.requests.map((r) => r.query.get('state'))).toEqual(['dismissed,auto_dismissed']);
  });

  it.each([
    ['fixed', 'revoked', 1],
    ['dismissed', 'false_positive,wont_fix,used_in_tests,pattern_edited,pattern_deleted', 2],
    ['resolved', null, 3],
  ] as const)(
    'secret scanning %s is asked by resolution (%s): a false positive is no fixed secret',
    async (state, resolution, count) => {
      const alerts = github.repos[REPO] as unknown as Record<string, Record<string, unknown>[]>;
      alerts.secretScanning = [
        { ...secretScanningAlert(REPO, 1, LEAKED), state: 'resolved', resolution: 'revoked' },
        { ...secretScanningAlert(REPO, 2, LEAKED), state: 'resolved', resolution: 'false_positive' },
        { ...secretScanningAlert(REPO, 3, LEAKED), state: 'resolved', resolution: 'used_in_tests' },
        secretScanningAlert(REPO, 4, LEAKED),
      ];

      const result = await call(githubSecurityAlertsTool, { repo: REPO, kinds: ['secret_scanning'], state });
      const kinds = value(result).kinds as Record<string, Record<string, unknown>>;

      expect(kinds.secret_scanning).toMatchObject({ count, counted_all: true });
      expect(github.requests.map((r) => [r.query.get('state'), r.query.get('resolution')])).toEqual([
        ['resolved', resolution],
      ]);
    },
  );

  it('a kind that is not enabled is reported, the others returned', async () => {
    const result = await call(githubSecurityAlertsTool, { repo: 'octocat/Spoon-Knife' });
    const kinds = value(result).kinds as Record<string, Record<string, unknown>>;
    expect(kinds.code_scanning).toMatchObject({ error: { code: 'access_denied' } });
    expect(kinds.dependabot).toMatchObject({ count: 0 });
    expect(result).toMatchObject({ truncated: true });
  });

  it('an organization', async () => {
    const result = await call(githubSecurityAlertsTool, { org: 'octocat', kinds: ['dependabot'] });
    expect((value(result).kinds as Record<string, { count: number }>).dependabot?.count).toBe(3);
    expect(github.requests[0]?.path).toBe('/orgs/octocat/dependabot/alerts');
  });

  it("without security_events: every kind refused is the call's access_denied", async () => {
    await start({ scopes: ['read:org'] });
    const result = await call(githubSecurityAlertsTool, { repo: REPO, kinds: ['code_scanning'] });
    expect(result).toMatchObject({ ok: false, error: { code: 'access_denied' } });
    expect(!result.ok && result.error.message).toMatch(/security_events/);
  });
});

describe('github_create_issue', () => {
  const args = {
    repo: REPO,
    title: 'Incident INC-1234: checkout errors',
    body: 'Triage: **rollback** of deploy 100.',
  };
  const issues = () => github.repos[REPO]?.issues ?? [];

  it('opens one issue with the marker hidden at the end of the body', async () => {
    const result = await call(githubCreateIssueTool, args, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(value(result)).toEqual({
      repo: REPO,
      number: 1,
      url: `https://github.com/${REPO}/issues/1`,
      recovered: false,
    });
    expect(issues()).toHaveLength(1);
    expect(String(issues()[0]?.body)).toMatch(
      /^Triage: \*\*rollback\*\* of deploy 100\.\n\n<!-- etp-call:[0-9a-f]{32} -->$/,
    );
  });

  /** An idempotency layer whose call took over an earlier attempt's record (a redrive): `resumed`. */
  const resumedLayer = () => {
    const layer = new InMemoryIdempotencyStore().layer();
    Object.defineProperty(layer, 'resumed', { get: () => true, set: () => undefined });
    return layer;
  };

  it("a resumed call finds the issue its earlier attempt opened days ago, within the record's lifetime", async () => {
    const previous = process.env.IDEMPOTENCY_RECORD_SECONDS;
    process.env.IDEMPOTENCY_RECORD_SECONDS = String(21 * 24 * 3600);
    try {
      // The earlier attempt opened the issue 3 days ago and died before recording its outcome.
      const runId = 'run-redriven-0001';
      value(
        await call(githubCreateIssueTool, args, { runId, idempotency: new InMemoryIdempotencyStore().layer }),
      );
      const opened = issues()[0] as Record<string, unknown>;
      opened.created_at = opened.updated_at = iso(NOW - 3 * 24 * HOUR);

      const result = await call(githubCreateIssueTool, args, { runId, idempotency: resumedLayer });

      expect(value(result)).toMatchObject({ number: 1, recovered: true });
      expect(issues()).toHaveLength(1);
    } finally {
      if (previous === undefined) delete process.env.IDEMPOTENCY_RECORD_SECONDS;
      else process.env.IDEMPOTENCY_RECORD_SECONDS = previous;
    }
  });

  it.each([
    ['an answer after the client timeout', ANSWER_AFTER_TIMEOUT],
    ['a connection reset after the server accepted', { reset: true as const }],
  ])('%s: exactly one issue, found by its marker; a retry of the call opens none', async (_name, failure) => {
    const store = new InMemoryIdempotencyStore();
    github.failNext(failure, 1, { method: 'POST', path: `/repos/${REPO}/issues` });
    const first = await call(githubCreateIssueTool, args, {
      idempotency: store.layer,
      budgetMs: LATE_ANSWER_BUDGET_MS,
    });
    expect(value(first)).toMatchObject({ number: 1, recovered: true });
    expect(issues()).toHaveLength(1);
    const again = await call(githubCreateIssueTool, args, { idempotency: store.layer });
    expect(value(again)).toMatchObject({ number: 1 });
    expect(issues()).toHaveLength(1);
  });

  it('a 5xx whose issue was not made: not found by its marker, so the call may run again and opens one', async () => {
    const store = new InMemoryIdempotencyStore();
    github.failNext({ status: 502, body: { message: 'Server Error' } }, 1, { method: 'POST' });
    const first = await call(githubCreateIssueTool, args, { idempotency: store.layer });
    expect(first).toMatchObject({
      ok: false,
      error: { code: 'upstream_error', details: { effect: 'none' } },
    });
    const again = await call(githubCreateIssueTool, args, { idempotency: store.layer });
    expect(value(again)).toMatchObject({ number: 1, recovered: false });
    expect(issues()).toHaveLength(1);
  });

  it('422 with field errors is invalid_args naming the field, nothing opened', async () => {
    const result = await call(
      githubCreateIssueTool,
      { ...args, assignees: ['ghost'] },
      { idempotency: new InMemoryIdempotencyStore().layer },
    );
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', details: { fields: ['assignees: invalid'] } },
    });
    expect(issues()).toHaveLength(0);
  });

  it('403 without the repo scope: access_denied, nothing opened', async () => {
    await start({ scopes: ['read:org'] });
    const result = await call(githubCreateIssueTool, args, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'access_denied', details: { missingScope: 'one of the scopes repo, public_repo' } },
    });
  });

  it('429 then success: one issue (a throttled write was not acted on)', async () => {
    github.failNext(
      { status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'retry-after': '1' } },
      1,
      { method: 'POST' },
    );
    const result = await call(githubCreateIssueTool, args, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(value(result)).toMatchObject({ number: 1, recovered: false });
    expect(issues()).toHaveLength(1);
  });

  it('a rotated token mid-write: 401, renewed once, one issue', async () => {
    await call(githubMergedPullsTool, { repo: REPO, since: RECENT });
    const rotated = classicToken();
    github.acceptToken(rotated);
    github.revoke(github.token);
    secrets.set('github_default', { token: rotated });
    const result = await call(githubCreateIssueTool, args, {
      idempotency: new InMemoryIdempotencyStore().layer,
    });
    expect(value(result)).toMatchObject({ number: 1 });
    expect(issues()).toHaveLength(1);
  });
});
