import { IDEMPOTENCY_RECORD_SECONDS, recordSeconds } from '../../runtime/call-key';
import { PlatformError } from '../../runtime/errors';
import { writeAttemptTimeoutMs } from '../../runtime/http/connector';
import { linkHeaderPaginator, paginate } from '../../runtime/http/pagination';
import { writeMarker, writeOnce } from '../../runtime/http/write-once';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { assertClearWrite } from '../../runtime/write-answer';
import { github, repoPath } from './connector';
import { githubCreateIssueSpec } from './create-issue.meta';

interface ApiIssue {
  number?: unknown;
  html_url?: unknown;
  body?: unknown;
  created_at?: unknown;
}

/** How far back an issue whose answer this attempt lost is looked for, ms before the attempt started (clock skew, a slow first attempt). */
const LOOKUP_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * How far back an issue is looked for, ms: an earlier attempt that died without
 * an outcome (`ctx.idempotency.resumed`) started within its record's lifetime
 * (`recordSeconds`, runtime/call-key.ts: a Step Functions redrive may resume it
 * days later), so that far; else {@link LOOKUP_WINDOW_MS}.
 */
function lookbackMs(resumed: boolean): number {
  if (!resumed) return LOOKUP_WINDOW_MS;
  return Math.max(LOOKUP_WINDOW_MS, (recordSeconds() ?? IDEMPOTENCY_RECORD_SECONDS) * 1000);
}

/** The marker as it ends an issue body: an HTML comment, which GitHub does not render. */
export function issueMarker(marker: string): string {
  return `<!-- ${marker} -->`;
}

/** `github_create_issue` with its handler. */
export const githubCreateIssueTool = defineTool(githubCreateIssueSpec, async (ctx, args) => {
  const session = github.session(ctx, {
    attemptTimeoutMs: writeAttemptTimeoutMs(ctx.deadline.remainingMs()),
  });
  const path = `${repoPath(args.repo)}/issues`;
  const marker = issueMarker(writeMarker(ctx));
  const started = Date.now();
  const result = (issue: ApiIssue) => ({
    repo: args.repo,
    number: issue.number as number,
    url: issue.html_url as string,
  });
  const outcome = await writeOnce(ctx, {
    service: 'github',
    what: `issue in ${args.repo}`,
    write: async () => {
      const response = await session.request({
        method: 'POST',
        path,
        body: {
          title: args.title,
          body: `${args.body}${args.body ? '\n\n' : ''}${marker}`,
          ...(args.labels ? { labels: args.labels } : {}),
          ...(args.assignees ? { assignees: args.assignees } : {}),
        },
      });
      const created = response.body as ApiIssue | undefined;
      // Done only when GitHub names the issue it opened.
      assertClearWrite(
        { status: response.status, body: response.text },
        {
          service: 'github',
          write: 'issue creation',
          expected: 'the created issue (number and url)',
          acknowledges: () => typeof created?.number === 'number' && typeof created.html_url === 'string',
        },
      );
      return result(created as ApiIssue);
    },
    // Recently updated issues (pull requests included), newest first, carrying the marker.
    find: async () => {
      const from = started - lookbackMs(ctx.idempotency?.resumed === true);
      const read = await paginate(
        session,
        {
          method: 'GET',
          path,
          query: {
            state: 'all',
            sort: 'created',
            direction: 'desc',
            since: new Date(from).toISOString(),
          },
        },
        {
          paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: 100 }),
          select: (body) => (Array.isArray(body) ? (body as ApiIssue[]) : []),
          budget: { maxPages: 3, maxBytes: 8 * 1024 * 1024 },
          // Newest created first: the marker found, or a page reaching issues created before the window, ends it.
          until: (page) =>
            page.some(
              (i) =>
                (typeof i.body === 'string' && i.body.includes(marker)) ||
                (typeof i.created_at === 'string' && Date.parse(i.created_at) < from),
            ),
        },
        ctx.deadline,
      );
      const found = read.records.find((i) => typeof i.body === 'string' && i.body.includes(marker));
      if (found) return result(found);
      // Not every recent issue was read: the issue may be there, unseen.
      if (!read.complete) {
        throw new PlatformError(
          'upstream_error',
          `only ${read.pages} pages of recent issues could be read (${read.stoppedBy})`,
          {
            service: 'github',
          },
        );
      }
      return undefined;
    },
  });
  return {
    value: { ...outcome.value, recovered: outcome.recovered },
    summary: `${outcome.recovered ? 'Found already opened' : 'Opened'} issue #${outcome.value.number} in ${args.repo}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(githubCreateIssueTool);
