import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { PAGERDUTY_READ_SETTINGS, pagerdutyId } from './schemas';

/** Most alerts and log entries one call returns. */
export const INCIDENT_MAX_ALERTS = 50;
export const INCIDENT_MAX_LOG_ENTRIES = 100;

/** `pagerduty_incident`: one incident with its alerts, timeline (log entries) and notes, bounded. */
export const pagerdutyIncidentSpec = defineToolSpec({
  name: 'pagerduty_incident',
  tokenScopes: { pagerduty: ['incidents.read', 'oncalls.read'] },
  description:
    'One PagerDuty incident with its alerts (summary, severity, status, created_at, service, a 500-character ' +
    'preview of the custom details), its timeline (log entries, oldest first: type, summary, agent, channel, ' +
    'created_at), its notes, and who is on call now for its escalation policy (user, level, shift end; never ' +
    'contact methods). Alerts and log entries are bounded by alerts_limit and log_limit; alerts_complete / ' +
    'log_complete say whether all were read.',
  inputSchema: () =>
    z.strictObject({
      id: pagerdutyId('An incident'),
      alerts_limit: z
        ._default(z.int().check(z.minimum(0), z.maximum(INCIDENT_MAX_ALERTS)), 20)
        .check(z.describe(`Alerts to return, 0-${INCIDENT_MAX_ALERTS} (default 20).`)),
      log_limit: z
        ._default(z.int().check(z.minimum(0), z.maximum(INCIDENT_MAX_LOG_ENTRIES)), 50)
        .check(z.describe(`Log entries to return, 0-${INCIDENT_MAX_LOG_ENTRIES} (default 50).`)),
      include_oncall: z
        ._default(z.boolean(), true)
        .check(z.describe("Also who is on call now for the incident's escalation policy (default true).")),
    }),
  ...PAGERDUTY_READ_SETTINGS,
});
