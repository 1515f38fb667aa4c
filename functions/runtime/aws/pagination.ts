import type { Deadline } from '../deadline';
import { normalizeError } from '../normalize-error';
import type { ToolErrorInfo } from '../result';

/** Pages read from one paginated AWS call at most, unless the tool says otherwise. */
export const DEFAULT_MAX_PAGES = 100;

/**
 * Why reading pages stopped before the last page: the page cap, the deadline, a
 * page repeating its predecessor's token, or a throttling answer after at least
 * one page (`throttled`: the pages read are kept, the rate limit is the caller's
 * to wait out; a throttled first page is an error, as any failed call).
 */
export type PageStop = 'page_cap' | 'deadline' | 'repeated_token' | 'throttled';

/** What {@link readPages} read. */
export interface PagesRead {
  /** Pages handed to `onPage`. */
  readonly pages: number;
  /** Set when reading stopped before the last page. */
  readonly stoppedBy?: PageStop;
  /**
   * With `stoppedBy` (not `repeated_token`): the continuation token of the first
   * page not read, as the API issued it (`NextToken`, `Marker`…): sent back as the
   * request's token, the read resumes there.
   */
  readonly nextToken?: string;
  /** With `stoppedBy: 'throttled'`: the answer that stopped it, normalized (code `throttled`, the AWS error name in `details`). */
  readonly stopError?: ToolErrorInfo;
}

/**
 * What a tool reports of a read that stopped early, beside its items: `stoppedBy`,
 * `nextToken` and `stopError` as {@link PagesRead} has them; nothing for a complete read.
 *
 * @example stopFields({ pages: 3, stoppedBy: 'throttled', nextToken: 'AAE…', stopError })
 * // => { stoppedBy: 'throttled', nextToken: 'AAE…', stopError: { code: 'throttled', … } }
 */
export function stopFields(
  read: PagesRead | undefined,
): Pick<PagesRead, 'stoppedBy' | 'nextToken' | 'stopError'> {
  if (!read?.stoppedBy) return {};
  return {
    stoppedBy: read.stoppedBy,
    ...(read.nextToken === undefined ? {} : { nextToken: read.nextToken }),
    ...(read.stopError ? { stopError: read.stopError } : {}),
  };
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
 * deadline right after a page with no continuation token is a normal end. A
 * throttling answer (`ThrottlingException`, `RequestLimitExceeded`, HTTP 429…,
 * as the SDK classifies them, after its own retries) to a page after the first
 * ends the read `throttled` with the pages read, the token to resume from and the
 * normalized error ({@link PagesRead}); on the first page, and any other error, it is thrown.
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
  const stopped = (stoppedBy: PageStop, stopError?: ToolErrorInfo): PagesRead => ({
    pages: count,
    stoppedBy,
    ...(previousToken === undefined ? {} : { nextToken: previousToken }),
    ...(stopError ? { stopError } : {}),
  });
  try {
    while (true) {
      const stop = count >= maxPages ? 'page_cap' : options.deadline?.expired() ? 'deadline' : undefined;
      // A page without a continuation token was the last (the SDK paginators end on it too): nothing was cut.
      if (stop) return count > 0 && !previousToken ? { pages: count } : stopped(stop);
      let next: IteratorResult<P>;
      try {
        next = await iterator.next();
      } catch (err) {
        // Throttled after some pages: what was read is kept, with the token to resume from.
        const error = count > 0 ? normalizeError('pagination', err) : undefined;
        if (error?.code === 'throttled') return stopped('throttled', error);
        throw err;
      }
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
