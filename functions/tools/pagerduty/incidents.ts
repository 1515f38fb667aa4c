import { cutShort, paginate, readOutcome } from '../../runtime/http/pagination';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { pagerduty, pagerdutyPages } from './connector';
import { pagerdutyIncidentsSpec } from './incidents.meta';
import { incidentOf } from './map';

/** Page budget: 5 pages (PagerDuty's classic pagination stops at offset 10,000 anyway). */
const BUDGET = { maxPages: 5, maxBytes: 4 * 1024 * 1024 } as const;

/** `pagerduty_incidents` with its handler. */
export const pagerdutyIncidentsTool = defineTool(pagerdutyIncidentsSpec, async (ctx, args) => {
  const session = pagerduty.session(ctx);
  const read = await paginate(
    session,
    {
      method: 'GET',
      path: '/incidents',
      query: {
        'statuses[]': args.statuses,
        'urgencies[]': args.urgencies,
        'service_ids[]': args.service_ids,
        since: args.since,
        until: args.until,
        sort_by: 'created_at:desc',
      },
      scope: 'incidents.read',
    },
    {
      paginator: pagerdutyPages(args.limit),
      select: (body) => (body as { incidents?: Record<string, unknown>[] } | undefined)?.incidents ?? [],
      budget: BUDGET,
      resume: args.cursor,
      enough: (all) => all.length >= args.limit,
    },
    ctx.deadline,
  );
  const incidents = read.records.slice(0, args.limit).map(incidentOf);
  return {
    value: { incidents, count: incidents.length, ...readOutcome(read) },
    truncated: cutShort(read),
    summary: `${incidents.length} PagerDuty incident${incidents.length === 1 ? '' : 's'} (${args.statuses.join(', ')})${read.complete ? '' : ', more available'}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(pagerdutyIncidentsTool);
