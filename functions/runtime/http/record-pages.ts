/**
 * The list read of a REST family's provider (CRM leads, ATS candidates): one
 * list endpoint read page by page with {@link paginate}, each page's records
 * found at one field of its body, within the query's page budget and the
 * family's byte budget, resumed from the query's cursor.
 */
import type { RestRequest, RestSession } from './connector';
import { field } from './json-fields';
import { type PageRead, type Paginator, paginate } from './pagination';

/** How to read one list endpoint. */
export interface RecordPagesOptions<R = unknown> {
  readonly paginator: Paginator;
  /** The field of a page's body holding its records (`results`, `data`); omitted when the body is the array. */
  readonly recordsAt?: string;
  /** Most pages requested (the tool's `max_pages`). */
  readonly maxPages: number;
  /** Most response bytes read (UTF-8 bodies). */
  readonly maxBytes: number;
  /** A continuation cursor an earlier read returned (`next`), or undefined for the first page. */
  readonly resume?: string | undefined;
  /** Stop after the page for which this is true (a lookup that found what it looks for): the read is complete. */
  readonly until?: (page: readonly R[]) => boolean;
}

/**
 * The records of a page's body: the array at `name` (the body itself without a
 * name); none when it is not an array.
 */
export function recordsOf<R>(body: unknown, name?: string): R[] {
  const records = name === undefined ? body : field(body, name);
  return Array.isArray(records) ? (records as R[]) : [];
}

/**
 * Reads the endpoint's pages (see {@link paginate}: a rate limit or the deadline
 * after some pages returns them with `next`), records typed `R` as the vendor
 * answers them.
 *
 * @throws what {@link paginate} throws: the first page's error.
 * @example
 * const { records, ...read } = await readRecordPages<HubSpotObject>(session,
 *   { method: 'POST', path: '/crm/v3/objects/contacts/search', body },
 *   { paginator, recordsAt: 'results', maxPages: 5, maxBytes: 4_194_304, resume: query.resume }, ctx.deadline);
 */
export function readRecordPages<R>(
  session: Pick<RestSession<unknown>, 'request'>,
  request: RestRequest,
  options: RecordPagesOptions<R>,
  deadline: { remainingMs(): number },
): Promise<PageRead<R>> {
  const { paginator, recordsAt, maxPages, maxBytes, resume, until } = options;
  return paginate<R>(
    session,
    request,
    {
      paginator,
      select: (body) => recordsOf<R>(body, recordsAt),
      budget: { maxPages, maxBytes },
      ...(resume ? { resume } : {}),
      ...(until ? { until } : {}),
    },
    deadline,
  );
}
