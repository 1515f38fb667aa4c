import { cutShort, linkHeaderPaginator, paginate, readOutcome } from '../../runtime/http/pagination';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { github, repoPath } from './connector';
import { githubRecentChangesSpec, RECENT_DEPLOYMENTS_MAX } from './recent-changes.meta';
import { windowStart } from './schemas';
import { GITHUB_PAGE_BUDGET, shortText } from './text';

interface ApiCommit {
  sha: string;
  html_url?: string;
  author?: { login?: string } | null;
  commit?: { message?: string; author?: { date?: string }; committer?: { date?: string } };
}

interface ApiDeployment {
  id: number;
  environment?: string;
  ref?: string;
  sha?: string;
  created_at?: string;
  creator?: { login?: string } | null;
  description?: string | null;
}

/** `github_recent_changes` with its handler. */
export const githubRecentChangesTool = defineTool(githubRecentChangesSpec, async (ctx, args) => {
  const since = windowStart(args);
  const until = args.until ? Date.parse(args.until) : Date.now();
  const session = github.session(ctx);
  const base = repoPath(args.repo);
  const commits = await paginate(
    session,
    {
      method: 'GET',
      path: `${base}/commits`,
      query: { since: new Date(since).toISOString(), until: new Date(until).toISOString(), sha: args.branch },
    },
    {
      paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: args.limit }),
      select: (body) => (Array.isArray(body) ? (body as ApiCommit[]) : []),
      budget: GITHUB_PAGE_BUDGET,
      resume: args.cursor,
      enough: (all) => all.length >= args.limit,
    },
    ctx.deadline,
  );
  // Deployments are listed newest first: the first page past `since` ends the read.
  const deploymentsRead = await paginate(
    session,
    { method: 'GET', path: `${base}/deployments`, query: { environment: args.environment } },
    {
      paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: 30 }),
      select: (body) => (Array.isArray(body) ? (body as ApiDeployment[]) : []),
      budget: { maxPages: 3, maxBytes: GITHUB_PAGE_BUDGET.maxBytes },
      until: (page) => page.some((d) => Date.parse(d.created_at ?? '') < since),
    },
    ctx.deadline,
  );
  const allInWindow = deploymentsRead.records.filter((d) => {
    const at = Date.parse(d.created_at ?? '');
    return at >= since && at < until;
  });
  const inWindow = allInWindow.slice(0, RECENT_DEPLOYMENTS_MAX);
  const deployments = [];
  for (const d of inWindow) {
    const statuses = await session.json<{ state?: string; created_at?: string }[]>({
      method: 'GET',
      path: `${base}/deployments/${d.id}/statuses`,
      query: { per_page: 1 },
    });
    const latest = Array.isArray(statuses) ? statuses[0] : undefined;
    deployments.push({
      id: d.id,
      environment: d.environment ?? null,
      ref: d.ref ?? null,
      sha: d.sha ?? null,
      creator: d.creator?.login ?? null,
      created_at: d.created_at ?? null,
      description: d.description ? shortText(d.description) : null,
      state: latest?.state ?? null,
      state_at: latest?.created_at ?? null,
    });
  }
  const commitList = commits.records.slice(0, args.limit).map((c) => ({
    sha: c.sha,
    subject: shortText(c.commit?.message ?? ''),
    author: c.author?.login ?? null,
    committed_at: c.commit?.committer?.date ?? c.commit?.author?.date ?? null,
    url: c.html_url ?? '',
  }));
  return {
    value: {
      repo: args.repo,
      commits: commitList,
      ...readOutcome(commits),
      deployments,
      deployments_complete: deploymentsRead.complete && allInWindow.length <= RECENT_DEPLOYMENTS_MAX,
    },
    truncated: cutShort(commits) || cutShort(deploymentsRead),
    summary:
      `${commitList.length} commit${commitList.length === 1 ? '' : 's'} and ${deployments.length} deployment${deployments.length === 1 ? '' : 's'} in ${args.repo}` +
      (deployments[0]
        ? `; latest deployment to ${deployments[0].environment} at ${deployments[0].created_at}: ${deployments[0].state ?? 'no status'}`
        : ''),
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(githubRecentChangesTool);
