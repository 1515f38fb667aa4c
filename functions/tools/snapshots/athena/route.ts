/**
 * Which route a `snapshot_stats` or `diff_snapshots` call on S3 Inventory
 * reports takes (docs/snapshot-tools.md, "Athena route"), and the Athena route
 * itself. A manifest gives no object count, so the decision is made on the
 * data-file bytes the manifests list (the report, plus the report it is compared
 * with): from `minReportBytes` on, or for any ORC report (which only Athena
 * reads), Athena; below, the single function, which
 * still moves the call to Athena when its index fills (`IndexFullError`, past
 * `MAX_INDEX_OBJECTS`). Both routes give the same figures; on the Athena route
 * `diff_snapshots` has no sample keys (a sample is the index's, by key hash)
 * and says so. `scan_snapshots` takes the same decision per inventory source
 * (scan-route.ts).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { Deadline } from '../../../runtime/deadline';
import { PlatformError } from '../../../runtime/errors';
import { runKeyOf } from '../findings/environment';
import type { RunKey } from '../findings/model';
import { MAX_INDEX_OBJECTS } from '../index/diff-engine';
import type { InventoryConfigurationView } from '../inventory/configuration';
import { type OpenedReport, openReport } from '../inventory/report';
import {
  comparedOn,
  diffOfOpened,
  diffTotals,
  FIRST_REPORT_NOTE,
  HISTOGRAM_TOP,
  type InventoryDiff,
  type InventoryStats,
  openWithPrevious,
  statsHead,
  statsOfOpened,
} from '../s3-inventory';
import type { AnswerWriter } from './answers';
import type { AthenaQueryStats, InventoryQueryEngine } from './athena-runner';
import {
  athenaFormat,
  type InventoryTableRef,
  inventoryTableName,
  type QueriedReport,
  type QueryComparison,
  statsQuery,
} from './inventory-sql';
import { foldFigureRows, type QueryFigures, refuseInvalidRows } from './query-figures';
import { type AthenaRouteHead, type AthenaRouteSettings, athenaAnswerFile } from './settings';

/** Athena's price per byte scanned: $5 per TB (Athena pricing page, SQL queries). */
export const ATHENA_USD_PER_BYTE = 5 / 1e12;
/** Athena bills at least 10 MB per query (Athena pricing page). */
export const ATHENA_MIN_BILLED_BYTES = 10 * 1e6;

/** The route of one call, and why. */
export interface RouteDecision {
  readonly route: 'single' | 'athena';
  readonly reason: string;
}

/** Why an ORC report goes to Athena whatever its size. */
export const ORC_REASON = 'ORC report: Athena reads ORC, the single function reads CSV and Parquet';

/**
 * The route for a call whose reports' data files total `dataFileBytes`, in
 * `formats` (the manifests' `fileFormat`): Athena for any ORC report (the
 * single function does not decode ORC; Athena reads it natively, S3 User Guide,
 * "Querying Amazon S3 Inventory with Amazon Athena") unless the route is off.
 */
export function chooseRoute(
  dataFileBytes: number,
  settings: AthenaRouteSettings,
  formats: readonly string[] = [],
): RouteDecision {
  if (settings.mode === 'off')
    return { route: 'single', reason: 'the Athena route is off (ETP_ATHENA_ROUTE=off)' };
  if (settings.mode === 'always') return { route: 'athena', reason: 'ETP_ATHENA_ROUTE=always' };
  if (formats.includes('ORC')) return { route: 'athena', reason: ORC_REASON };
  if (dataFileBytes >= settings.minReportBytes) {
    return {
      route: 'athena',
      reason: `${dataFileBytes} bytes of data files, at least the ${settings.minReportBytes} one function reads in its time`,
    };
  }
  return {
    route: 'single',
    reason: `${dataFileBytes} bytes of data files, below ${settings.minReportBytes}`,
  };
}

/** What the Athena route of one call needs. */
export interface AthenaRoute {
  readonly settings: AthenaRouteSettings;
  /** The query engine of the call's tenant session (Athena deployed; DuckDB in tests). */
  readonly engine: () => InventoryQueryEngine;
  /** Writes the answer into the run's workspace. */
  readonly answers: AnswerWriter;
  readonly run: RunKey;
  /** The tool's name, in the answer's file name. */
  readonly tool: string;
}

/** How the Athena route answered, in the tool's value. */
export interface AthenaRouteReport extends AthenaRouteHead {
  /** Where the answer was written in the run's workspace. */
  readonly answer: string;
}

/** The data-file bytes and formats of a call's reports, what {@link chooseRoute} decides on. */
export function decisionOf(
  settings: AthenaRouteSettings,
  ...reports: (OpenedReport | undefined)[]
): RouteDecision {
  const opened = reports.filter((r): r is OpenedReport => r !== undefined);
  return chooseRoute(
    opened.reduce((sum, report) => sum + report.manifest.reportBytes, 0),
    settings,
    opened.map((report) => report.manifest.fileFormat),
  );
}

function isIndexFull(err: unknown): boolean {
  return (
    err instanceof PlatformError &&
    err.code === 'limit_exceeded' &&
    err.details?.maxObjects === MAX_INDEX_OBJECTS
  );
}

/**
 * Runs `single` unless the decision is Athena; moves to `athena` when the single
 * function's index fills (and the route is not off).
 */
export async function routed<T>(
  decision: RouteDecision,
  settings: AthenaRouteSettings,
  single: () => Promise<T>,
  athena: (reason: string) => Promise<T>,
): Promise<T> {
  if (decision.route === 'athena') return athena(decision.reason);
  try {
    return await single();
  } catch (err) {
    if (settings.mode === 'off' || !isIndexFull(err)) throw err;
    return athena(`more than ${MAX_INDEX_OBJECTS} objects, past one function's index`);
  }
}

/** One side of a query: a report and its layout's table. */
export function queried(report: OpenedReport, table: QueriedReport['table']): QueriedReport {
  return { reportTime: report.reportTime, manifest: report.manifest, table };
}

/**
 * The table of each report's layout, created once per layout in the call
 * (`ensureTable`; the Athena engine also remembers them per container), its
 * requests added to `stats`.
 *
 * @throws InvalidArgsError for a format Athena does not read (`athenaFormat`).
 */
export function layoutTables(
  engine: InventoryQueryEngine,
  stats: AthenaQueryStats[],
  deadline: Deadline,
): (report: OpenedReport) => Promise<InventoryTableRef> {
  const made = new Map<string, Promise<InventoryTableRef>>();
  return (report) => {
    const spec = {
      format: athenaFormat(report.manifest),
      columns: report.manifest.columns,
      destinationBucket: report.configuration.destinationBucket,
      base: report.configuration.base,
    };
    const name = inventoryTableName(spec);
    let table = made.get(name);
    if (!table) {
      table = engine.ensureTable(spec, deadline).then((created) => {
        stats.push(created.stats);
        return created.table;
      });
      made.set(name, table);
    }
    return table;
  };
}

/** What both reports list, and so what the query compares (as `diffContext`). */
export function queryComparison(reports: readonly OpenedReport[]): QueryComparison {
  const all = (column: string) => reports.every((r) => r.manifest.columns.includes(column));
  return {
    compareLastModified: all('last_modified_date'),
    compareETag: all('e_tag'),
    useVersionIds: all('version_id'),
  };
}

/** Runs the figures query of `newer` (against `older`) on the engine; tables created first. */
async function athenaFigures(
  route: AthenaRoute,
  newer: OpenedReport,
  older: OpenedReport | undefined,
  deadline: Deadline,
): Promise<{ figures: QueryFigures; stats: AthenaQueryStats[]; table: string; comparison: QueryComparison }> {
  const engine = route.engine();
  const stats: AthenaQueryStats[] = [];
  const tableOf = layoutTables(engine, stats, deadline);
  const newerTable = await tableOf(newer);
  const newerSide = queried(newer, newerTable);
  const olderSide = older ? queried(older, await tableOf(older)) : undefined;
  const comparison = queryComparison(older ? [older, newer] : [newer]);
  const result = await engine.query(statsQuery(newerSide, olderSide, comparison), deadline);
  stats.push(result.stats);
  const figures = foldFigureRows(result.rows, HISTOGRAM_TOP);
  refuseInvalidRows(figures, { newer: newer.id, older: older?.id });
  return { figures, stats, table: newerTable.table, comparison };
}

/**
 * The route's figures of `stats` (every query of a call): the ids of the queries
 * Athena ran, bytes scanned, requests, and USD at {@link ATHENA_USD_PER_BYTE}
 * with the 10 MB minimum of each query that scanned anything.
 */
export function routeHead(
  settings: AthenaRouteSettings,
  reason: string,
  table: string,
  stats: readonly AthenaQueryStats[],
): AthenaRouteHead {
  const queries = stats.filter((s) => s.queryExecutionId !== '');
  const scanned = queries.reduce((sum, s) => sum + s.dataScannedBytes, 0);
  const billed = queries
    .filter((s) => s.dataScannedBytes > 0)
    .reduce((sum, s) => sum + Math.max(ATHENA_MIN_BILLED_BYTES, s.dataScannedBytes), 0);
  return {
    engine: 'athena',
    reason,
    workGroup: settings.workGroup,
    database: settings.database,
    table,
    queryExecutionIds: queries.map((s) => s.queryExecutionId),
    dataScannedBytes: scanned,
    requests: stats.reduce((sum, s) => sum + s.requests, 0),
    estimatedUsd: Number((billed * ATHENA_USD_PER_BYTE).toFixed(6)),
  };
}

async function report(
  route: AthenaRoute,
  reason: string,
  table: string,
  stats: AthenaQueryStats[],
  file: string,
  value: unknown,
  deadline: Deadline,
): Promise<AthenaRouteReport> {
  const head = routeHead(route.settings, reason, table, stats);
  const answer = await route.answers(
    route.run,
    file,
    { tool: route.tool, route: head, value },
    deadline.signal,
  );
  return { ...head, answer };
}

/** `snapshot_stats` of an inventory report on the route its size calls for. */
export async function routedInventoryStats(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  reportTime: string,
  deadline: Deadline,
  route: AthenaRoute,
): Promise<InventoryStats & { readonly route?: AthenaRouteReport }> {
  const { current, previous } = await openWithPrevious(s3, configuration, reportTime, deadline);
  return routed(
    decisionOf(route.settings, current, previous),
    route.settings,
    () => statsOfOpened(configuration, reportTime, current, previous, deadline),
    async (reason) => {
      const { figures, stats, table, comparison } = await athenaFigures(route, current, previous, deadline);
      const head = statsHead(configuration, reportTime, current);
      const value: InventoryStats = previous
        ? {
            ...head,
            files: figures.newer.objects,
            bytes: figures.newer.bytes,
            new_bytes: figures.added.bytes + figures.changed.bytes,
            file_type_histogram: figures.newerHistogram,
            new_files: figures.added.count,
            changed_files: figures.changed.count,
            removed_files: figures.removed.count,
            delete_markers: figures.newer.deleteMarkers,
            baseline: { id: previous.id, files: figures.older.objects, bytes: figures.older.bytes },
            comparedOn: comparedOn(comparison),
          }
        : {
            ...head,
            files: figures.newer.objects,
            bytes: figures.newer.bytes,
            new_bytes: figures.newer.bytes,
            file_type_histogram: figures.newerHistogram,
            new_files: figures.newer.objects,
            changed_files: 0,
            removed_files: null,
            delete_markers: figures.newer.deleteMarkers,
            baseline: null,
            comparedOn: [],
            note: FIRST_REPORT_NOTE,
          };
      const file = athenaAnswerFile(route.tool, [current.reportTime]);
      return { ...value, route: await report(route, reason, table, stats, file, value, deadline) };
    },
  );
}

/** The note of a diff on the Athena route. */
export const ATHENA_DIFF_NOTE =
  'Answered by Athena: figures as on the single-function path; no sample keys (samples are drawn from the index)';

/** `diff_snapshots` of two inventory reports on the route their size calls for. */
export async function routedInventoryDiff(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  timeA: string,
  timeB: string,
  deadline: Deadline,
  route: AthenaRoute,
): Promise<InventoryDiff & { readonly route?: AthenaRouteReport; readonly note?: string }> {
  const a = await openReport(s3, configuration, timeA, deadline);
  const b = await openReport(s3, configuration, timeB, deadline);
  return routed(
    decisionOf(route.settings, a, b),
    route.settings,
    () => diffOfOpened(configuration, a, b, deadline),
    async (reason) => {
      const { figures, stats, table, comparison } = await athenaFigures(route, b, a, deadline);
      const tally = (t: {
        count: number;
        bytes: number;
        byExtension: InventoryDiff['added']['byExtension'];
      }) => ({
        count: t.count,
        bytes: t.bytes,
        byExtension: t.byExtension,
        samples: [],
      });
      const value: InventoryDiff & { note: string } = {
        kind: 's3_inventory',
        a: a.id,
        b: b.id,
        source: statsHead(configuration, timeB, b).source,
        totals: diffTotals(figures),
        added: tally(figures.added),
        removed: tally(figures.removed),
        changed: { ...tally(figures.changed), bytesBefore: figures.changed.bytesBefore },
        unchanged: figures.unchanged,
        deleteMarkersAdded: { count: figures.deleteMarkersAdded, samples: [] },
        ransomNoteNames: { ...figures.ransomNotes, samples: [] },
        identity: comparison.useVersionIds ? 'key+version_id' : 'key',
        comparedOn: comparedOn(comparison),
        note: ATHENA_DIFF_NOTE,
      };
      const file = athenaAnswerFile(route.tool, [a.reportTime, b.reportTime]);
      return { ...value, route: await report(route, reason, table, stats, file, value, deadline) };
    },
  );
}

/** What a tool entry hands {@link athenaRouteOf}: its call's context. */
export interface RouteCall {
  readonly tenant: string;
  readonly scenario?: string;
  readonly runId: string;
}

/**
 * The Athena route of one call: settings checked now (a bad one fails the call
 * with its name, before any remote call of the route), the engine opened in the
 * call's tenant session only when the route is taken.
 *
 * @throws PlatformError (`internal_error`) for a bad setting (settings.ts).
 */
export function athenaRouteOf(
  tool: string,
  call: RouteCall,
  engine: (settings: AthenaRouteSettings) => InventoryQueryEngine,
  answers: () => AnswerWriter,
  settings: AthenaRouteSettings,
): AthenaRoute {
  return {
    settings,
    engine: () => engine(settings),
    answers: (run, file, document, signal) => answers()(run, file, document, signal),
    run: runKeyOf(call),
    tool,
  };
}
