import { cutShort, linkHeaderPaginator, paginate, readOutcome } from '../../runtime/http/pagination';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { github } from './connector';
import { githubOrgFactsSpec } from './org-facts.meta';
import { GITHUB_PAGE_BUDGET, shortText } from './text';

/** An organization's public facts, as returned. */
export interface OrgFacts {
  readonly login: string;
  readonly name: string | null;
  readonly description: string | null;
  readonly blog: string | null;
  readonly location: string | null;
  readonly is_verified: boolean | null;
  readonly public_repos: number | null;
  readonly followers: number | null;
  /** ISO 8601 UTC. */
  readonly created_at: string | null;
  /** ISO 8601 UTC. */
  readonly updated_at: string | null;
  readonly url: string | null;
}

/** A public repository, as returned. */
export interface OrgRepo {
  readonly name: string;
  readonly description: string | null;
  readonly language: string | null;
  readonly stars: number;
  readonly forks: number;
  readonly archived: boolean;
  /** ISO 8601 UTC; null for a repository never pushed to. */
  readonly pushed_at: string | null;
  readonly url: string | null;
}

/** The fields read of "Get an organization" (the documented `organization-full`). */
interface ApiOrg {
  login?: string;
  name?: string | null;
  description?: string | null;
  blog?: string | null;
  location?: string | null;
  is_verified?: boolean;
  public_repos?: number;
  followers?: number;
  created_at?: string;
  updated_at?: string;
  html_url?: string;
}

/** The fields read of "List organization repositories" (the documented `minimal-repository`). */
interface ApiRepo {
  name?: string;
  private?: boolean;
  description?: string | null;
  language?: string | null;
  stargazers_count?: number;
  forks_count?: number;
  archived?: boolean;
  pushed_at?: string | null;
  html_url?: string;
}

const DAY_MS = 86_400_000;

const text = (value: string | null | undefined) => (value ? shortText(value) : null);

function factsOf(org: ApiOrg, login: string): OrgFacts {
  return {
    login: org.login ?? login,
    name: org.name ?? null,
    description: text(org.description),
    blog: org.blog || null,
    location: org.location ?? null,
    is_verified: org.is_verified ?? null,
    public_repos: org.public_repos ?? null,
    followers: org.followers ?? null,
    created_at: org.created_at ?? null,
    updated_at: org.updated_at ?? null,
    url: org.html_url ?? null,
  };
}

function repoOf(repo: ApiRepo): OrgRepo {
  return {
    name: repo.name ?? '',
    description: text(repo.description),
    language: repo.language ?? null,
    stars: repo.stargazers_count ?? 0,
    forks: repo.forks_count ?? 0,
    archived: repo.archived ?? false,
    pushed_at: repo.pushed_at ?? null,
    url: repo.html_url ?? null,
  };
}

/** The last push, and how many repositories were pushed within 30 and 90 days of `now`. */
export function recentActivity(repos: readonly OrgRepo[], now: number) {
  const pushes = repos.flatMap((r) => (r.pushed_at ? [Date.parse(r.pushed_at)] : []));
  const within = (days: number) => pushes.filter((at) => now - at <= days * DAY_MS).length;
  return {
    last_pushed_at: pushes.length > 0 ? new Date(Math.max(...pushes)).toISOString() : null,
    repos_pushed_last_30_days: within(30),
    repos_pushed_last_90_days: within(90),
    repos_listed: repos.length,
  };
}

/**
 * `github_org_facts` with its handler: "Get an organization", then (unless
 * `recent_repos` is 0) "List organization repositories" sorted by push, newest
 * first, within the shared GitHub page budget. Private repositories never appear:
 * `type=public`, and any private one answered is dropped.
 */
export const githubOrgFactsTool = defineTool(githubOrgFactsSpec, async (ctx, args) => {
  const session = github.session(ctx);
  const org = await session.json<ApiOrg>({ method: 'GET', path: `/orgs/${encodeURIComponent(args.org)}` });
  const facts = factsOf(org ?? {}, args.org);
  const read =
    args.recent_repos === 0
      ? undefined
      : await paginate(
          session,
          {
            method: 'GET',
            path: `/orgs/${encodeURIComponent(args.org)}/repos`,
            query: { type: 'public', sort: 'pushed', direction: 'desc' },
          },
          {
            paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: args.recent_repos }),
            select: (body) => (Array.isArray(body) ? (body as ApiRepo[]) : []),
            budget: GITHUB_PAGE_BUDGET,
            enough: (all) => all.length >= args.recent_repos,
          },
          ctx.deadline,
        );
  const repos = (read?.records ?? [])
    .filter((r) => r.private !== true)
    .slice(0, args.recent_repos)
    .map(repoOf);
  const activity = recentActivity(repos, Date.now());
  return {
    value: {
      org: facts,
      recent_repos: repos,
      recent_activity: activity,
      ...(read ? readOutcome(read) : { complete: true, next_cursor: null, stopped_by: 'end' as const }),
      requests: 1 + (read?.pages ?? 0),
    },
    truncated: read ? cutShort(read) : false,
    summary:
      `GitHub ${facts.login}: ${facts.public_repos ?? '?'} public repositories, ${facts.followers ?? '?'} followers, ` +
      `since ${facts.created_at?.slice(0, 10) ?? '?'}` +
      (activity.last_pushed_at ? `; last push ${activity.last_pushed_at.slice(0, 10)}` : ''),
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(githubOrgFactsTool);
