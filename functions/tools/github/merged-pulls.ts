import { InvalidArgsError } from '../../runtime/errors';
import {
  cutShort,
  linkHeaderPaginator,
  type PageRead,
  paginate,
  readOutcome,
} from '../../runtime/http/pagination';
import { sharedRateLimiter } from '../../runtime/http/rate-limit';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { github, repoPath } from './connector';
import { githubMergedPullsSpec } from './merged-pulls.meta';
import { windowStart } from './schemas';
import { GITHUB_PAGE_BUDGET, shortText } from './text';

/** One merged pull request as returned. */
export interface MergedPull {
  readonly repo: string;
  readonly number: number;
  readonly title: string;
  readonly author: string | null;
  readonly merged_at: string;
  readonly base: string | null;
  readonly merge_commit_sha: string | null;
  readonly labels: string[];
  readonly url: string;
}

interface ApiPull {
  number: number;
  title?: string;
  user?: { login?: string } | null;
  merged_at?: string | null;
  updated_at?: string;
  base?: { ref?: string; repo?: { full_name?: string } };
  merge_commit_sha?: string | null;
  labels?: { name?: string }[];
  html_url?: string;
  repository_url?: string;
  pull_request?: { merged_at?: string | null };
}

/**
 * The search API's own limit: 30 requests a minute for authenticated users
 * ("Rate limits for the REST API", search): a bucket of its own per tenant.
 */
const SEARCH_RATE = { burst: 5, perSecond: 0.5 };

/** Results one search query reaches ("Search" → "About search": up to 1,000 results for each search). */
export const SEARCH_MAX_RESULTS = 1_000;

/** What a search page says besides its items ("Search": `total_count`, `incomplete_results`). */
interface SearchFacts {
  /** The matches of the query, all of them (beyond the 1,000 the API returns too). */
  totalCount: number;
  /** A page answered `incomplete_results: true`: the query timed out and matches may be missing. */
  incomplete: boolean;
}

function pullOf(pull: ApiPull, repo: string): MergedPull {
  return {
    repo,
    number: pull.number,
    title: shortText(pull.title ?? ''),
    author: pull.user?.login ?? null,
    merged_at: (pull.merged_at ?? pull.pull_request?.merged_at) as string,
    base: pull.base?.ref ?? null,
    merge_commit_sha: pull.merge_commit_sha ?? null,
    labels: (pull.labels ?? []).map((l) => l.name ?? '').filter(Boolean),
    url: pull.html_url ?? '',
  };
}

/** `github_merged_pulls` with its handler. */
export const githubMergedPullsTool = defineTool(githubMergedPullsSpec, async (ctx, args) => {
  const since = windowStart(args);
  const until = args.until ? Date.parse(args.until) : Date.now();
  if (args.org && args.base) throw new InvalidArgsError('base applies to repo only; with org, leave it out');
  const session = github.session(ctx);
  const inWindow = (at: string | null | undefined) =>
    !!at && Date.parse(at) >= since && Date.parse(at) < until;
  let read: PageRead<ApiPull>;
  let repoOf: (pull: ApiPull) => string;
  let search: SearchFacts | undefined;
  if (args.repo) {
    const repo = args.repo;
    repoOf = () => repo;
    // Sorted by update, newest first: a pull merged in the window was updated after `since`.
    read = await paginate(
      session,
      {
        method: 'GET',
        path: `${repoPath(repo)}/pulls`,
        query: { state: 'closed', sort: 'updated', direction: 'desc', base: args.base },
      },
      {
        paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: args.limit }),
        select: (body) => (Array.isArray(body) ? (body as ApiPull[]) : []),
        budget: GITHUB_PAGE_BUDGET,
        resume: args.cursor,
        until: (page) => page.some((p) => p.updated_at !== undefined && Date.parse(p.updated_at) < since),
        enough: (all) => all.filter((p) => inWindow(p.merged_at)).length >= args.limit,
      },
      ctx.deadline,
    );
  } else {
    repoOf = (pull) => (pull.repository_url ?? '').split('/repos/')[1] ?? '';
    const window = `${searchTime(since, Math.floor)}..${searchTime(until, Math.ceil)}`;
    const searchSession = {
      request: async (request: Parameters<typeof session.request>[0]) => {
        await sharedRateLimiter.acquire(`${ctx.tenant}\u0000github-search`, SEARCH_RATE, {
          remainingMs: ctx.deadline.remainingMs(),
          signal: ctx.deadline.signal,
          service: 'github',
        });
        return session.request(request);
      },
    };
    read = await paginate(
      searchSession,
      {
        method: 'GET',
        path: '/search/issues',
        query: { q: `org:${args.org} is:pr is:merged merged:${window}`, sort: 'updated', order: 'desc' },
      },
      {
        paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: args.limit }),
        select: (body) => {
          const page = body as { items?: ApiPull[]; total_count?: unknown; incomplete_results?: unknown };
          search = {
            totalCount: typeof page?.total_count === 'number' ? page.total_count : (search?.totalCount ?? 0),
            incomplete: (search?.incomplete ?? false) || page?.incomplete_results === true,
          };
          return page?.items ?? [];
        },
        budget: GITHUB_PAGE_BUDGET,
        resume: args.cursor,
        enough: (all) => all.length >= args.limit,
      },
      ctx.deadline,
    );
  }
  const pulls = read.records
    .filter((p) => inWindow(p.merged_at ?? p.pull_request?.merged_at))
    .map((p) => pullOf(p, repoOf(p)));
  let outcome = readOutcome(read);
  // A search read to its end is complete only when the API returned every match: past its
  // 1,000 results it pages no further (a narrower window reads on), and a timed-out query
  // (`incomplete_results`) may have left matches out.
  const found = search as SearchFacts | undefined;
  if (found && read.stoppedBy === 'end' && found.totalCount > SEARCH_MAX_RESULTS) {
    outcome = { ...outcome, complete: false, next_cursor: null, stopped_by: 'window' };
  }
  if (found?.incomplete) outcome = { ...outcome, complete: false };
  const searchFacts = found
    ? { total_count: found.totalCount, ...(found.incomplete ? { incomplete_results: true } : {}) }
    : {};
  return {
    value: { pulls, count: pulls.length, ...outcome, ...searchFacts },
    truncated: cutShort(read) || outcome.stopped_by === 'window' || found?.incomplete === true,
    summary:
      `${pulls.length} pull request${pulls.length === 1 ? '' : 's'} merged in ${args.repo ?? args.org}${outcome.complete ? '' : ', more available'}` +
      (outcome.stopped_by === 'window'
        ? ` (the search API returns ${SEARCH_MAX_RESULTS} of ${found?.totalCount}: narrow the window)`
        : '') +
      (found?.incomplete ? ' (the search timed out: results may be missing)' : '') +
      (pulls.length > 0
        ? `: ${pulls
            .slice(0, 3)
            .map((p) => `#${p.number} ${p.title.slice(0, 60)}`)
            .join('; ')}`
        : ''),
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(githubMergedPullsTool);

/**
 * A time as GitHub's search syntax takes it ("Understanding the search syntax",
 * "Query by dates": `YYYY-MM-DDTHH:MM:SS+00:00`, whole seconds, no milliseconds),
 * rounded by `round` to a whole second: down for a window's start, up for its end,
 * so the window sent covers the one asked; `inWindow` drops what the rounding adds.
 *
 * @example searchTime(Date.parse('2026-03-01T10:00:00.250Z'), Math.floor) // '2026-03-01T10:00:00+00:00'
 */
function searchTime(ms: number, round: (seconds: number) => number): string {
  return `${new Date(round(ms / 1000) * 1000).toISOString().slice(0, 19)}+00:00`;
}
