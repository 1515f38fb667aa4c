/**
 * Runs the Athena route's queries (inventory-sql.ts) for reports above what one
 * function reads (`MAX_INDEX_OBJECTS`): StartQueryExecution in the configured
 * workgroup and database, GetQueryExecution polled with a doubling backoff
 * until the query ends, then GetQueryResults through the SDK's paginator
 * (Athena API Reference: "StartQueryExecution", "GetQueryExecution",
 * "GetQueryResults": at most 1,000 rows a page, the first page's first row the
 * column names). Results are written only under the run's workspace prefix
 * (`ResultConfiguration.OutputLocation`), which the role may write and nothing else.
 */
import {
  type AthenaClient,
  GetQueryExecutionCommand,
  paginateGetQueryResults,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { readPages } from '../../../runtime/aws/pagination';
import type { Deadline } from '../../../runtime/deadline';
import { DeadlineExceededError, InvalidArgsError, PlatformError } from '../../../runtime/errors';
import { bucketName, glueName, safePrefix } from './inventory-sql';

/** Where the route runs its queries (platform settings). */
export interface AthenaRouteSettings {
  /** Athena workgroup name: 1-128 letters, digits, `.`, `_`, `-` (Athena API Reference, "WorkGroup"). */
  readonly workGroup: string;
  /** Glue database holding the inventory tables. */
  readonly database: string;
  /** The run's workspace results prefix: `s3://<bucket>/runs/…/athena/`. */
  readonly outputLocation: string;
}

/** Polling of GetQueryExecution: first wait and cap, ms. */
export const POLL_FIRST_MS = 250;
export const POLL_MAX_MS = 4_000;
/** GetQueryResults pages read at most: 1,000 rows each (Athena API Reference, "GetQueryResults" MaxResults). */
const MAX_RESULT_PAGES = 100;

const WORK_GROUP = /^[a-zA-Z0-9._-]{1,128}$/;
const OUTPUT_LOCATION = /^s3:\/\/([^/]+)\/(runs\/.+\/)$/;

/** What a query cost and took. */
export interface AthenaQueryStats {
  readonly queryExecutionId: string;
  /** Bytes Athena scanned (what it bills, $5 per TB: Athena pricing page). */
  readonly dataScannedBytes: number;
  /** Athena's engine time, ms. */
  readonly engineMs: number;
  /** API requests made: 1 start, the polls, the result pages. */
  readonly requests: number;
}

/**
 * Checks the settings before any call.
 *
 * @throws InvalidArgsError for a workgroup, database or output location that breaks its rule
 *   (an output location outside `s3://<bucket>/runs/…/` included).
 */
export function checkedSettings(settings: AthenaRouteSettings): AthenaRouteSettings {
  if (!WORK_GROUP.test(settings.workGroup)) {
    throw new InvalidArgsError(
      `Athena workgroup ${JSON.stringify(settings.workGroup)} is not valid: 1-128 letters, digits, . _ -`,
    );
  }
  glueName('database', settings.database);
  const match = OUTPUT_LOCATION.exec(settings.outputLocation);
  if (!match) {
    throw new InvalidArgsError(
      `Athena output location ${JSON.stringify(settings.outputLocation)} is not valid: s3://<workspace bucket>/runs/…/ (the run's workspace only)`,
    );
  }
  bucketName('output bucket', match[1] as string);
  safePrefix('output prefix', match[2] as string);
  return settings;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Runs one query and returns its rows as column-name → text records.
 *
 * @throws InvalidArgsError for bad settings (before any call).
 * @throws PlatformError (`upstream_error`) when the query FAILED or was CANCELLED, with Athena's reason.
 * @throws DeadlineExceededError when the call's deadline passes while the query runs.
 */
export async function runAthenaQuery(
  athena: AthenaClient,
  sql: string,
  settings: AthenaRouteSettings,
  deadline: Deadline,
): Promise<{ readonly rows: Record<string, string>[]; readonly stats: AthenaQueryStats }> {
  const { workGroup, database, outputLocation } = checkedSettings(settings);
  const started = await athena.send(
    new StartQueryExecutionCommand({
      QueryString: sql,
      WorkGroup: workGroup,
      QueryExecutionContext: { Database: database },
      ResultConfiguration: { OutputLocation: outputLocation },
    }),
    { abortSignal: deadline.signal },
  );
  const id = started.QueryExecutionId;
  if (!id)
    throw new PlatformError('upstream_error', 'Athena returned no QueryExecutionId', { service: 'athena' });
  let requests = 1;
  let wait = POLL_FIRST_MS;
  for (;;) {
    if (deadline.remainingMs() <= wait) {
      throw new DeadlineExceededError(`Athena query ${id} still running at the call's deadline`, {
        service: 'athena',
        details: { queryExecutionId: id },
      });
    }
    await sleep(wait, deadline.signal);
    wait = Math.min(POLL_MAX_MS, wait * 2);
    const { QueryExecution: execution } = await athena.send(
      new GetQueryExecutionCommand({ QueryExecutionId: id }),
      { abortSignal: deadline.signal },
    );
    requests++;
    const state = execution?.Status?.State;
    if (state === 'SUCCEEDED') {
      const rows: Record<string, string>[] = [];
      let columns: string[] | undefined;
      const read = await readPages(
        paginateGetQueryResults({ client: athena, pageSize: 1000 }, { QueryExecutionId: id }),
        (page) => {
          requests++;
          const data = page.ResultSet?.Rows ?? [];
          let from = 0;
          if (!columns) {
            columns = (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c) => c.Name ?? '');
            from = 1; // the header row
          }
          for (const row of data.slice(from)) {
            const values = row.Data ?? [];
            rows.push(Object.fromEntries((columns ?? []).map((c, i) => [c, values[i]?.VarCharValue ?? ''])));
          }
        },
        { maxPages: MAX_RESULT_PAGES, deadline },
      );
      if (read.stoppedBy) {
        throw new PlatformError(
          'upstream_error',
          `Athena query ${id}: results not read in full (${read.stoppedBy})`,
          {
            service: 'athena',
            details: { queryExecutionId: id, stoppedBy: read.stoppedBy },
          },
        );
      }
      const statistics = execution?.Statistics;
      return {
        rows,
        stats: {
          queryExecutionId: id,
          dataScannedBytes: statistics?.DataScannedInBytes ?? 0,
          engineMs: statistics?.EngineExecutionTimeInMillis ?? 0,
          requests,
        },
      };
    }
    if (state === 'FAILED' || state === 'CANCELLED') {
      throw new PlatformError(
        'upstream_error',
        `Athena query ${id} ${state}: ${execution?.Status?.StateChangeReason ?? 'no reason given'}`,
        { service: 'athena', details: { queryExecutionId: id, state } },
      );
    }
  }
}
