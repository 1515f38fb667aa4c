import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { GITHUB_READ_SETTINGS, orgArg } from './schemas';

/** Most recently pushed public repositories one call lists. */
export const ORG_REPOS_MAX = 100;

/** `github_org_facts`: an organization's public facts and its most recently pushed public repositories. */
export const githubOrgFactsSpec = defineToolSpec({
  name: 'github_org_facts',
  description:
    'Reads a GitHub organization\'s public facts (GitHub REST "Get an organization"): login, name, description, ' +
    'blog, location, is_verified, public_repos, followers, created_at, updated_at, url; and its most recently pushed ' +
    `public repositories ("List organization repositories", type public, sort pushed; at most ${ORG_REPOS_MAX}): ` +
    'name, description, language, stars, forks, archived, pushed_at, url, with recent_activity (the last push and ' +
    'how many listed repositories were pushed in the last 30 and 90 days). Only what GitHub shows anyone: never ' +
    'private repositories, members or code. 1 request, plus 1 page of repositories per 100 (at most 5 pages). ' +
    'A login that is a user, not an organization, is not_found.',
  inputSchema: () =>
    z.strictObject({
      org: orgArg(),
      recent_repos: z
        ._default(z.int().check(z.minimum(0), z.maximum(ORG_REPOS_MAX)), 10)
        .check(
          z.describe(
            `Most recently pushed public repositories to list, 0-${ORG_REPOS_MAX} (default 10; 0: the facts only).`,
          ),
        ),
    }),
  ...GITHUB_READ_SETTINGS,
});
