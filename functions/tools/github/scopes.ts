/**
 * The GitHub endpoints the tools call and the token scopes each needs, in the
 * two systems a GitHub token may have: `github`, the fine-grained token and
 * GitHub App permissions spelled as GitHub's `x-accepted-github-permissions`
 * header does (`pull_requests=read`; "Permissions required for fine-grained
 * personal access tokens", and each endpoint's "Fine-grained access tokens"
 * section), and `github_classic`, the classic token scopes ("Scopes for OAuth
 * apps"). Private repositories are assumed: public ones need fewer. Every
 * fine-grained token has `metadata=read`, so it is not listed.
 */
import type { ScopeTable } from '../../runtime/http/scopes';

const REST = 'https://docs.github.com/en/rest';

export const GITHUB_SCOPES: ScopeTable = [
  {
    // An organization's public profile: any token, no permission beyond metadata.
    method: 'GET',
    path: '/orgs/{org}',
    needs: {},
    source: `${REST}/orgs/orgs#get-an-organization`,
  },
  {
    // Public repositories only (`type=public`): no permission beyond metadata.
    method: 'GET',
    path: '/orgs/{org}/repos',
    needs: {},
    source: `${REST}/repos/repos#list-organization-repositories`,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/pulls',
    needs: { github: ['pull_requests=read'], github_classic: ['repo'] },
    source: `${REST}/pulls/pulls#list-pull-requests`,
  },
  {
    // Search sees only what the token can read; private pull requests need their permission.
    method: 'GET',
    path: '/search/issues',
    needs: { github: ['pull_requests=read'], github_classic: ['repo'] },
    source: `${REST}/search/search#search-issues-and-pull-requests`,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/commits',
    needs: { github: ['contents=read'], github_classic: ['repo'] },
    source: `${REST}/commits/commits#list-commits`,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/deployments',
    needs: { github: ['deployments=read'], github_classic: ['repo'] },
    source: `${REST}/deployments/deployments#list-deployments`,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/deployments/{id}/statuses',
    needs: { github: ['deployments=read'], github_classic: ['repo'] },
    source: `${REST}/deployments/statuses#list-deployment-statuses`,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/dependabot/alerts',
    needs: { github: ['vulnerability_alerts=read'], github_classic: ['security_events'] },
    source: `${REST}/dependabot/alerts#list-dependabot-alerts-for-a-repository`,
  },
  {
    method: 'GET',
    path: '/orgs/{org}/dependabot/alerts',
    needs: { github: ['vulnerability_alerts=read'], github_classic: ['security_events'] },
    source: `${REST}/dependabot/alerts#list-dependabot-alerts-for-an-organization`,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/code-scanning/alerts',
    needs: { github: ['security_events=read'], github_classic: ['security_events'] },
    source: `${REST}/code-scanning/code-scanning#list-code-scanning-alerts-for-a-repository`,
  },
  {
    method: 'GET',
    path: '/orgs/{org}/code-scanning/alerts',
    needs: { github: ['security_events=read'], github_classic: ['security_events'] },
    source: `${REST}/code-scanning/code-scanning#list-code-scanning-alerts-for-an-organization`,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/secret-scanning/alerts',
    needs: { github: ['secret_scanning_alerts=read'], github_classic: ['security_events'] },
    source: `${REST}/secret-scanning/secret-scanning#list-secret-scanning-alerts-for-a-repository`,
  },
  {
    method: 'GET',
    path: '/orgs/{org}/secret-scanning/alerts',
    needs: { github: ['secret_scanning_alerts=read'], github_classic: ['security_events'] },
    source: `${REST}/secret-scanning/secret-scanning#list-secret-scanning-alerts-for-an-organization`,
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues',
    needs: { github: ['issues=write'], github_classic: ['repo'] },
    source: `${REST}/issues/issues#create-an-issue`,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues',
    needs: { github: ['issues=read'], github_classic: ['repo'] },
    source: `${REST}/issues/issues#list-repository-issues`,
  },
];
