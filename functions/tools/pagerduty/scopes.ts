/**
 * The PagerDuty endpoints the tools call and the Scoped OAuth scopes each needs
 * (`pagerduty`; "OAuth Functionality", "Scoped OAuth": `<resource>.read`,
 * `<resource>.write`). A REST API key is not scoped: a full-access key can do
 * all of it, a read-only key only the reads.
 */
import type { ScopeTable } from '../../runtime/http/scopes';

const API = 'https://developer.pagerduty.com/api-reference';

export const PAGERDUTY_SCOPES: ScopeTable = [
  {
    method: 'GET',
    path: '/incidents',
    needs: { pagerduty: ['incidents.read'] },
    source: `${API} (List incidents)`,
  },
  {
    method: 'GET',
    path: '/incidents/{id}',
    needs: { pagerduty: ['incidents.read'] },
    source: `${API} (Get an incident)`,
  },
  {
    method: 'GET',
    path: '/incidents/{id}/alerts',
    needs: { pagerduty: ['incidents.read'] },
    source: `${API} (List alerts for an incident)`,
  },
  {
    method: 'GET',
    path: '/incidents/{id}/log_entries',
    needs: { pagerduty: ['incidents.read'] },
    source: `${API} (List log entries for an incident)`,
  },
  {
    method: 'GET',
    path: '/incidents/{id}/notes',
    needs: { pagerduty: ['incidents.read'] },
    source: `${API} (List notes for an incident)`,
  },
  {
    method: 'POST',
    path: '/incidents/{id}/notes',
    needs: { pagerduty: ['incidents.write'] },
    source: `${API} (Create a note on an incident)`,
  },
  {
    method: 'GET',
    path: '/oncalls',
    needs: { pagerduty: ['oncalls.read'] },
    source: `${API} (List all of the on-calls)`,
  },
];
