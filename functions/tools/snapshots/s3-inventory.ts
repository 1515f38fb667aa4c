/**
 * The S3 Inventory side of the tools: statistics of one report against the one
 * before it, the diff of two reports of one configuration, and a
 * configuration's history for the scan. Everything streams through the
 * `ReportIndexBuilder` / `ReportComparer` pair (index/diff-engine.ts).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { Deadline } from '../../runtime/deadline';
import { LimitExceededError } from '../../runtime/errors';
import { inventorySourceId, reportTimeToIso } from './ids';
import {
  type ChangeSetView,
  type DiffContext,
  type DiffFigures,
  IndexFullError,
  MAX_INDEX_OBJECTS,
  type NoteNames,
  ReportComparer,
  ReportCounter,
  ReportIndexBuilder,
  type ReportTotals,
  type Sampled,
  tallyView,
} from './index/diff-engine';
import { ExtensionTable, type HistogramEntry, histogram } from './index/extensions';
import { newHashSeed } from './index/key-hash';
import type { SampledObject } from './index/key-sample';
import type { InventoryConfigurationView } from './inventory/configuration';
import type { InventoryManifest } from './inventory/manifest';
import { listReportTimes, type OpenedReport, openReport, streamReport } from './inventory/report';
import type { InventoryRowSink } from './inventory/rows';

/** Extensions listed in full in a histogram; the rest is one "(other)" line. */
export const HISTOGRAM_TOP = 15;
/** Keys kept per sample in the tools' output. */
export const SAMPLE_SIZE = 10;
/** Older report times tried when the one just before has no manifest (a report S3 never finished). */
const PREVIOUS_ATTEMPTS = 3;

/** Which attributes both manifests list, and so make a change. */
export function diffContext(
  older: InventoryManifest,
  newer: InventoryManifest,
  extensions: ExtensionTable,
  sampleSize: number,
): DiffContext {
  const both = (column: string) => older.columns.includes(column) && newer.columns.includes(column);
  return {
    seed: newHashSeed(),
    extensions,
    sampleSize,
    compareLastModified: both('last_modified_date'),
    compareETag: both('e_tag'),
    useVersionIds: both('version_id'),
  };
}

/** What a comparison compared, for the output. */
export function comparedOn(context: Pick<DiffContext, 'compareLastModified' | 'compareETag'>): string[] {
  return [
    'size',
    ...(context.compareLastModified ? ['last_modified'] : []),
    ...(context.compareETag ? ['e_tag'] : []),
  ];
}

/**
 * Streams a report into a sink, mapping a full index to `limit_exceeded`.
 *
 * @throws LimitExceededError past {@link MAX_INDEX_OBJECTS} objects.
 */
export async function readInto(
  report: OpenedReport,
  sink: InventoryRowSink,
  deadline: Deadline,
): Promise<number> {
  try {
    return await streamReport(report, sink, deadline);
  } catch (err) {
    if (!(err instanceof IndexFullError)) throw err;
    throw new LimitExceededError(
      `Inventory report ${report.id} lists more than ${MAX_INDEX_OBJECTS} objects, more than one call compares; ` +
        'use the Athena or Step Functions Distributed Map route (docs/snapshot-tools.md)',
      { service: 's3', details: { report: report.id, maxObjects: MAX_INDEX_OBJECTS } },
    );
  }
}

/**
 * The report before `reportTime` that has a manifest, trying up to
 * {@link PREVIOUS_ATTEMPTS} older times; undefined for the first report.
 */
export async function openPrevious(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  times: readonly string[],
  reportTime: string,
  deadline: Deadline,
): Promise<OpenedReport | undefined> {
  const older = times.filter((time) => time < reportTime).slice(0, PREVIOUS_ATTEMPTS);
  for (const time of older) {
    try {
      return await openReport(s3, configuration, time, deadline);
    } catch (err) {
      if ((err as { code?: string }).code !== 'not_found') throw err;
    }
  }
  return undefined;
}

/** Reads `older` into an index, then compares `newer` with it. */
export async function compareReports(
  older: OpenedReport,
  newer: OpenedReport,
  context: DiffContext,
  deadline: Deadline,
): Promise<DiffFigures> {
  const index = new ReportIndexBuilder(context);
  await readInto(older, index, deadline);
  index.seal();
  const comparer = new ReportComparer(context, index);
  await readInto(newer, comparer, deadline);
  return comparer.finish();
}

/** What `snapshot_stats` returns for an inventory report. */
export interface InventoryStats {
  readonly id: string;
  readonly kind: 's3_inventory';
  readonly source: string;
  /** The report's time, ISO-8601 (its folder's timestamp). */
  readonly time: string;
  /** Objects listed (every version in an inventory of versions), delete markers excluded. */
  readonly files: number;
  readonly bytes: number;
  /** Bytes of objects new or changed since the previous report (all bytes for a first report). */
  readonly new_bytes: number;
  readonly file_type_histogram: HistogramEntry[];
  readonly new_files: number;
  readonly changed_files: number;
  readonly removed_files: number | null;
  readonly delete_markers: number;
  /** The report compared with, or null for the configuration's first report. */
  readonly baseline: { readonly id: string; readonly files: number; readonly bytes: number } | null;
  readonly comparedOn: string[];
  readonly report: {
    readonly format: string;
    readonly dataFiles: number;
    readonly reportBytes: number;
    readonly createdAt: string;
  };
  readonly note?: string;
}

/**
 * `snapshot_stats` of one inventory report.
 *
 * @throws PlatformError (`not_found`) for a missing configuration or manifest, a deleted data file;
 *   (`upstream_error`) for ORC, a checksum or size mismatch; LimitExceededError past the index cap.
 */
export async function inventoryStats(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  reportTime: string,
  deadline: Deadline,
): Promise<InventoryStats> {
  const { current, previous } = await openWithPrevious(s3, configuration, reportTime, deadline);
  return statsOfOpened(configuration, reportTime, current, previous, deadline);
}

/**
 * A report and the one before it that has a manifest (undefined for the first), read at once.
 *
 * @throws PlatformError (`not_found`) for a missing manifest of the report itself.
 */
export async function openWithPrevious(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  reportTime: string,
  deadline: Deadline,
): Promise<{ readonly current: OpenedReport; readonly previous: OpenedReport | undefined }> {
  // The report's manifest and the earlier one are read at once: two S3 round trips fewer in sequence.
  const [opened, previousOpened] = await Promise.allSettled([
    openReport(s3, configuration, reportTime, deadline),
    listReportTimes(s3, configuration, deadline).then(({ times }) =>
      openPrevious(s3, configuration, times, reportTime, deadline),
    ),
  ]);
  // The report's own error first (a missing manifest is `not_found` whatever the listing did).
  if (opened.status === 'rejected') throw opened.reason;
  if (previousOpened.status === 'rejected') throw previousOpened.reason;
  return { current: opened.value, previous: previousOpened.value };
}

/** The common head of `snapshot_stats`' value for an inventory report (both routes). */
export function statsHead(
  configuration: InventoryConfigurationView,
  reportTime: string,
  current: OpenedReport,
) {
  return {
    id: current.id,
    kind: 's3_inventory' as const,
    source: inventorySourceId(configuration.bucket, configuration.id),
    time: reportTimeToIso(reportTime),
    report: {
      format: current.manifest.fileFormat,
      dataFiles: current.manifest.files.length,
      reportBytes: current.manifest.reportBytes,
      createdAt: new Date(current.manifest.createdAtMs).toISOString(),
    },
  };
}

/** The note of a first report's statistics. */
export const FIRST_REPORT_NOTE = 'No earlier report of this configuration: every object counts as new';

/** {@link inventoryStats} of reports already opened, on the single-function path. */
export async function statsOfOpened(
  configuration: InventoryConfigurationView,
  reportTime: string,
  current: OpenedReport,
  previous: OpenedReport | undefined,
  deadline: Deadline,
): Promise<InventoryStats> {
  const extensions = new ExtensionTable();
  const common = statsHead(configuration, reportTime, current);
  if (!previous) {
    const counter = new ReportCounter(extensions);
    await readInto(current, counter, deadline);
    return {
      ...common,
      files: counter.objects,
      bytes: counter.bytes,
      new_bytes: counter.bytes,
      file_type_histogram: histogram(counter.byExtension, extensions, HISTOGRAM_TOP),
      new_files: counter.objects,
      changed_files: 0,
      removed_files: null,
      delete_markers: counter.deleteMarkers,
      baseline: null,
      comparedOn: [],
      note: FIRST_REPORT_NOTE,
    };
  }
  const context = diffContext(previous.manifest, current.manifest, extensions, SAMPLE_SIZE);
  const figures = await compareReports(previous, current, context, deadline);
  return {
    ...common,
    files: figures.newer.objects,
    bytes: figures.newer.bytes,
    new_bytes: figures.added.bytes + figures.changed.bytes,
    file_type_histogram: histogram(figures.newerByExtension, extensions, HISTOGRAM_TOP),
    new_files: figures.added.count,
    changed_files: figures.changed.count,
    removed_files: figures.removed.count,
    delete_markers: figures.newer.deleteMarkers,
    baseline: { id: previous.id, files: figures.older.objects, bytes: figures.older.bytes },
    comparedOn: comparedOn(context),
  };
}

/** What `diff_snapshots` returns for two inventory reports. */
export interface InventoryDiff {
  readonly kind: 's3_inventory';
  readonly a: string;
  readonly b: string;
  readonly source: string;
  readonly totals: {
    readonly a: { readonly files: number; readonly bytes: number; readonly deleteMarkers: number };
    readonly b: { readonly files: number; readonly bytes: number; readonly deleteMarkers: number };
  };
  readonly added: ChangeSetView;
  readonly removed: ChangeSetView;
  readonly changed: ChangeSetView & { readonly bytesBefore: number };
  readonly unchanged: { readonly count: number; readonly bytes: number };
  readonly deleteMarkersAdded: Sampled;
  readonly ransomNoteNames: NoteNames;
  /** `key`, or `key+version_id` for inventories of every version. */
  readonly identity: string;
  readonly comparedOn: string[];
}

/**
 * The `totals` of a diff from both reports' totals (`older` is `a`, `newer` is
 * `b`), on either route: the index's {@link DiffFigures} or the Athena
 * query's figures (athena/query-figures.ts, `QueryFigures`).
 */
export function diffTotals(figures: {
  readonly older: ReportTotals;
  readonly newer: ReportTotals;
}): InventoryDiff['totals'] {
  const side = (t: ReportTotals) => ({ files: t.objects, bytes: t.bytes, deleteMarkers: t.deleteMarkers });
  return { a: side(figures.older), b: side(figures.newer) };
}

/**
 * `diff_snapshots` of two reports of one configuration: what is in `b` and not
 * in `a` (added), in `a` and not in `b` (removed), in both with another size,
 * time or ETag (changed).
 */
export async function inventoryDiff(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  timeA: string,
  timeB: string,
  deadline: Deadline,
): Promise<InventoryDiff> {
  // Both manifests are read at once: one S3 round trip fewer in sequence; `a`'s error first when both fail.
  const [a, b] = await Promise.allSettled([
    openReport(s3, configuration, timeA, deadline),
    openReport(s3, configuration, timeB, deadline),
  ]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return diffOfOpened(configuration, a.value, b.value, deadline);
}

/** {@link inventoryDiff} of two reports already opened, on the single-function path. */
export async function diffOfOpened(
  configuration: InventoryConfigurationView,
  a: OpenedReport,
  b: OpenedReport,
  deadline: Deadline,
): Promise<InventoryDiff> {
  const extensions = new ExtensionTable();
  const context = diffContext(a.manifest, b.manifest, extensions, SAMPLE_SIZE);
  const figures = await compareReports(a, b, context, deadline);
  const view = (tally: Parameters<typeof tallyView>[0], samples: SampledObject[]) =>
    tallyView(tally, samples, extensions, HISTOGRAM_TOP);
  return {
    kind: 's3_inventory',
    a: a.id,
    b: b.id,
    source: inventorySourceId(configuration.bucket, configuration.id),
    totals: diffTotals(figures),
    added: view(figures.added, figures.added.sample.objects()),
    removed: view(figures.removed, figures.removed.samples),
    changed: {
      ...view(figures.changed, figures.changed.sample.objects()),
      bytesBefore: figures.changedBytesBefore,
    },
    unchanged: figures.unchanged,
    deleteMarkersAdded: figures.deleteMarkersAdded,
    ransomNoteNames: figures.ransomNotes,
    identity: context.useVersionIds ? 'key+version_id' : 'key',
    comparedOn: comparedOn(context),
  };
}
