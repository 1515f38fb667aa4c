import * as z from 'zod/mini';
import { isoTimeArg } from '../../runtime/arg-schemas';
import { defineToolSpec } from '../../runtime/spec';
import { PAGERDUTY_READ_SETTINGS, pagerdutyId } from './schemas';

/** Most incidents one call returns (PagerDuty's largest `limit`). */
export const INCIDENTS_MAX_LIMIT = 100;

/** The longest since..until window "List incidents" takes, calendar months ("Maximum range is 6 months"). */
export const INCIDENTS_MAX_RANGE_MONTHS = 6;

/**
 * Whether `until` is at most {@link INCIDENTS_MAX_RANGE_MONTHS} calendar months after
 * `since` (both ISO 8601, compared in UTC). A day the end month lacks is its last day, as
 * calendar month arithmetic has it: 31 August + 6 months is 28 (or 29) February, not
 * 3 March, which `Date`'s own month overflow would give.
 */
export function withinIncidentRange(since: string, until: string): boolean {
  const start = new Date(Date.parse(since));
  const end = new Date(start);
  end.setUTCDate(1);
  end.setUTCMonth(end.getUTCMonth() + INCIDENTS_MAX_RANGE_MONTHS);
  const lastDay = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate();
  end.setUTCDate(Math.min(start.getUTCDate(), lastDay));
  return Date.parse(until) <= end.getTime();
}

/** `pagerduty_incidents`: incidents by status, urgency, service and window. */
export const pagerdutyIncidentsSpec = defineToolSpec({
  name: 'pagerduty_incidents',
  tokenScopes: { pagerduty: ['incidents.read'] },
  description:
    'Lists PagerDuty incidents, newest first, by status (default triggered and acknowledged), urgency, service ' +
    'and time window (created between since and until; PagerDuty looks back 30 days by default). Each: id, ' +
    'number, title, status, urgency, priority, service, escalation policy, assignees, alert counts, created_at, ' +
    `last change, resolved_at, url. At most ${INCIDENTS_MAX_LIMIT} per call; continue with next_cursor.`,
  inputSchema: () =>
    z
      .strictObject({
        statuses: z
          ._default(
            z.array(z.enum(['triggered', 'acknowledged', 'resolved'])).check(z.minLength(1), z.maxLength(3)),
            ['triggered', 'acknowledged'],
          )
          .check(z.describe('Statuses to list (default triggered and acknowledged).')),
        urgencies: z.optional(
          z
            .array(z.enum(['high', 'low']))
            .check(z.minLength(1), z.maxLength(2), z.describe('Urgencies (default both).')),
        ),
        service_ids: z.optional(
          z
            .array(pagerdutyId('A service'))
            .check(z.minLength(1), z.maxLength(25), z.describe('Only these services.')),
        ),
        since: z.optional(isoTimeArg('Created at or after this time (ISO 8601 with time zone).')),
        until: z.optional(isoTimeArg('Created before this time (ISO 8601 with time zone).')),
        limit: z
          ._default(z.int().check(z.minimum(1), z.maximum(INCIDENTS_MAX_LIMIT)), 25)
          .check(z.describe(`Incidents to return, 1-${INCIDENTS_MAX_LIMIT} (default 25).`)),
        cursor: z.optional(
          z
            .string()
            .check(
              z.regex(/^\d{1,6}$/, 'next_cursor of a previous call (digits)'),
              z.describe('next_cursor of a previous call.'),
            ),
        ),
      })
      .check(
        z.refine<{ since?: string | undefined; until?: string | undefined }>(
          (a) => a.since === undefined || a.until === undefined || Date.parse(a.since) < Date.parse(a.until),
          'since must be before until',
        ),
        z.refine<{ since?: string | undefined; until?: string | undefined }>(
          (a) => a.since === undefined || a.until === undefined || withinIncidentRange(a.since, a.until),
          `until may be at most ${INCIDENTS_MAX_RANGE_MONTHS} months after since (PagerDuty's longest range)`,
        ),
      ),
  ...PAGERDUTY_READ_SETTINGS,
});
