/**
 * The Athena route of `scan_snapshots` (docs/snapshot-tools.md, "Athena
 * route"): a configuration's chain of reports, each compared with the one
 * before it by the same query as `diff_snapshots` (inventory-sql.ts,
 * `statsQuery`), a few steps at a time. The scan writes no answer file of its
 * own: its findings document, in the run's workspace, holds the figures, and the
 * source's report says the route was taken (`athena`, with queries, bytes
 * scanned and USD).
 */
import { mapBounded } from '../../../runtime/concurrency';
import type { Deadline } from '../../../runtime/deadline';
import { DeadlineExceededError } from '../../../runtime/errors';
import type { OpenedReport } from '../inventory/report';
import { HISTOGRAM_TOP } from '../s3-inventory';
import type { AthenaQueryStats } from './athena-runner';
import { type InventoryTableRef, type QueryComparison, statsQuery } from './inventory-sql';
import { foldFigureRows, type QueryFigures, refuseInvalidRows } from './query-figures';
import { type AthenaRoute, layoutTables, queried, routeHead } from './route';
import type { AthenaRouteHead } from './settings';

/**
 * Step queries of one source run at once: a month of daily reports is 31 steps
 * or more, each a join of two reports; four keep a scan well within Athena's
 * default quota of active DML queries per account (Athena User Guide, "Service
 * Quotas") while other callers of the workgroup still get theirs.
 */
export const SCAN_QUERY_CONCURRENCY = 4;

/** What the scan's route needs: its settings and the tenant's engine (no answer file). */
export type AthenaScanRoute = Pick<AthenaRoute, 'settings' | 'engine'>;

/** The figures of each step of a chain, oldest first, and how Athena answered. */
export interface ChainFigures {
  /** `steps[i]`: `reports[i + 1]` compared with `reports[i]`. */
  readonly steps: QueryFigures[];
  readonly route: AthenaRouteHead;
}

/**
 * Compares each report of `reports` (oldest first, two at least) with the one
 * before it on the route's engine, on what every report lists (`comparison`).
 * The tables of the chain's layouts are created first, once each.
 *
 * @throws what the engine throws for a step (the first failed step's error),
 *   DeadlineExceededError when the deadline passes before every step started.
 */
export async function athenaChainFigures(
  route: AthenaScanRoute,
  reports: readonly OpenedReport[],
  comparison: QueryComparison,
  reason: string,
  deadline: Deadline,
): Promise<ChainFigures> {
  const engine = route.engine();
  const stats: AthenaQueryStats[] = [];
  const tableOf = layoutTables(engine, stats, deadline);
  const tables: InventoryTableRef[] = [];
  for (const report of reports) tables.push(await tableOf(report));
  const pairs = reports.slice(1).map((newer, i) => ({
    newer: queried(newer, tables[i + 1] as InventoryTableRef),
    older: queried(reports[i] as OpenedReport, tables[i] as InventoryTableRef),
    ids: { newer: newer.id, older: (reports[i] as OpenedReport).id },
  }));
  const { settled, skipped } = await mapBounded(
    pairs,
    (pair) => engine.query(statsQuery(pair.newer, pair.older, comparison), deadline),
    { concurrency: SCAN_QUERY_CONCURRENCY, deadline },
  );
  const steps: QueryFigures[] = [];
  for (const outcome of settled) {
    if (!outcome.ok) throw outcome.error;
    stats.push(outcome.value.stats);
    const figures = foldFigureRows(outcome.value.rows, HISTOGRAM_TOP);
    refuseInvalidRows(figures, outcome.item.ids);
    steps.push(figures);
  }
  if (skipped.length > 0) {
    throw new DeadlineExceededError(
      `Deadline reached with ${skipped.length} of ${pairs.length} report comparisons not started on Athena`,
      { service: 'athena' },
    );
  }
  const names = [...new Set(tables.map((t) => t.table))].join(', ');
  return { steps, route: routeHead(route.settings, reason, names, stats) };
}
