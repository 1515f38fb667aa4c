/**
 * Argument schemas shared by the GitHub tools' spec files (zod/mini, no client).
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';

/** `owner/name` as GitHub spells repositories (names: letters, digits, `-`, `_`, `.`; owners: letters, digits, `-`). */
export const repoArg = builtOnce(() =>
  z.string().check(
    z.regex(
      /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/,
      'a repository as owner/name, such as octocat/Hello-World',
    ),
    z.refine((value) => !/\/\.\.?$/.test(value), 'a repository name, not . or ..'),
    z.describe('Repository as owner/name (octocat/Hello-World).'),
  ),
);

/** An organization login. */
export const orgArg = builtOnce(() =>
  z
    .string()
    .check(
      z.regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, 'an organization login such as octo-org'),
      z.describe('Organization login (octo-org).'),
    ),
);

/** A continuation cursor as a previous call returned it. */
export const cursorArg = builtOnce(() =>
  z
    .optional(z.string().check(z.minLength(1), z.maxLength(2_000)))
    .check(z.describe('next_cursor of a previous call with the same arguments, to read on.')),
);

/** Exactly one of `repo` and `org`. */
export const oneOfRepoOrOrg = builtOnce(() =>
  z.refine<{ repo?: string | undefined; org?: string | undefined }>(
    (args) => (args.repo === undefined) !== (args.org === undefined),
    'give exactly one of repo (owner/name) and org',
  ),
);

/** How far back from now, hours (the alternative to `since`: a scenario knows "the hours before", not a time). */
export const lookbackHoursArg = builtOnce(() =>
  z.optional(
    z
      .int()
      .check(
        z.minimum(1),
        z.maximum(720),
        z.describe('Instead of since: this many hours back from now, 1-720.'),
      ),
  ),
);

/** Exactly one of `since` and `lookback_hours`. */
export const oneOfSinceOrLookback = builtOnce(() =>
  z.refine<{
    since?: string | undefined;
    lookback_hours?: number | undefined;
  }>(
    (args) => (args.since === undefined) !== (args.lookback_hours === undefined),
    'give exactly one of since (ISO 8601) and lookback_hours',
  ),
);

/** The window's start, epoch ms, from `since` or `lookback_hours`. */
export function windowStart(
  args: { since?: string | undefined; lookback_hours?: number | undefined },
  now = Date.now(),
): number {
  return args.since !== undefined ? Date.parse(args.since) : now - (args.lookback_hours ?? 0) * 3_600_000;
}

/** `since` before `until` when both are given. */
export const sinceBeforeUntil = builtOnce(() =>
  z.refine<{ since?: string | undefined; until?: string | undefined }>(
    (args) =>
      args.since === undefined || args.until === undefined || Date.parse(args.since) < Date.parse(args.until),
    'since must be before until',
  ),
);

/** The tools' shared settings: the `github_default` secret, no AWS permissions, 256 MB, 30 s. */
export const GITHUB_READ_SETTINGS = {
  tags: ['github', 'read_only'],
  service: 'github',
  requiresSecrets: ['github_default'],
  sideEffects: 'none',
  iam: [],
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
} as const;
