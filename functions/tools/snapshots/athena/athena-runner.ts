/**
 * Runs the Athena route's queries (inventory-sql.ts) for reports above what one
 * function reads (`MAX_INDEX_OBJECTS`): StartQueryExecution in the configured
 * workgroup and database, GetQueryExecution polled with a doubling backoff
 * until the query ends, then GetQueryResults through the SDK's paginator
 * (Athena API Reference: "StartQueryExecution", "GetQueryExecution",
 * "GetQueryResults": at most 1,000 rows a page, the first page's first row the
 * column names), in a workgroup with Athena managed query results (Athena
 * User Guide, "Managed query results"): no output location, results read
 * through GetQueryResults only.
 */
import type { AthenaClient } from '@aws-sdk/client-athena';
import { readPages } from '../../../runtime/aws/pagination';
import type { Deadline } from '../../../runtime/deadline';
import { DeadlineExceededError, PlatformError, ServiceCallError } from '../../../runtime/errors';
import { athenaSdk } from '../lazy-sdk';
import {
  createTableStatement,
  type InventoryTableRef,
  type InventoryTableSpec,
  inventoryTableName,
} from './inventory-sql';
import type { FigureRow } from './query-figures';
import type { AthenaRouteSettings } from './settings';

/** Polling of GetQueryExecution: first wait and cap, ms. */
export const POLL_FIRST_MS = 250;
export const POLL_MAX_MS = 4_000;
/** GetQueryResults pages read at most: 1,000 rows each (Athena API Reference, "GetQueryResults" MaxResults). */
const MAX_RESULT_PAGES = 100;

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

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Runs `call`, one or more Athena API requests, reporting what the SDK throws as
 * Athena's error (`ServiceCallError`, which `normalizeError` maps with service
 * `athena`): the tools' specs name `s3`, the service of their other calls, so an
 * unreachable Athena endpoint, an AccessDenied or a throttle of Athena's would
 * otherwise be reported as S3's. Our own errors, and errors already tagged (STS
 * under the credential provider), keep their labels.
 */
export async function inAthena<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof PlatformError || err instanceof ServiceCallError) throw err;
    throw new ServiceCallError('athena', err);
  }
}

/**
 * Runs one query in the settings' workgroup and database and returns its rows
 * as column-name → text records. No `ResultConfiguration`: the workgroup
 * (CustomerAccessStack) keeps results in Athena managed query results, read
 * back only through GetQueryResults, so no bucket of the customer's or the
 * platform's is written by Athena.
 *
 * @throws PlatformError (`upstream_error`) when the query FAILED or was CANCELLED, with Athena's reason.
 * @throws DeadlineExceededError when the call's deadline passes while the query runs.
 * @throws ServiceCallError (`athena`) around what the SDK threw ({@link inAthena}).
 */
export function runAthenaQuery(
  athena: AthenaClient,
  sql: string,
  settings: Pick<AthenaRouteSettings, 'workGroup' | 'database'>,
  deadline: Deadline,
): Promise<{ readonly rows: Record<string, string>[]; readonly stats: AthenaQueryStats }> {
  return inAthena(() => queryAthena(athena, sql, settings, deadline));
}

/** {@link runAthenaQuery}'s requests, the SDK's errors as thrown. */
async function queryAthena(
  athena: AthenaClient,
  sql: string,
  settings: Pick<AthenaRouteSettings, 'workGroup' | 'database'>,
  deadline: Deadline,
): Promise<{ readonly rows: Record<string, string>[]; readonly stats: AthenaQueryStats }> {
  // Loaded on first use (lazy-sdk.ts): calls that never reach Athena never pay for its model.
  const { StartQueryExecutionCommand, GetQueryExecutionCommand, paginateGetQueryResults } = athenaSdk();
  const started = await athena.send(
    new StartQueryExecutionCommand({
      QueryString: sql,
      WorkGroup: settings.workGroup,
      QueryExecutionContext: { Database: settings.database },
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

/** What the route asks of a query engine: Athena deployed, DuckDB in tests and the bench. */
export interface InventoryQueryEngine {
  /**
   * The table of a report layout, created when missing (`CREATE EXTERNAL TABLE IF NOT EXISTS`).
   * @returns its name and the requests made.
   */
  ensureTable(
    spec: InventoryTableSpec,
    deadline: Deadline,
  ): Promise<{ table: InventoryTableRef; stats: AthenaQueryStats }>;
  /** Runs one query; every value as text. */
  query(sql: string, deadline: Deadline): Promise<{ rows: FigureRow[]; stats: AthenaQueryStats }>;
}

/** The route's queries on Athena, in the settings' workgroup and database. */
export class AthenaQueryEngine implements InventoryQueryEngine {
  /** Tables known to exist in this container, by name: created once per layout and container. */
  readonly #created = new Set<string>();

  constructor(
    private readonly athena: AthenaClient,
    private readonly settings: Pick<AthenaRouteSettings, 'workGroup' | 'database'>,
  ) {}

  async ensureTable(spec: InventoryTableSpec, deadline: Deadline) {
    const table = { database: this.settings.database, table: inventoryTableName(spec) };
    const key = `${table.database}.${table.table}`;
    if (this.#created.has(key)) {
      return { table, stats: { queryExecutionId: '', dataScannedBytes: 0, engineMs: 0, requests: 0 } };
    }
    const { stats } = await runAthenaQuery(
      this.athena,
      createTableStatement(table, spec),
      this.settings,
      deadline,
    );
    this.#created.add(key);
    return { table, stats };
  }

  async query(sql: string, deadline: Deadline) {
    const { rows, stats } = await runAthenaQuery(this.athena, sql, this.settings, deadline);
    return { rows: rows as FigureRow[], stats };
  }
}
