import { mapBounded } from '../../runtime/concurrency';
import { providerCursor, resumeFrom } from '../../runtime/http/provider-cursor';
import { normalizeError } from '../../runtime/normalize-error';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import type { Company } from './family';
import { crmListLeadsSpec } from './list-leads.meta';
import { crmProvider } from './provider';
import { COMPANIES_PER_CALL } from './schemas';

/** Company reads in flight at once. */
const COMPANY_CONCURRENCY = 4;

/**
 * The `since` of a later read that returns only leads this read did not (a
 * run's watermark, docs/crm.md): the read's own `since` when it found nothing;
 * 1 ms after the newest lead's time when it read to the end (`since` is
 * inclusive); that time itself when it stopped early, so leads sharing the
 * last instant are not skipped (the last lead may then be read again).
 */
export function nextSince(since: string, lastTime: string | null, complete: boolean): string {
  if (lastTime === null) return new Date(Date.parse(since)).toISOString();
  const last = Date.parse(lastTime);
  return new Date(complete ? last + 1 : last).toISOString();
}

/** `crm_list_leads` with its handler. */
export const crmListLeadsTool = defineTool(crmListLeadsSpec, async (ctx, args) => {
  const provider = await crmProvider(ctx);
  const resume = args.cursor === undefined ? undefined : resumeFrom(provider.name, args.cursor);
  const pageSize = Math.min(args.limit, provider.maxPageSize);
  // Whole pages only, so the cursor resumes exactly after the last lead returned.
  const maxPages = Math.max(1, Math.floor(args.limit / pageSize));
  const read = await provider.listLeads({
    since: args.since,
    field: args.field,
    pageSize,
    maxPages,
    ...(resume === undefined ? {} : { resume }),
  });
  const { leads } = read;
  let companies: Company[] | undefined;
  let companiesMissing: { id: string; code: string }[] | undefined;
  let companiesSkipped = 0;
  if (args.include_companies) {
    const ids = [...new Set(leads.map((l) => l.company_id).filter((id): id is string => id !== null))];
    companiesSkipped = Math.max(0, ids.length - COMPANIES_PER_CALL);
    const { settled, skipped } = await mapBounded(
      ids.slice(0, COMPANIES_PER_CALL),
      (id) => provider.getCompany(id),
      { concurrency: COMPANY_CONCURRENCY, deadline: ctx.deadline },
    );
    companiesSkipped += skipped.length;
    companies = settled.flatMap((s) => (s.ok ? [s.value] : []));
    companiesMissing = settled.flatMap((s) =>
      s.ok ? [] : [{ id: s.item, code: normalizeError(ctx.tool, s.error, provider.name).code }],
    );
  }
  const last = leads.at(-1);
  const lastTime = last
    ? args.field === 'updated'
      ? (last.updated_at ?? last.created_at)
      : last.created_at
    : null;
  const value = {
    provider: provider.name,
    since: args.since,
    field: args.field,
    leads,
    ...(companies
      ? { companies, companies_missing: companiesMissing, companies_skipped: companiesSkipped }
      : {}),
    next_cursor: providerCursor(provider.name, read.next),
    // Past HubSpot's 10,000 results per query: call again with since = resume_since.
    resume_since: lastTime,
    next_since: nextSince(args.since, lastTime, read.complete),
    complete: read.complete,
    stopped_by: read.stoppedBy,
    ...(read.retryAfterMs === undefined ? {} : { retry_after_ms: read.retryAfterMs }),
    pages: read.pages,
    requests: provider.requests(),
  };
  const more = read.complete
    ? ''
    : read.stoppedBy === 'window'
      ? ` (more: ${provider.name} pages no further for this query, call again with since = resume_since)`
      : ` (more: ${read.stoppedBy}, continue with next_cursor)`;
  const withCompanies = companies ? ` with ${companies.length} companies` : '';
  return {
    value,
    truncated: !read.complete || companiesSkipped > 0,
    summary: `${leads.length} leads ${args.field} since ${args.since} in ${provider.name}${withCompanies}${more}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(crmListLeadsTool);
