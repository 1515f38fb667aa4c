/**
 * GitHub REST API objects after the documented examples of the REST API
 * description (github/rest-api-description, `components/examples`: the
 * `pull-request-simple`, `commit`, `deployment`, `deployment-status`,
 * `dependabot-alert`, `code-scanning-alert-items`, `secret-scanning-alert`,
 * `issue`, `organization-full` and `minimal-repository` examples — octocat/Hello-World, "Amazing new feature", "Fix all the
 * bugs"), varied by number and time so a fake can serve many of them.
 */

const API = 'https://api.github.com';
const WEB = 'https://github.com';

/** A user reference as GitHub embeds it (the documented `simple-user`, trimmed). */
export function user(login: string, id = 1) {
  return {
    login,
    id,
    node_id: 'MDQ6VXNlcjE=',
    avatar_url: `https://github.com/images/error/${login}_happy.gif`,
    url: `${API}/users/${login}`,
    html_url: `${WEB}/${login}`,
    type: 'User',
    site_admin: false,
  };
}

/** A pull request as `GET /repos/{owner}/{repo}/pulls` lists it (the documented `pull-request-simple`). */
export function pullRequest(
  repo: string,
  number: number,
  fields: { merged_at: string | null; updated_at: string; base?: string; title?: string; login?: string },
) {
  return {
    url: `${API}/repos/${repo}/pulls/${number}`,
    id: 1_000_000 + number,
    node_id: 'MDExOlB1bGxSZXF1ZXN0MQ==',
    html_url: `${WEB}/${repo}/pull/${number}`,
    diff_url: `${WEB}/${repo}/pull/${number}.diff`,
    number,
    state: 'closed',
    locked: false,
    title: fields.title ?? `Amazing new feature #${number}`,
    user: user(fields.login ?? 'octocat'),
    body: 'Please pull these awesome changes in!',
    labels: [
      { id: 208045946, name: 'bug', color: 'f29513', default: true, description: "Something isn't working" },
    ],
    created_at: '2011-01-26T19:01:12Z',
    updated_at: fields.updated_at,
    closed_at: fields.updated_at,
    merged_at: fields.merged_at,
    merge_commit_sha: fields.merged_at
      ? `e5bd3914e2e596debea16f433f57875b5b9${String(number).padStart(4, '0')}`
      : null,
    head: { label: 'octocat:new-topic', ref: 'new-topic', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e' },
    base: {
      label: `octocat:${fields.base ?? 'master'}`,
      ref: fields.base ?? 'master',
      sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e',
      repo: { full_name: repo },
    },
    author_association: 'OWNER',
    draft: false,
  };
}

/** A commit as `GET /repos/{owner}/{repo}/commits` lists it (the documented `commit`). */
export function commit(repo: string, index: number, date: string, message = 'Fix all the bugs') {
  const sha = `6dcb09b5b57875f334f61aebed695e2e41${String(index).padStart(6, '0')}`;
  return {
    url: `${API}/repos/${repo}/commits/${sha}`,
    sha,
    node_id: 'MDY6Q29tbWl0NmRjYjA5YjViNTc4NzVmMzM0ZjYxYWViZWQ2OTVlMmU0MTkzZGI1ZQ==',
    html_url: `${WEB}/${repo}/commit/${sha}`,
    commit: {
      author: { name: 'Monalisa Octocat', email: 'support@github.com', date },
      committer: { name: 'Monalisa Octocat', email: 'support@github.com', date },
      message: `${message}\n\nA longer explanation that the tools never return.`,
      tree: { sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e' },
      comment_count: 0,
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null },
    },
    author: user('octocat'),
    committer: user('octocat'),
    parents: [{ sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e' }],
  };
}

/** A deployment (the documented `deployment`: "Deploy request from hubot"). */
export function deployment(repo: string, id: number, createdAt: string, environment = 'production') {
  return {
    url: `${API}/repos/${repo}/deployments/${id}`,
    id,
    node_id: 'MDEwOkRlcGxveW1lbnQx',
    sha: 'a84d88e7554fc1fa21bcbc4efae3c782a70d2b9d',
    ref: 'topic-branch',
    task: 'deploy',
    payload: {},
    original_environment: environment,
    environment,
    description: 'Deploy request from hubot',
    creator: user('octocat'),
    created_at: createdAt,
    updated_at: createdAt,
    statuses_url: `${API}/repos/${repo}/deployments/${id}/statuses`,
    repository_url: `${API}/repos/${repo}`,
    transient_environment: false,
    production_environment: environment === 'production',
  };
}

/** A deployment status (the documented `deployment-status`). */
export function deploymentStatus(repo: string, deploymentId: number, state: string, createdAt: string) {
  return {
    url: `${API}/repos/${repo}/deployments/${deploymentId}/statuses/1`,
    id: deploymentId * 10,
    state,
    creator: user('octocat'),
    description: 'Deployment finished successfully.',
    environment: 'production',
    target_url: 'https://example.com/deployment/42/output',
    created_at: createdAt,
    updated_at: createdAt,
    deployment_url: `${API}/repos/${repo}/deployments/${deploymentId}`,
    log_url: 'https://example.com/deployment/42/output',
  };
}

/** A Dependabot alert (the documented `dependabot-alert`: django, GHSA-rf4j-j272-fj86). */
export function dependabotAlert(
  repo: string,
  number: number,
  severity: 'low' | 'medium' | 'high' | 'critical',
) {
  return {
    number,
    state: 'open',
    dependency: {
      package: { ecosystem: 'pip', name: 'django' },
      manifest_path: 'path/to/requirements.txt',
      scope: 'runtime',
    },
    security_advisory: {
      ghsa_id: 'GHSA-rf4j-j272-fj86',
      cve_id: 'CVE-2018-6188',
      summary:
        'Django allows remote attackers to obtain potentially sensitive information by leveraging data exposure from the confirm_login_allowed() method, as demonstrated by discovering whether a user account is inactive',
      severity,
    },
    security_vulnerability: {
      package: { ecosystem: 'pip', name: 'django' },
      severity,
      vulnerable_version_range: '>= 2.0.0, < 2.0.2',
    },
    url: `${API}/repos/${repo}/dependabot/alerts/${number}`,
    html_url: `${WEB}/${repo}/security/dependabot/${number}`,
    created_at: '2022-06-15T07:43:03Z',
    updated_at: '2022-08-23T14:29:47Z',
  };
}

/** A code scanning alert (the documented `code-scanning-alert-items`: CodeQL, js/zipslip). */
export function codeScanningAlert(
  repo: string,
  number: number,
  severity: 'low' | 'medium' | 'high' | 'critical',
) {
  return {
    number,
    created_at: '2020-02-13T12:29:18Z',
    url: `${API}/repos/${repo}/code-scanning/alerts/${number}`,
    html_url: `${WEB}/${repo}/code-scanning/${number}`,
    state: 'open',
    rule: {
      id: 'js/zipslip',
      severity: 'error',
      tags: ['security', 'external/cwe/cwe-022'],
      description: 'Arbitrary file write during zip extraction ("Zip Slip")',
      name: 'js/zipslip',
      security_severity_level: severity,
    },
    tool: { name: 'CodeQL', guid: null, version: '2.4.0' },
    most_recent_instance: {
      ref: 'refs/heads/main',
      state: 'open',
      location: { path: 'spec-main/api-session-spec.ts', start_line: 917, end_line: 917 },
      message: { text: 'This path depends on a user-provided value.' },
    },
  };
}

/** A secret scanning alert (the documented `secret-scanning-alert`), with the leaked `secret` a tool must never return. */
export function secretScanningAlert(repo: string, number: number, secret: string) {
  return {
    number,
    created_at: '2020-11-06T18:18:30Z',
    url: `${API}/repos/${repo}/secret-scanning/alerts/${number}`,
    html_url: `${WEB}/${repo}/security/secret-scanning/${number}`,
    locations_url: `${API}/repos/${repo}/secret-scanning/alerts/${number}/locations`,
    state: 'open',
    resolution: null,
    secret_type: 'adafruit_io_key',
    secret_type_display_name: 'Adafruit IO Key',
    secret,
    validity: 'active',
    push_protection_bypassed: false,
  };
}

/** An issue as `POST /repos/{owner}/{repo}/issues` answers (the documented `issue`). */
export function issue(
  repo: string,
  number: number,
  fields: { title: string; body: string; labels: string[]; assignees: string[]; createdAt: string },
) {
  return {
    id: 1_000 + number,
    node_id: 'MDU6SXNzdWUx',
    url: `${API}/repos/${repo}/issues/${number}`,
    repository_url: `${API}/repos/${repo}`,
    html_url: `${WEB}/${repo}/issues/${number}`,
    number,
    state: 'open',
    title: fields.title,
    body: fields.body,
    user: user('octocat'),
    labels: fields.labels.map((name, i) => ({ id: 208045946 + i, name, color: 'f29513', default: false })),
    assignees: fields.assignees.map((login) => user(login)),
    locked: false,
    comments: 0,
    created_at: fields.createdAt,
    updated_at: fields.createdAt,
    closed_at: null,
    author_association: 'COLLABORATOR',
  };
}

/** An organization as `GET /orgs/{org}` answers it (the documented `organization-full`, trimmed). */
export function organization(login: string, overrides: Record<string, unknown> = {}) {
  return {
    login,
    id: 1,
    node_id: 'MDEyOk9yZ2FuaXphdGlvbjE=',
    url: `${API}/orgs/${login}`,
    repos_url: `${API}/orgs/${login}/repos`,
    description: 'A great organization',
    name: login,
    company: 'GitHub',
    blog: 'https://github.com/blog',
    location: 'San Francisco',
    email: 'octocat@github.com',
    twitter_username: 'github',
    is_verified: true,
    has_organization_projects: true,
    has_repository_projects: true,
    public_repos: 2,
    public_gists: 1,
    followers: 20,
    following: 0,
    html_url: `${WEB}/${login}`,
    created_at: '2008-01-14T04:33:35Z',
    updated_at: '2014-03-03T18:58:10Z',
    type: 'Organization',
    ...overrides,
  };
}

/**
 * A repository as `GET /orgs/{org}/repos` lists it (the documented
 * `minimal-repository`, trimmed: Hello-World, 80 stars, 9 forks), numbered `n`
 * and pushed at `pushedAt`.
 */
export function orgRepository(
  org: string,
  n: number,
  pushedAt: string,
  overrides: Record<string, unknown> = {},
) {
  const name = n === 0 ? 'Hello-World' : `Hello-World-${n}`;
  return {
    id: 1296269 + n,
    node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
    name,
    full_name: `${org}/${name}`,
    owner: user(org),
    private: false,
    html_url: `${WEB}/${org}/${name}`,
    description: 'This your first repo!',
    fork: false,
    url: `${API}/repos/${org}/${name}`,
    language: 'TypeScript',
    forks_count: 9,
    stargazers_count: 80,
    watchers_count: 80,
    size: 108,
    default_branch: 'master',
    open_issues_count: 0,
    archived: false,
    disabled: false,
    visibility: 'public',
    pushed_at: pushedAt,
    created_at: '2011-01-26T19:01:12Z',
    updated_at: '2011-01-26T19:14:43Z',
    ...overrides,
  };
}
