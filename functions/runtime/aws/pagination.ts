import type { Deadline } from '../deadline';

/** Pages read from one paginated AWS call at most, unless the tool says otherwise. */
export const DEFAULT_MAX_PAGES = 100;

/** Why reading pages stopped before the last page. */
export type PageStop = 'page_cap' | 'deadline' | 'repeated_token';

/** What {@link readPages} read. */
export interface PagesRead {
  /** Pages handed to `onPage`. */
  readonly pages: number;
  /** Set when reading stopped before the last page. */
  readonly stoppedBy?: PageStop;
}

/** A page that carries its continuation token under one of AWS's usual names. */
type TokenPage = {
  NextToken?: string;
  nextToken?: string;
  Marker?: string;
  NextMarker?: string;
  ContinuationToken?: string;
  NextContinuationToken?: string;
  /** Cost Explorer's name (GetCostAndUsage, GetAnomalies). */
  NextPageToken?: string;
};

function tokenOf(page: unknown): string | undefined {
  const p = (page ?? {}) as TokenPage;
  return (
    p.NextToken ??
    p.nextToken ??
    p.NextMarker ??
    p.Marker ??
    p.NextContinuationToken ??
    p.NextPageToken ??
    undefined
  );
}

/**
 * Reads an AWS SDK v3 paginator (`paginateDescribeInstances(…)`) page by page
 * with a page cap, a deadline check before each page, and a stop when a page
 * repeats the previous page's token (some APIs loop on their last page).
 * `stoppedBy` is set only when pages were left unread: reaching the cap or the
 * deadline right after a page with no continuation token is a normal end.
 *
 * @param pages - the paginator.
 * @param onPage - called for each page in order.
 * @param options.nextToken - reads a page's continuation token where its name is
 *   ambiguous: S3 ListBuckets answers the next token as `ContinuationToken`, the
 *   name under which ListObjectsV2 echoes the request's token, so it is not
 *   guessed. @default the names of {@link TokenPage}
 * @example
 * const read = await readPages(paginateDescribeInstances({ client }, {}), (page) => {
 *   for (const r of page.Reservations ?? []) instances.push(...(r.Instances ?? []));
 * }, { deadline: ctx.deadline });
 * if (read.stoppedBy) truncated = true;
 */
export async function readPages<P>(
  pages: AsyncIterable<P>,
  onPage: (page: P) => void,
  options: {
    readonly maxPages?: number;
    readonly deadline?: Deadline;
    readonly nextToken?: (page: P) => string | undefined;
  } = {},
): Promise<PagesRead> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  let count = 0;
  let previousToken: string | undefined;
  const iterator = pages[Symbol.asyncIterator]();
  try {
    while (true) {
      const stop = count >= maxPages ? 'page_cap' : options.deadline?.expired() ? 'deadline' : undefined;
      // A page without a continuation token was the last (the SDK paginators end on it too): nothing was cut.
      if (stop) return count > 0 && !previousToken ? { pages: count } : { pages: count, stoppedBy: stop };
      const next = await iterator.next();
      if (next.done) return { pages: count };
      onPage(next.value);
      count++;
      const token = options.nextToken ? options.nextToken(next.value) : tokenOf(next.value);
      if (token !== undefined && token === previousToken)
        return { pages: count, stoppedBy: 'repeated_token' };
      previousToken = token;
    }
  } finally {
    await iterator.return?.();
  }
}

/**
 * Pages of an AWS call the SDK has no paginator for (Cost Explorer
 * GetCostAndUsage, Compute Optimizer GetEC2InstanceRecommendations…): calls
 * `fetchPage` with the previous page's continuation token (any of the names
 * {@link readPages} knows) until a page carries none. Hand it to
 * {@link readPages} for the page cap, the deadline and the repeated-token stop.
 *
 * @param fetchPage - sends one request; `token` is undefined for the first page.
 * @example
 * await readPages(pagesByToken((token) => client.send(new GetEC2InstanceRecommendationsCommand({ nextToken: token }))),
 *   (page) => recommendations.push(...(page.instanceRecommendations ?? [])), { deadline: ctx.deadline });
 */
export async function* pagesByToken<P>(
  fetchPage: (token: string | undefined) => Promise<P>,
): AsyncGenerator<P> {
  let token: string | undefined;
  do {
    const page = await fetchPage(token);
    yield page;
    token = tokenOf(page) || undefined;
  } while (token !== undefined);
}
