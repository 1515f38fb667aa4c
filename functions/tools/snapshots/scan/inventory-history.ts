/**
 * An S3 Inventory configuration's recent history for the scan: its reports
 * since `since` (examined) and the ones before them (their baseline), each
 * compared with the one before it. Every report is read once: comparing report
 * n with n-1 builds report n's index in the same pass, so at most two indexes
 * are alive at a time.
 */
import { GetBucketPolicyStatusCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Deadline } from '../../../runtime/deadline';
import type { ChangeStep, ExtensionFigure, SnapshotFacts, SourceHistory } from '../findings/history';
import { KNOWN_RANSOMWARE_EXTENSIONS } from '../findings/ransomware';
import type { SnapshotThresholds } from '../findings/thresholds';
import { inventoryReportId, inventorySourceId, reportTimeToIso } from '../ids';
import { type DiffContext, type DiffFigures, ReportComparer, ReportIndexBuilder } from '../index/diff-engine';
import { ExtensionTable } from '../index/extensions';
import { newHashSeed } from '../index/key-hash';
import type { InventoryConfigurationView } from '../inventory/configuration';
import { listReportTimes, type OpenedReport, openReport } from '../inventory/report';
import { readInto } from '../s3-inventory';
import { chainOf, type HistoryResult } from './chain';

/** Keys kept per sample in findings' evidence. */
const EVIDENCE_SAMPLES = 10;
/** Leading extensions of new and changed files kept per step (known ransomware extensions are kept besides). */
const TOP_EXTENSIONS = 5;
/** Hours between reports of a schedule (S3 User Guide, "Amazon S3 Inventory": daily or weekly). */
const SCHEDULE_HOURS: Record<string, number> = { Daily: 24, Weekly: 168 };

/** The common ground of the reports read: compare only attributes every one of them lists. */
function chainContext(reports: readonly OpenedReport[]): DiffContext {
  const all = (column: string) => reports.every((r) => r.manifest.columns.includes(column));
  return {
    seed: newHashSeed(),
    extensions: new ExtensionTable(),
    sampleSize: EVIDENCE_SAMPLES,
    compareLastModified: all('last_modified_date'),
    compareETag: all('e_tag'),
    useVersionIds: all('version_id'),
  };
}

function extensionFigures(
  figures: DiffFigures,
  context: DiffContext,
  known: ReadonlySet<string>,
): ExtensionFigure[] {
  const table = context.extensions;
  const ids: number[] = [];
  for (let id = 0; id < table.size; id++) {
    if (figures.added.byExtension.filesOf(id) + figures.changed.byExtension.filesOf(id) > 0) ids.push(id);
  }
  const files = (id: number) =>
    figures.added.byExtension.filesOf(id) + figures.changed.byExtension.filesOf(id);
  ids.sort((a, b) => files(b) - files(a) || table.name(a).localeCompare(table.name(b)));
  const chosen = [
    ...ids.slice(0, TOP_EXTENSIONS),
    ...ids.slice(TOP_EXTENSIONS).filter((id) => known.has(table.name(id))),
  ];
  return chosen.map((id) => {
    const previousFiles = figures.olderByExtension.filesOf(id);
    return {
      extension: table.name(id),
      files: files(id),
      bytes:
        (figures.added.byExtension.bytes[id] as number) + (figures.changed.byExtension.bytes[id] as number),
      previousFiles,
      previousShare: figures.older.objects > 0 ? previousFiles / figures.older.objects : 0,
      samples: (figures.samplesByExtension.get(id) ?? []).map((o) => o.key),
    };
  });
}

function stepOf(
  older: OpenedReport,
  newer: OpenedReport,
  figures: DiffFigures,
  context: DiffContext,
  known: ReadonlySet<string>,
): ChangeStep {
  const newKeys = [...figures.added.sample.objects(), ...figures.changed.sample.objects()].map((o) => o.key);
  const goneKeys = [...figures.removed.samples, ...figures.deleteMarkersAdded.samples].map((o) => o.key);
  return {
    snapshot: newer.id,
    snapshotName: newer.reportTime,
    previous: older.id,
    previousName: older.reportTime,
    timeMs: Date.parse(reportTimeToIso(newer.reportTime)),
    totalBytes: figures.newer.bytes,
    newBytes: figures.added.bytes + figures.changed.bytes,
    newUnits: figures.added.count + figures.changed.count,
    unit: 'objects',
    previousObjects: figures.older.objects,
    removedObjects: figures.removed.count + figures.deleteMarkersAdded.count,
    removedBytes: figures.removed.bytes,
    extensions: extensionFigures(figures, context, known),
    ransomNotes: {
      count: figures.ransomNotes.count,
      folders: figures.ransomNotes.folders,
      samples: figures.ransomNotes.samples.map((o) => o.key),
    },
    samples: { new: newKeys.slice(0, EVIDENCE_SAMPLES), removed: goneKeys.slice(0, EVIDENCE_SAMPLES) },
  };
}

/** Whether the destination bucket is public (GetBucketPolicyStatus); no policy means not public. */
export async function destinationIsPublic(
  s3: S3Client,
  bucket: string,
  deadline: Deadline,
): Promise<boolean> {
  try {
    const out = await s3.send(new GetBucketPolicyStatusCommand({ Bucket: bucket }), {
      abortSignal: deadline.signal,
    });
    return out.PolicyStatus?.IsPublic === true;
  } catch (err) {
    if (err instanceof Error && err.name === 'NoSuchBucketPolicy') return false;
    throw err;
  }
}

/**
 * Reads a configuration's history.
 *
 * @throws what listing its reports throws (AccessDenied on the destination…);
 *   a report without a manifest or in ORC is skipped with a note, any other
 *   failure of a report fails the source.
 */
export async function inventoryHistory(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  options: { readonly sinceMs: number; readonly thresholds: SnapshotThresholds; readonly deadline: Deadline },
): Promise<HistoryResult> {
  const source = inventorySourceId(configuration.bucket, configuration.id);
  const notes: string[] = [];
  const { times } = await listReportTimes(s3, configuration, options.deadline);
  const ascending = [...times].reverse();
  const snapshots: SnapshotFacts[] = ascending.map((time) => ({
    id: inventoryReportId(configuration.bucket, configuration.id, time),
    name: time,
    timeMs: Date.parse(reportTimeToIso(time)),
    encrypted: null,
    public: null,
  }));
  const chain = chainOf(snapshots, options.sinceMs, options.thresholds.baselineSnapshots, notes);
  const reports: OpenedReport[] = [];
  for (const facts of chain) {
    try {
      const report = await openReport(s3, configuration, facts.name, options.deadline);
      if (report.manifest.fileFormat !== 'CSV' && report.manifest.fileFormat !== 'Parquet') {
        notes.push(`${report.id}: ${report.manifest.fileFormat} reports are not read (CSV and Parquet are)`);
        continue;
      }
      reports.push(report);
    } catch (err) {
      if ((err as { code?: string }).code !== 'not_found') throw err;
      notes.push(`${facts.id}: no manifest.json, skipped`);
    }
  }
  const steps: ChangeStep[] = [];
  const known = new Set([...KNOWN_RANSOMWARE_EXTENSIONS, ...options.thresholds.extraRansomwareExtensions]);
  if (reports.length > 0) {
    const context = chainContext(reports);
    let older = new ReportIndexBuilder(context);
    await readInto(reports[0] as OpenedReport, older, options.deadline);
    older.seal();
    for (let i = 1; i < reports.length; i++) {
      const newer = reports[i] as OpenedReport;
      const next = i < reports.length - 1 ? new ReportIndexBuilder(context) : undefined;
      const comparer = new ReportComparer(context, older, next);
      await readInto(newer, comparer, options.deadline);
      steps.push(stepOf(reports[i - 1] as OpenedReport, newer, comparer.finish(), context, known));
      if (!next) break;
      next.seal();
      older = next;
    }
  }
  const publicDestination = (await destinationIsPublic(
    s3,
    configuration.destinationBucket,
    options.deadline,
  ).catch((err: unknown) => {
    notes.push(
      `${source}: could not tell whether ${configuration.destinationBucket} is public (${(err as Error).name})`,
    );
    return false;
  }))
    ? configuration.destinationBucket
    : null;
  const history: SourceHistory = {
    source,
    kind: 's3_inventory',
    region: null,
    resource: configuration.bucket,
    configurationId: configuration.id,
    snapshots,
    steps,
    examinedFromMs: options.sinceMs,
    expectedIntervalHours: SCHEDULE_HOURS[configuration.frequency] ?? null,
    disabled: !configuration.enabled,
    publicDestination,
  };
  return {
    history,
    notes,
    snapshotsRead: reports.length,
    snapshotsExamined: steps.filter((s) => s.timeMs >= options.sinceMs).length,
  };
}
