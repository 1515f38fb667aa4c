/**
 * An S3 Inventory configuration's recent history for the scan: its reports
 * since `since` (examined) and the ones before them (their baseline), each
 * compared with the one before it. On the single function every report is read
 * once: comparing report n with n-1 builds report n's index in the same pass, so
 * at most two indexes are alive at a time. Past one function's reach, Athena
 * compares them (athena/scan-route.ts).
 */
import { GetBucketPolicyStatusCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Deadline } from '../../../runtime/deadline';
import { decisionOf, queryComparison, routed } from '../athena/route';
import { type AthenaScanRoute, athenaChainFigures } from '../athena/scan-route';
import type { AthenaRouteHead } from '../athena/settings';
import type { ChangeStep, SnapshotFacts, SourceHistory } from '../findings/history';
import { KNOWN_RANSOMWARE_EXTENSIONS } from '../findings/ransomware';
import type { SnapshotThresholds } from '../findings/thresholds';
import { inventoryReportId, inventorySourceId, reportTimeToIso } from '../ids';
import { type DiffContext, ReportComparer, ReportIndexBuilder } from '../index/diff-engine';
import { ExtensionTable } from '../index/extensions';
import { newHashSeed } from '../index/key-hash';
import type { InventoryConfigurationView } from '../inventory/configuration';
import { listReportTimes, type OpenedReport, openReport } from '../inventory/report';
import { readInto } from '../s3-inventory';
import { chainOf, type HistoryResult } from './chain';
import { changeStep, EVIDENCE_SAMPLES, indexStep, queryStep } from './inventory-step';

/** Hours between reports of a schedule (S3 User Guide, "Amazon S3 Inventory": daily or weekly). */
const SCHEDULE_HOURS: Record<string, number> = { Daily: 24, Weekly: 168 };

/** The common ground of the reports read: compare only attributes every one of them lists. */
function chainContext(reports: readonly OpenedReport[]): DiffContext {
  return {
    seed: newHashSeed(),
    extensions: new ExtensionTable(),
    sampleSize: EVIDENCE_SAMPLES,
    ...queryComparison(reports),
  };
}

/** The chain's steps on the single function: every report read once, two indexes alive at a time. */
async function indexSteps(
  reports: readonly OpenedReport[],
  known: ReadonlySet<string>,
  deadline: Deadline,
): Promise<ChangeStep[]> {
  const steps: ChangeStep[] = [];
  const context = chainContext(reports);
  let older = new ReportIndexBuilder(context);
  await readInto(reports[0] as OpenedReport, older, deadline);
  older.seal();
  for (let i = 1; i < reports.length; i++) {
    const newer = reports[i] as OpenedReport;
    const next = i < reports.length - 1 ? new ReportIndexBuilder(context) : undefined;
    const comparer = new ReportComparer(context, older, next);
    await readInto(newer, comparer, deadline);
    steps.push(
      changeStep(reports[i - 1] as OpenedReport, newer, indexStep(comparer.finish(), context), known),
    );
    if (!next) break;
    next.seal();
    older = next;
  }
  return steps;
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
 * On the route its reports call for (athena/route.ts, `decisionOf`: their
 * data-file bytes summed, or any ORC report): the single function's index, or
 * Athena, one query per step (athena/scan-route.ts); it moves to Athena when the
 * index fills. With the route off, ORC reports are skipped with a note.
 *
 * @throws what listing its reports throws (AccessDenied on the destination…);
 *   a report without a manifest is skipped with a note, any other
 *   failure of a report fails the source.
 */
export async function inventoryHistory(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  options: {
    readonly sinceMs: number;
    readonly thresholds: SnapshotThresholds;
    readonly deadline: Deadline;
    /** The Athena route (its settings and the tenant's engine); without it, the single function only. */
    readonly athena?: AthenaScanRoute;
  },
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
  const opened: OpenedReport[] = [];
  for (const facts of chain) {
    try {
      opened.push(await openReport(s3, configuration, facts.name, options.deadline));
    } catch (err) {
      if ((err as { code?: string }).code !== 'not_found') throw err;
      notes.push(`${facts.id}: no manifest.json, skipped`);
    }
  }
  const known = new Set([...KNOWN_RANSOMWARE_EXTENSIONS, ...options.thresholds.extraRansomwareExtensions]);
  const settings = options.athena?.settings;
  const decision = settings ? decisionOf(settings, ...opened) : undefined;
  // The single function reads CSV and Parquet: with the route off, an ORC report is skipped.
  const singleReports =
    decision?.route === 'athena'
      ? opened
      : opened.filter((report) => {
          if (report.manifest.fileFormat === 'CSV' || report.manifest.fileFormat === 'Parquet') return true;
          notes.push(
            `${report.id}: ${report.manifest.fileFormat} reports are read by the Athena route only (the single function reads CSV and Parquet)`,
          );
          return false;
        });
  let reports: readonly OpenedReport[] = singleReports;
  let athena: AthenaRouteHead | undefined;
  const single = () =>
    singleReports.length > 0 ? indexSteps(singleReports, known, options.deadline) : Promise.resolve([]);
  const onAthena = async (reason: string): Promise<ChangeStep[]> => {
    reports = opened;
    if (opened.length < 2) return [];
    const chain = await athenaChainFigures(
      options.athena as AthenaScanRoute,
      opened,
      queryComparison(opened),
      reason,
      options.deadline,
    );
    athena = chain.route;
    notes.push(`${source}: compared on Athena (${reason}); its findings carry no sample keys`);
    return chain.steps.map((figures, i) =>
      changeStep(opened[i] as OpenedReport, opened[i + 1] as OpenedReport, queryStep(figures), known),
    );
  };
  const steps = settings && decision ? await routed(decision, settings, single, onAthena) : await single();
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
    ...(athena ? { athena } : {}),
    snapshotsRead: reports.length,
    snapshotsExamined: steps.filter((s) => s.timeMs >= options.sinceMs).length,
  };
}
