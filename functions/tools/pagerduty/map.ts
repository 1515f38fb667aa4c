/** Field mapping of PagerDuty objects into what the tools return. */
import { reference } from './connector';

/** Longest title or summary returned, characters. */
const TEXT_CHARS = 300;

export function clip(value: unknown, chars = TEXT_CHARS): string | null {
  if (typeof value !== 'string') return null;
  return value.length > chars ? `${value.slice(0, chars)}…` : value;
}

/** An incident as the tools return it. */
export function incidentOf(incident: Record<string, unknown>) {
  const priority = incident.priority as { summary?: unknown } | null | undefined;
  const assignments = Array.isArray(incident.assignments) ? incident.assignments : [];
  return {
    id: incident.id as string,
    number: typeof incident.incident_number === 'number' ? incident.incident_number : null,
    title: clip(incident.title ?? incident.summary),
    status: incident.status ?? null,
    urgency: incident.urgency ?? null,
    priority: typeof priority?.summary === 'string' ? priority.summary : null,
    service: reference(incident.service),
    escalation_policy: reference(incident.escalation_policy),
    assignees: assignments.map((a: { assignee?: unknown }) => reference(a.assignee)).filter(Boolean),
    alert_counts: incident.alert_counts ?? null,
    created_at: incident.created_at ?? null,
    last_status_change_at: incident.last_status_change_at ?? null,
    resolved_at: incident.resolved_at ?? null,
    url: incident.html_url ?? null,
  };
}
