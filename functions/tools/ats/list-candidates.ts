import { InvalidArgsError } from '../../runtime/errors';
import { providerCursor, resumeFrom } from '../../runtime/http/provider-cursor';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { atsListCandidatesSpec } from './list-candidates.meta';
import { atsProvider } from './provider';

/** `ats_list_candidates` with its handler. */
export const atsListCandidatesTool = defineTool(atsListCandidatesSpec, async (ctx, args) => {
  if (args.since && args.until && Date.parse(args.until) <= Date.parse(args.since)) {
    throw new InvalidArgsError(`until (${args.until}) must be after since (${args.since})`);
  }
  const provider = await atsProvider(ctx);
  const resume = args.cursor === undefined ? undefined : resumeFrom(provider.name, args.cursor);
  const pageSize = Math.min(args.limit, provider.maxPageSize);
  const read = await provider.listCandidates({
    ...(args.job_id === undefined ? {} : { jobId: args.job_id }),
    ...(args.stage === undefined ? {} : { stage: args.stage }),
    ...(args.since === undefined ? {} : { since: args.since }),
    ...(args.until === undefined ? {} : { until: args.until }),
    field: args.field,
    pageSize,
    maxPages: Math.max(1, Math.floor(args.limit / pageSize)),
    ...(resume === undefined ? {} : { continueFrom: resume }),
  });
  const more = read.complete ? '' : ` (more: ${read.stoppedBy}, continue with next_cursor)`;
  return {
    value: {
      provider: provider.name,
      candidates: read.candidates,
      scanned: read.scanned,
      next_cursor: providerCursor(provider.name, read.next),
      complete: read.complete,
      stopped_by: read.stoppedBy,
      ...(read.retryAfterMs === undefined ? {} : { retry_after_ms: read.retryAfterMs }),
      pages: read.pages,
      requests: provider.requests(),
    },
    truncated: !read.complete,
    summary: `${read.candidates.length} applications of ${read.scanned} candidates read in ${provider.name}${more}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(atsListCandidatesTool);
