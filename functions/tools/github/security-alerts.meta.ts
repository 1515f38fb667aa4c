import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { GITHUB_READ_SETTINGS, oneOfRepoOrOrg, orgArg, repoArg } from './schemas';

/** The kinds of security alerts GitHub keeps. */
export const ALERT_KINDS = ['dependabot', 'code_scanning', 'secret_scanning'] as const;

/** The alert states the tool takes (mapped to each kind's own `state` query, security-alerts.ts). */
export const ALERT_STATES = ['open', 'fixed', 'dismissed', 'resolved'] as const;

/** Most top items per kind. */
export const ALERTS_MAX_TOP = 25;

/** `github_security_alerts`: Dependabot, code scanning and secret scanning alerts: counts and the top items. */
export const githubSecurityAlertsSpec = defineToolSpec({
  name: 'github_security_alerts',
  tokenScopes: {
    github: ['vulnerability_alerts=read', 'security_events=read', 'secret_scanning_alerts=read'],
    github_classic: ['security_events'],
  },
  description:
    "A GitHub repository's (or organization's) security alerts: Dependabot, code scanning and secret scanning. " +
    'Per kind: the count by severity (secret scanning: by secret type) and the top items, most severe first ' +
    '(number, severity, package or rule or secret type, path, created_at, url). Never returns a secret ' +
    "scanning alert's secret. A kind that is not enabled or not readable is reported as such, the others still " +
    'returned. Counts cover at most 500 alerts per kind (counted_all says whether all were counted).',
  inputSchema: () =>
    z
      .strictObject({
        repo: z.optional(repoArg()),
        org: z.optional(orgArg()),
        kinds: z
          ._default(z.array(z.enum(ALERT_KINDS)).check(z.minLength(1), z.maxLength(ALERT_KINDS.length)), [
            ...ALERT_KINDS,
          ])
          .check(z.describe('Which alerts: dependabot, code_scanning, secret_scanning (default all).')),
        state: z
          ._default(z.enum(ALERT_STATES), 'open')
          .check(
            z.describe(
              "Alert state (default open): fixed, dismissed, or resolved (no longer open: fixed or dismissed); for secret scanning fixed is a revoked secret, dismissed any other resolution (false positive, won't fix, used in tests, pattern edited or deleted).",
            ),
          ),
        top: z
          ._default(z.int().check(z.minimum(1), z.maximum(ALERTS_MAX_TOP)), 10)
          .check(z.describe(`Items to list per kind, 1-${ALERTS_MAX_TOP} (default 10).`)),
      })
      .check(oneOfRepoOrOrg()),
  ...GITHUB_READ_SETTINGS,
  // Names of alert kinds and counts, not credentials: the secret itself is never read out of an alert.
  visibleOutputKeys: ['secret_scanning', 'by_secret_type'],
});
