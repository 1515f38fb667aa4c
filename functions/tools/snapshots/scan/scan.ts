/**
 * The scan step: computes a run's findings over the requested sources (or
 * every source of the account), before any model sees anything. Sources are
 * scanned one by one for S3 Inventory (each holds up to two report indexes) and
 * a few at a time for EBS (API-bound); a source that fails is recorded with its
 * error and the scan goes on.
 */
import type { Snapshot } from '@aws-sdk/client-ec2';
import type { AwsAccess } from '../../../runtime/aws/credentials';
import {
  type RegionSelection,
  regionErrorExplainer,
  resolveRegions,
} from '../../../runtime/aws/enabled-regions';
import { forEachRegion } from '../../../runtime/aws/region-fan-out';
import { mapBounded } from '../../../runtime/concurrency';
import type { ToolContext } from '../../../runtime/context';
import { normalizeError } from '../../../runtime/normalize-error';
import type { ToolErrorInfo } from '../../../runtime/result';
import type { AthenaScanRoute } from '../athena/scan-route';
import type { AthenaRouteSettings } from '../athena/settings';
import type { SnapshotClients } from '../clients';
import { PLACEHOLDER_VOLUME } from '../ebs';
import { computeFindings, rankSnapshotFindings } from '../findings/heuristics';
import type { SnapshotFinding, SourceScanReport } from '../findings/model';
import type { SnapshotThresholds } from '../findings/thresholds';
import { ebsSourceId, inventorySourceId, parseSourceId, type SourceRef } from '../ids';
import type { InventoryConfigurationView } from '../inventory/configuration';
import {
  type ConfigurationFilter,
  findInventoryConfigurations,
  type RegionSnapshots,
  regionSnapshots,
} from '../sources';
import type { HistoryResult } from './chain';
import { ebsHistory } from './ebs-history';
import { inventoryHistory } from './inventory-history';
import { MAX_SCAN_SOURCES } from './limits';

/** EBS volumes scanned at once (ListChangedBlocks is rate-limited per account). */
const EBS_CONCURRENCY = 4;

/** What to scan. */
export interface ScanRequest {
  /** Source ids; every source of the account when absent. */
  readonly sources?: readonly string[];
  /** Snapshots taken at or after this time are examined, ms since 1970. */
  readonly sinceMs: number;
  /** Regions for EBS discovery (no `sources`). */
  readonly regions?: RegionSelection;
  readonly thresholds: SnapshotThresholds;
  /** The scan's time, ms. */
  readonly nowMs: number;
  /** The S3 Inventory sources' Athena route (athena/settings.ts); the single function only without it. */
  readonly athena?: AthenaRouteSettings;
}

/** What a scan found. */
export interface ScanOutcome {
  readonly findings: SnapshotFinding[];
  readonly sources: SourceScanReport[];
  readonly truncated: boolean;
}

/** One source ready to scan. */
type Target =
  | {
      readonly kind: 'ebs';
      readonly source: string;
      readonly region: string;
      readonly volumeId: string;
      readonly snapshots: Snapshot[];
      readonly publicIds: ReadonlySet<string>;
    }
  | {
      readonly kind: 's3_inventory';
      readonly source: string;
      readonly configuration: InventoryConfigurationView;
    };

/** A source that could not be scanned, with its error. */
function failedSource(source: string, error: ToolErrorInfo): SourceScanReport {
  return {
    source,
    ok: false,
    snapshotsExamined: 0,
    snapshotsRead: 0,
    findings: 0,
    notes: [],
    error: { code: error.code, message: error.message },
  };
}

/** A source whose scan threw `err`. */
function failedBy(ctx: ToolContext, source: string, err: unknown, service: string): SourceScanReport {
  return failedSource(source, normalizeError(ctx.tool, err, service));
}

function ebsTargets(region: string, listed: RegionSnapshots, onlyVolume?: string): Target[] {
  const byVolume = new Map<string, Snapshot[]>();
  for (const snapshot of listed.snapshots) {
    const volumeId = snapshot.VolumeId;
    if (!volumeId || volumeId === PLACEHOLDER_VOLUME || (onlyVolume && volumeId !== onlyVolume)) continue;
    byVolume.set(volumeId, [...(byVolume.get(volumeId) ?? []), snapshot]);
  }
  return [...byVolume].map(([volumeId, snapshots]) => ({
    kind: 'ebs' as const,
    source: ebsSourceId(region, volumeId),
    region,
    volumeId,
    snapshots,
    publicIds: listed.publicIds,
  }));
}

/** Resolves the request into targets; sources that fail to list are reported as failed. */
async function targetsOf(
  ctx: ToolContext,
  clients: SnapshotClients,
  access: AwsAccess,
  refs: readonly SourceRef[] | undefined,
  regions: RegionSelection | undefined,
  failed: SourceScanReport[],
): Promise<Target[]> {
  const targets: Target[] = [];
  const inventoryFilters: ConfigurationFilter[] = refs
    ? refs
        .filter((r) => r.kind === 's3_inventory')
        .map((r) => ({
          bucket: r.bucket,
          ...(r.configurationId ? { configurationId: r.configurationId } : {}),
        }))
    : [{}];
  const ebsRefs = refs ? refs.filter((r) => r.kind === 'ebs') : undefined;
  if (ebsRefs) {
    // A source names its region: one the account cannot call is explained as in a fan-out over regions.
    const explain = regionErrorExplainer(access);
    for (const ref of ebsRefs) {
      const source = ebsSourceId(ref.region, ref.volumeId);
      try {
        const listed = await regionSnapshots(clients, access, ref.region, ctx.deadline, ref.volumeId);
        const found = ebsTargets(ref.region, listed, ref.volumeId);
        if (found.length === 0)
          failed.push(
            failedSource(source, {
              code: 'not_found',
              message: `No snapshot of ${ref.volumeId} owned by the account in ${ref.region}`,
              retryable: false,
            }),
          );
        targets.push(...found);
      } catch (err) {
        failed.push(failedSource(source, await explain(ref.region, normalizeError(ctx.tool, err, 'ec2'))));
      }
    }
  } else {
    try {
      const { outcomes } = await forEachRegion(
        await resolveRegions(regions, access),
        (region) => regionSnapshots(clients, access, region, ctx.deadline),
        {
          tool: ctx.tool,
          service: 'ec2',
          deadline: ctx.deadline,
          explainError: regionErrorExplainer(access),
        },
      );
      for (const outcome of outcomes) {
        if (outcome.ok) targets.push(...ebsTargets(outcome.region, outcome.value));
        else failed.push(failedSource(`ebs:${outcome.region}`, outcome.error));
      }
    } catch (err) {
      failed.push(failedBy(ctx, 'ebs', err, 'ec2'));
    }
  }
  for (const filter of inventoryFilters) {
    const label = filter.bucket
      ? `s3_inventory:${filter.bucket}${filter.configurationId ? `/${filter.configurationId}` : ''}`
      : 's3_inventory';
    try {
      const found = await findInventoryConfigurations(clients, access, filter, ctx.deadline, ctx.tool);
      for (const { bucket, error } of found.errors)
        failed.push(failedSource(`s3_inventory:${bucket}`, error));
      for (const configuration of found.configurations) {
        targets.push({
          kind: 's3_inventory',
          source: inventorySourceId(configuration.bucket, configuration.id),
          configuration,
        });
      }
    } catch (err) {
      failed.push(failedBy(ctx, label, err, 's3'));
    }
  }
  return targets;
}

/** The Athena route of a scan's inventory sources: the engine opened in the tenant's session on first use. */
function athenaScanRoute(
  clients: SnapshotClients,
  access: AwsAccess,
  settings: AthenaRouteSettings,
): AthenaScanRoute {
  return { settings, engine: () => clients.inventoryQueries(access, access.region, settings) };
}

async function historyOf(
  ctx: ToolContext,
  clients: SnapshotClients,
  access: AwsAccess,
  target: Target,
  request: ScanRequest,
): Promise<HistoryResult> {
  const options = { sinceMs: request.sinceMs, thresholds: request.thresholds, deadline: ctx.deadline };
  return target.kind === 'ebs'
    ? ebsHistory(
        clients.ebs(access, target.region),
        target.region,
        target.volumeId,
        target.snapshots,
        target.publicIds,
        options,
      )
    : inventoryHistory(clients.s3(access, access.region), target.configuration, {
        ...options,
        ...(request.athena ? { athena: athenaScanRoute(clients, access, request.athena) } : {}),
      });
}

/**
 * Scans the request's sources.
 *
 * @throws InvalidArgsError for a malformed source id (before any remote call);
 *   what `ctx.aws()` throws. Every other failure is recorded on its source.
 */
export async function scanSources(
  ctx: ToolContext,
  clients: SnapshotClients,
  request: ScanRequest,
): Promise<ScanOutcome> {
  const refs = request.sources?.map(parseSourceId);
  const access = await ctx.aws();
  await access.credentials();
  const reports: SourceScanReport[] = [];
  const all = await targetsOf(ctx, clients, access, refs, request.regions, reports);
  const unique = [...new Map(all.map((t) => [t.source, t])).values()].sort((a, b) =>
    a.source.localeCompare(b.source),
  );
  const targets = unique.slice(0, MAX_SCAN_SOURCES);
  const findings: SnapshotFinding[] = [];
  const scanGroup = async (group: Target[], concurrency: number) => {
    const { settled, skipped } = await mapBounded(group, (t) => historyOf(ctx, clients, access, t, request), {
      concurrency,
      deadline: ctx.deadline,
    });
    for (const outcome of settled) {
      const service = outcome.item.kind === 'ebs' ? 'ebs' : 's3';
      if (!outcome.ok) {
        reports.push(failedBy(ctx, outcome.item.source, outcome.error, service));
        continue;
      }
      const result = computeFindings(outcome.value.history, request.thresholds, request.nowMs);
      findings.push(...result.findings);
      reports.push({
        source: outcome.item.source,
        ok: true,
        snapshotsExamined: outcome.value.snapshotsExamined,
        snapshotsRead: outcome.value.snapshotsRead,
        findings: result.findings.length,
        notes: [...outcome.value.notes, ...result.notes],
        ...(outcome.value.athena ? { athena: outcome.value.athena } : {}),
      });
    }
    for (const target of skipped) {
      reports.push(
        failedSource(target.source, {
          code: 'timeout',
          message: 'Deadline reached before this source was scanned',
          retryable: true,
        }),
      );
    }
  };
  await scanGroup(
    targets.filter((t) => t.kind === 'ebs'),
    EBS_CONCURRENCY,
  );
  await scanGroup(
    targets.filter((t) => t.kind === 's3_inventory'),
    1,
  );
  reports.sort((a, b) => a.source.localeCompare(b.source));
  return {
    findings: rankSnapshotFindings(findings),
    sources: reports,
    truncated: unique.length > targets.length,
  };
}
