import { cutShort, paginate } from '../../runtime/http/pagination';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { pagerduty, pagerdutyPages, reference } from './connector';
import { pagerdutyOncallSpec } from './oncall.meta';

/** `pagerduty_oncall` with its handler. */
export const pagerdutyOncallTool = defineTool(pagerdutyOncallSpec, async (ctx, args) => {
  const session = pagerduty.session(ctx);
  const read = await paginate(
    session,
    {
      method: 'GET',
      path: '/oncalls',
      query: {
        'schedule_ids[]': args.schedule_ids,
        'escalation_policy_ids[]': args.escalation_policy_ids,
        // Only the earliest on-call per user, policy and level: who is on call now.
        earliest: true,
      },
      scope: 'oncalls.read',
    },
    {
      paginator: pagerdutyPages(100),
      select: (body) => (body as { oncalls?: Record<string, unknown>[] } | undefined)?.oncalls ?? [],
      budget: { maxPages: 3, maxBytes: 2 * 1024 * 1024 },
    },
    ctx.deadline,
  );
  const oncalls = read.records.map((entry) => ({
    user: reference(entry.user),
    schedule: reference(entry.schedule),
    escalation_policy: reference(entry.escalation_policy),
    escalation_level: typeof entry.escalation_level === 'number' ? entry.escalation_level : null,
    start: entry.start ?? null,
    end: entry.end ?? null,
  }));
  const names = [...new Set(oncalls.map((o) => o.user?.name).filter(Boolean))];
  return {
    value: {
      oncalls,
      complete: read.complete,
      stopped_by: read.stoppedBy,
      ...(read.retryAfterMs === undefined ? {} : { retry_after_ms: read.retryAfterMs }),
    },
    truncated: cutShort(read),
    summary:
      names.length > 0
        ? `On call: ${names.join(', ')}`
        : 'Nobody is on call for these schedules and policies',
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(pagerdutyOncallTool);
