import * as z from 'zod/mini';
import { isoTimeArg } from '../../runtime/arg-schemas';
import { defineToolSpec } from '../../runtime/spec';
import {
  cursorArg,
  GITHUB_READ_SETTINGS,
  lookbackHoursArg,
  oneOfSinceOrLookback,
  repoArg,
  sinceBeforeUntil,
} from './schemas';

/** Most commits one call returns. */
export const RECENT_COMMITS_MAX_LIMIT = 100;
/** Most deployments one call returns, each with its latest status (one request each). */
export const RECENT_DEPLOYMENTS_MAX = 10;

/** `github_recent_changes`: commits and deployments of a repository in a window (what changed before an incident). */
export const githubRecentChangesSpec = defineToolSpec({
  name: 'github_recent_changes',
  tokenScopes: { github: ['contents=read', 'deployments=read'], github_classic: ['repo'] },
  description:
    'What changed in a GitHub repository in a time window: its commits (sha, subject line, author login, date, ' +
    `url; at most ${RECENT_COMMITS_MAX_LIMIT}, newest first, continue with next_cursor) and its deployments ` +
    `(environment, ref, sha, creator, created_at and latest status; at most ${RECENT_DEPLOYMENTS_MAX}, newest ` +
    'first). Never returns commit bodies, diffs or e-mail addresses.',
  inputSchema: () =>
    z
      .strictObject({
        repo: repoArg(),
        lookback_hours: lookbackHoursArg(),
        since: z.optional(
          isoTimeArg('Changes at or after this time (ISO 8601 with time zone); or give lookback_hours.'),
        ),
        until: z.optional(isoTimeArg('Changes before this time (ISO 8601 with time zone). Default: now.')),
        branch: z.optional(
          z
            .string()
            .check(
              z.minLength(1),
              z.maxLength(255),
              z.describe('Commits of this branch (default: the default branch).'),
            ),
        ),
        environment: z.optional(
          z
            .string()
            .check(
              z.minLength(1),
              z.maxLength(255),
              z.describe('Only deployments to this environment (production).'),
            ),
        ),
        limit: z
          ._default(z.int().check(z.minimum(1), z.maximum(RECENT_COMMITS_MAX_LIMIT)), 30)
          .check(z.describe(`Commits to return, 1-${RECENT_COMMITS_MAX_LIMIT} (default 30).`)),
        cursor: cursorArg(),
      })
      .check(oneOfSinceOrLookback(), sinceBeforeUntil()),
  ...GITHUB_READ_SETTINGS,
});
