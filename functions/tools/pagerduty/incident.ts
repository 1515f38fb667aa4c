import { cutShort, paginate } from '../../runtime/http/pagination';
import { normalizeError } from '../../runtime/normalize-error';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { pagerduty, pagerdutyPages, reference } from './connector';
import { pagerdutyIncidentSpec } from './incident.meta';
import { clip, incidentOf } from './map';

/** Characters of an alert's custom details kept, as JSON text. */
const DETAILS_PREVIEW_CHARS = 500;

type Raw = Record<string, unknown>;

/** One line: the incident, its counts and who is on call (what a report or a prompt shows first). */
function incidentSummary(
  incident: Raw,
  alerts: number,
  entries: number,
  notes: number,
  oncall: unknown,
): string {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const who = Array.isArray(oncall)
    ? [...new Set(oncall.map((o: { user?: { name?: string } | null }) => o.user?.name).filter(Boolean))]
    : [];
  return (
    `Incident ${incident.incident_number ?? incident.id} (${incident.status}, ${incident.urgency} urgency) on ${reference(incident.service)?.name ?? 'an unknown service'}: ` +
    `${clip(incident.title, 100)}; ${plural(alerts, 'alert', 'alerts')}, ${plural(entries, 'log entry', 'log entries')}, ${plural(notes, 'note', 'notes')}` +
    (who.length > 0 ? `; on call: ${who.join(', ')}` : '')
  );
}

/** `pagerduty_incident` with its handler. */
export const pagerdutyIncidentTool = defineTool(pagerdutyIncidentSpec, async (ctx, args) => {
  const session = pagerduty.session(ctx);
  const base = `/incidents/${encodeURIComponent(args.id)}`;
  const { incident } = await session.json<{ incident: Raw }>({
    method: 'GET',
    path: base,
    scope: 'incidents.read',
  });
  const budget = { maxPages: 3, maxBytes: 2 * 1024 * 1024 };
  const alerts =
    args.alerts_limit === 0
      ? undefined
      : await paginate(
          session,
          {
            method: 'GET',
            path: `${base}/alerts`,
            query: { sort_by: 'created_at' },
            scope: 'incidents.read',
          },
          {
            paginator: pagerdutyPages(args.alerts_limit),
            select: (body) => (body as { alerts?: Raw[] } | undefined)?.alerts ?? [],
            budget,
            enough: (all) => all.length >= args.alerts_limit,
          },
          ctx.deadline,
        );
  const log =
    args.log_limit === 0
      ? undefined
      : await paginate(
          session,
          {
            method: 'GET',
            path: `${base}/log_entries`,
            query: { is_overview: true },
            scope: 'incidents.read',
          },
          {
            paginator: pagerdutyPages(args.log_limit),
            select: (body) => (body as { log_entries?: Raw[] } | undefined)?.log_entries ?? [],
            budget,
            enough: (all) => all.length >= args.log_limit,
          },
          ctx.deadline,
        );
  const { notes = [] } = await session.json<{ notes?: Raw[] }>({
    method: 'GET',
    path: `${base}/notes`,
    scope: 'incidents.read',
  });
  const policy = reference(incident.escalation_policy);
  // Who is on call for the incident's policy; a token without oncalls.read still gets the incident.
  let oncall: unknown = null;
  let oncallComplete: boolean | null = null;
  let oncallCut = false;
  if (args.include_oncall && policy) {
    try {
      // Paged like every list ("Pagination": `more`), within the same page budget.
      const read = await paginate(
        session,
        {
          method: 'GET',
          path: '/oncalls',
          query: { 'escalation_policy_ids[]': [policy.id], earliest: true },
          scope: 'oncalls.read',
        },
        {
          paginator: pagerdutyPages(100),
          select: (body) => (body as { oncalls?: Raw[] } | undefined)?.oncalls ?? [],
          budget,
        },
        ctx.deadline,
      );
      oncallComplete = read.complete;
      oncallCut = cutShort(read);
      oncall = read.records.map((entry) => ({
        user: reference(entry.user),
        escalation_level: typeof entry.escalation_level === 'number' ? entry.escalation_level : null,
        end: entry.end ?? null,
      }));
    } catch (err) {
      const error = normalizeError(ctx.tool, err, 'pagerduty');
      oncall = { error: { code: error.code, message: error.message } };
    }
  }
  const alertList = (alerts?.records ?? []).slice(0, args.alerts_limit).map((alert) => {
    const details = (alert.body as { details?: unknown } | undefined)?.details;
    return {
      id: alert.id,
      summary: clip(alert.summary),
      severity: alert.severity ?? null,
      status: alert.status ?? null,
      created_at: alert.created_at ?? null,
      service: reference(alert.service),
      details_preview: details === undefined ? null : clip(JSON.stringify(details), DETAILS_PREVIEW_CHARS),
    };
  });
  const timeline = (log?.records ?? [])
    .slice(0, args.log_limit)
    .map((entry) => ({
      id: entry.id,
      type: entry.type ?? null,
      summary: clip(entry.summary),
      agent: reference(entry.agent),
      channel: (entry.channel as { type?: unknown } | undefined)?.type ?? null,
      created_at: entry.created_at ?? null,
    }))
    .sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
  const noteList = notes.map((note) => ({
    id: note.id,
    user: reference(note.user),
    content: clip(note.content, 2_000),
    created_at: note.created_at ?? null,
  }));
  return {
    value: {
      incident: incidentOf(incident),
      alerts: alertList,
      alerts_complete:
        alerts === undefined ? false : alerts.complete && alerts.records.length <= args.alerts_limit,
      log_entries: timeline,
      log_complete: log === undefined ? false : log.complete && log.records.length <= args.log_limit,
      notes: noteList,
      oncall,
      // Whether every on-call entry of the policy was read (null when none was asked for or the read failed).
      oncall_complete: oncallComplete,
    },
    // Any list the page budget cut short: the alerts, the log or who is on call.
    truncated:
      (alerts !== undefined && cutShort(alerts)) || (log !== undefined && cutShort(log)) || oncallCut,
    summary: incidentSummary(incident, alertList.length, timeline.length, noteList.length, oncall),
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(pagerdutyIncidentTool);
