import * as z from 'zod/mini';
import { isoTimeArg } from '../../runtime/arg-schemas';
import { defineToolSpec } from '../../runtime/spec';
import {
  cursorArg,
  GITHUB_READ_SETTINGS,
  lookbackHoursArg,
  oneOfRepoOrOrg,
  oneOfSinceOrLookback,
  orgArg,
  repoArg,
  sinceBeforeUntil,
} from './schemas';

/** Most pull requests one call returns. */
export const MERGED_PULLS_MAX_LIMIT = 100;

/** `github_merged_pulls`: pull requests merged in a window, in a repository or an organization. */
export const githubMergedPullsSpec = defineToolSpec({
  name: 'github_merged_pulls',
  tokenScopes: { github: ['pull_requests=read'], github_classic: ['repo'] },
  description:
    'Lists GitHub pull requests merged in a time window, in one repository (repo) or across an organization ' +
    '(org, through the search API), newest first. Each: repo, number, title, author, merged_at, base branch, ' +
    'merge commit sha (repo only), labels, url. Never returns bodies or diffs. Reads pages of `limit` until ' +
    'limit merged pull requests are found (at most 5 pages); continue with next_cursor. A rate limit after some ' +
    'pages returns what was read with next_cursor and retry_after_ms.',
  inputSchema: () =>
    z
      .strictObject({
        repo: z.optional(repoArg()),
        org: z.optional(orgArg()),
        lookback_hours: lookbackHoursArg(),
        since: z.optional(
          isoTimeArg('Merged at or after this time (ISO 8601 with time zone); or give lookback_hours.'),
        ),
        until: z.optional(isoTimeArg('Merged before this time (ISO 8601 with time zone). Default: now.')),
        base: z.optional(
          z
            .string()
            .check(
              z.minLength(1),
              z.maxLength(255),
              z.describe('Only pull requests into this base branch (repo only).'),
            ),
        ),
        limit: z
          ._default(z.int().check(z.minimum(1), z.maximum(MERGED_PULLS_MAX_LIMIT)), 30)
          .check(
            z.describe(
              `Page size and how many merged pull requests end the read, 1-${MERGED_PULLS_MAX_LIMIT} (default 30).`,
            ),
          ),
        cursor: cursorArg(),
      })
      .check(oneOfRepoOrOrg(), oneOfSinceOrLookback(), sinceBeforeUntil()),
  ...GITHUB_READ_SETTINGS,
});
