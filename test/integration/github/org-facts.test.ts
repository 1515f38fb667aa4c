/**
 * `github_org_facts` against the loopback GitHub (test/helpers/github-server.ts):
 * the facts and the most recently pushed public repositories (`Link`
 * pagination, private ones never listed), a login that is no organization, a revoked token, and
 * arguments refused before any request.
 */
import { githubOrgFactsTool, recentActivity } from '../../../functions/tools/github/org-facts';
import { organization, orgRepository } from '../../helpers/github-fixtures';
import { type LocalGitHub, startGitHubServer } from '../../helpers/github-server';
import { callRestTool, restSecrets, useQuietRestCalls } from '../../helpers/rest-tool';

const DAY = 86_400_000;
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();

let github: LocalGitHub;
const secrets = () => restSecrets({ github_default: { token: github.token } });

beforeAll(async () => {
  // 650 public repositories, pushed one a day back from 10 days ago, and one private (pushed today).
  const repos = Array.from({ length: 650 }, (_, n) =>
    orgRepository('biglytics', n, iso(NOW - (10 + n) * DAY)),
  );
  repos.push(orgRepository('biglytics', 999, iso(NOW), { private: true, visibility: 'private' }));
  github = await startGitHubServer({
    orgs: { biglytics: { org: organization('biglytics', { public_repos: 650, followers: 321 }), repos } },
  });
  process.env.GITHUB_API_URL = github.apiUrl;
});

afterAll(async () => {
  delete process.env.GITHUB_API_URL;
  await github.stop();
});

useQuietRestCalls();

beforeEach(() => {
  github.requests.length = 0;
});

describe('github_org_facts', () => {
  it("returns the organization's facts and its most recently pushed public repositories", async () => {
    // Act
    const result = await callRestTool(githubOrgFactsTool, { org: 'biglytics', recent_repos: 3 }, secrets());

    // Assess
    expect(result).toMatchObject({ ok: true, truncated: false });
    const value = (result as { value: Record<string, unknown> }).value;
    expect(value.org).toEqual({
      login: 'biglytics',
      name: 'biglytics',
      description: 'A great organization',
      blog: 'https://github.com/blog',
      location: 'San Francisco',
      is_verified: true,
      public_repos: 650,
      followers: 321,
      created_at: '2008-01-14T04:33:35Z',
      updated_at: '2014-03-03T18:58:10Z',
      url: 'https://github.com/biglytics',
    });
    expect(value.recent_repos).toEqual(
      [0, 1, 2].map((n) => ({
        name: n === 0 ? 'Hello-World' : `Hello-World-${n}`,
        description: 'This your first repo!',
        language: 'TypeScript',
        stars: 80,
        forks: 9,
        archived: false,
        pushed_at: iso(NOW - (10 + n) * DAY),
        url: `https://github.com/biglytics/${n === 0 ? 'Hello-World' : `Hello-World-${n}`}`,
      })),
    );
    expect(value.recent_activity).toEqual({
      last_pushed_at: iso(NOW - 10 * DAY),
      repos_pushed_last_30_days: 3,
      repos_pushed_last_90_days: 3,
      repos_listed: 3,
    });
    // The organization has more repositories than asked for: not complete, ended by enough.
    expect(value).toMatchObject({ requests: 2, complete: false, stopped_by: 'enough' });
    expect(github.requests.map((r) => `${r.path}?${r.query.toString()}`)).toEqual([
      '/orgs/biglytics?',
      '/orgs/biglytics/repos?type=public&sort=pushed&direction=desc&per_page=3',
    ]);
    expect((result as { summary: string }).summary).toBe(
      `GitHub biglytics: 650 public repositories, 321 followers, since 2008-01-14; last push ${iso(NOW - 10 * DAY).slice(0, 10)}`,
    );
  });

  it('reads one request only with recent_repos 0', async () => {
    const result = await callRestTool(githubOrgFactsTool, { org: 'biglytics', recent_repos: 0 }, secrets());

    expect(result).toMatchObject({ ok: true, value: { recent_repos: [], requests: 1 } });
    expect(github.requests).toHaveLength(1);
  });

  it('is not_found for a login that is no organization, and auth_failed for a revoked token', async () => {
    const user = await callRestTool(githubOrgFactsTool, { org: 'octocat' }, secrets());
    expect(user).toMatchObject({ ok: false, error: { code: 'not_found', service: 'github' } });

    github.revoke(github.token);
    try {
      const revoked = await callRestTool(githubOrgFactsTool, { org: 'biglytics' }, secrets());
      expect(revoked).toMatchObject({ ok: false, error: { code: 'auth_failed', service: 'github' } });
    } finally {
      github.acceptToken(github.token);
    }
  });

  it.each([
    [{ org: 'not an org!' }, 'org'],
    [{ org: 'biglytics', recent_repos: 101 }, 'recent_repos'],
  ])('refuses %j before any request', async (args, field) => {
    const result = await callRestTool(githubOrgFactsTool, args, secrets());

    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect((result as { error: { message: string } }).error.message).toContain(field);
    expect(github.requests).toEqual([]);
  });
});

describe('recentActivity', () => {
  it('counts pushes within 30 and 90 days, and has no last push without one', () => {
    const repo = (pushed_at: string | null) => ({
      name: 'r',
      description: null,
      language: null,
      stars: 0,
      forks: 0,
      archived: false,
      pushed_at,
      url: null,
    });
    expect(recentActivity([repo(iso(NOW - 5 * DAY)), repo(iso(NOW - 60 * DAY)), repo(null)], NOW)).toEqual({
      last_pushed_at: iso(NOW - 5 * DAY),
      repos_pushed_last_30_days: 1,
      repos_pushed_last_90_days: 2,
      repos_listed: 3,
    });
    expect(recentActivity([], NOW).last_pushed_at).toBeNull();
  });
});
