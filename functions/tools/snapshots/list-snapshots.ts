import type { Snapshot } from '@aws-sdk/client-ec2';
import type { AwsAccess } from '../../runtime/aws/credentials';
import { regionErrorExplainer, resolveRegions } from '../../runtime/aws/enabled-regions';
import { forEachRegion } from '../../runtime/aws/region-fan-out';
import { mapBounded } from '../../runtime/concurrency';
import type { ToolContext } from '../../runtime/context';
import { normalizeError } from '../../runtime/normalize-error';
import type { ToolErrorInfo } from '../../runtime/result';
import { defineTool, type ToolArgs } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { defaultSnapshotClients, type SnapshotClients } from './clients';
import { sourceOfSnapshot } from './ebs';
import {
  ebsSnapshotId,
  inventoryReportId,
  inventorySourceId,
  parseSourceId,
  reportTimeToIso,
  type SnapshotKind,
  type SourceRef,
} from './ids';
import type { InventoryConfigurationView } from './inventory/configuration';
import { listReportTimes, openReport } from './inventory/report';
import { listSnapshotsSpec } from './list-snapshots.meta';
import { sinceMs } from './schemas';
import { inService } from './service';
import { findInventoryConfigurations, regionSnapshots } from './sources';

/** One snapshot as `list_snapshots` shows it. */
export interface SnapshotSummary {
  readonly id: string;
  readonly kind: SnapshotKind;
  /** The source id; null for an EBS snapshot copied from elsewhere (no volume lineage). */
  readonly source: string | null;
  /** When it was taken (EBS start time; the inventory report's folder time), ISO-8601. */
  readonly time: string;
  /** EBS: full snapshot size when AWS reports it; S3: the report's stored bytes. Null when unknown. */
  readonly sizeBytes: number | null;
  /** EBS: pending | completed | error | recoverable | recovering; S3: available | missing_manifest | unreadable. */
  readonly state: string;
  readonly encrypted: boolean | null;
  /** EBS: restorable by anyone. S3: not checked here (scan_snapshots checks the destination bucket). */
  readonly public: boolean | null;
  readonly description: string;
  readonly details: Record<string, unknown>;
}

/** What `list_snapshots` returns. */
export interface ListSnapshotsValue {
  /** At most `limit`, newest first. */
  readonly snapshots: SnapshotSummary[];
  /** Snapshots found that match (before `limit`). */
  readonly matched: number;
  /** Regions and sources that could not be read (the rest are listed). */
  readonly errors: { readonly where: string; readonly error: ToolErrorInfo }[];
}

/** Reports whose manifests are read at once. */
const MANIFEST_CONCURRENCY = 8;

function ebsSummary(snapshot: Snapshot, region: string, publicIds: ReadonlySet<string>): SnapshotSummary {
  const snapshotId = snapshot.SnapshotId ?? 'unknown';
  return {
    id: ebsSnapshotId(region, snapshotId),
    kind: 'ebs',
    source: sourceOfSnapshot(snapshot, region),
    time: snapshot.StartTime?.toISOString() ?? new Date(0).toISOString(),
    sizeBytes: snapshot.FullSnapshotSizeInBytes ?? null,
    state: snapshot.State ?? 'unknown',
    encrypted: snapshot.Encrypted ?? null,
    public: publicIds.has(snapshotId),
    description: snapshot.Description ?? '',
    details: {
      volumeSizeGiB: snapshot.VolumeSize ?? null,
      progress: snapshot.Progress ?? null,
      storageTier: snapshot.StorageTier ?? null,
    },
  };
}

function inventorySummary(configuration: InventoryConfigurationView, reportTime: string): SnapshotSummary {
  return {
    id: inventoryReportId(configuration.bucket, configuration.id, reportTime),
    kind: 's3_inventory',
    source: inventorySourceId(configuration.bucket, configuration.id),
    time: reportTimeToIso(reportTime),
    sizeBytes: null,
    state: 'listed',
    // Since 2023-01-05 S3 encrypts every new object, at least with SSE-S3 (S3 User Guide, "Default encryption").
    encrypted: true,
    public: null,
    description:
      `S3 Inventory "${configuration.id}" of ${configuration.bucket}: ${configuration.frequency}, ` +
      `${configuration.includedObjectVersions === 'All' ? 'every version' : 'current versions'}, ${configuration.format}, ` +
      `in s3://${configuration.destinationBucket}/${configuration.base}`,
    details: {
      bucket: configuration.bucket,
      configurationId: configuration.id,
      enabled: configuration.enabled,
      reportEncryption: configuration.reportEncryption,
    },
  };
}

async function listEbs(
  ctx: ToolContext,
  clients: SnapshotClients,
  access: AwsAccess,
  regions: readonly string[],
  volumeId: string | undefined,
  errors: ListSnapshotsValue['errors'],
): Promise<{ summaries: SnapshotSummary[]; truncated: boolean }> {
  const summaries: SnapshotSummary[] = [];
  let truncated = false;
  try {
    const { outcomes, skipped } = await forEachRegion(
      regions,
      (region) => regionSnapshots(clients, access, region, ctx.deadline, volumeId),
      { tool: ctx.tool, service: 'ec2', deadline: ctx.deadline, explainError: regionErrorExplainer(access) },
    );
    truncated = skipped.length > 0;
    for (const outcome of outcomes) {
      if (!outcome.ok) {
        errors.push({ where: `ebs ${outcome.region}`, error: outcome.error });
        continue;
      }
      truncated ||= outcome.value.truncated;
      for (const snapshot of outcome.value.snapshots) {
        summaries.push(ebsSummary(snapshot, outcome.region, outcome.value.publicIds));
      }
    }
  } catch (err) {
    if (volumeId) throw err;
    errors.push({ where: `ebs ${regions.join(',')}`, error: normalizeError(ctx.tool, err, 'ec2') });
  }
  return { summaries, truncated };
}

async function listInventories(
  ctx: ToolContext,
  clients: SnapshotClients,
  access: AwsAccess,
  source: Extract<SourceRef, { kind: 's3_inventory' }> | undefined,
  errors: ListSnapshotsValue['errors'],
): Promise<{
  summaries: SnapshotSummary[];
  configurations: Map<string, InventoryConfigurationView>;
  truncated: boolean;
}> {
  const found = await findInventoryConfigurations(
    clients,
    access,
    source
      ? {
          bucket: source.bucket,
          ...(source.configurationId ? { configurationId: source.configurationId } : {}),
        }
      : {},
    ctx.deadline,
    ctx.tool,
  );
  for (const { bucket, error } of found.errors) errors.push({ where: `s3 bucket ${bucket}`, error });
  const s3 = clients.s3(access, access.region);
  const { settled, skipped } = await mapBounded(
    found.configurations,
    (configuration) => listReportTimes(s3, configuration, ctx.deadline),
    { concurrency: MANIFEST_CONCURRENCY, deadline: ctx.deadline },
  );
  const summaries: SnapshotSummary[] = [];
  const configurations = new Map<string, InventoryConfigurationView>();
  let truncated = found.truncated || skipped.length > 0;
  for (const outcome of settled) {
    const configuration = outcome.item;
    const sourceId = inventorySourceId(configuration.bucket, configuration.id);
    if (!outcome.ok) {
      if (source?.configurationId) throw outcome.error;
      errors.push({ where: sourceId, error: normalizeError(ctx.tool, outcome.error, 's3') });
      continue;
    }
    configurations.set(sourceId, configuration);
    truncated ||= outcome.value.truncated;
    for (const time of outcome.value.times) summaries.push(inventorySummary(configuration, time));
  }
  return { summaries, configurations, truncated };
}

/** Reads the manifests of the inventory reports being returned, filling size and state. */
async function withManifests(
  ctx: ToolContext,
  clients: SnapshotClients,
  access: AwsAccess,
  summaries: SnapshotSummary[],
  configurations: ReadonlyMap<string, InventoryConfigurationView>,
): Promise<SnapshotSummary[]> {
  const s3 = clients.s3(access, access.region);
  const { settled } = await mapBounded(
    summaries,
    async (summary) => {
      const configuration = summary.source ? configurations.get(summary.source) : undefined;
      if (summary.kind !== 's3_inventory' || !configuration) return summary;
      const reportTime = summary.id.slice(summary.id.lastIndexOf('/') + 1);
      try {
        const { manifest } = await openReport(s3, configuration, reportTime, ctx.deadline);
        return {
          ...summary,
          sizeBytes: manifest.reportBytes,
          state: 'available',
          details: {
            ...summary.details,
            format: manifest.fileFormat,
            dataFiles: manifest.files.length,
            createdAt: new Date(manifest.createdAtMs).toISOString(),
          },
        };
      } catch (err) {
        const error = normalizeError(ctx.tool, err, 's3');
        const state = error.code === 'not_found' ? 'missing_manifest' : 'unreadable';
        return { ...summary, state, details: { ...summary.details, error } };
      }
    },
    { concurrency: MANIFEST_CONCURRENCY },
  );
  return settled.map((s) => (s.ok ? s.value : s.item));
}

/** Newest first, then by id. */
function newestFirst(a: SnapshotSummary, b: SnapshotSummary): number {
  return b.time.localeCompare(a.time) || a.id.localeCompare(b.id);
}

/**
 * `list_snapshots` with injectable clients (tests point S3 at a local server).
 *
 * API calls: per region 1+ DescribeSnapshots pages (own) and 1+ (public);
 * 1 DescribeRegions for "all"; ListBuckets pages and one
 * ListBucketInventoryConfigurations per bucket when no `source` is given; one
 * ListObjectsV2 page per 1,000 reports of each configuration; one GetObject per
 * returned report's manifest.
 */
export function createListSnapshotsTool(clients: SnapshotClients = defaultSnapshotClients) {
  return defineTool(listSnapshotsSpec, async (ctx, args: ToolArgs<typeof listSnapshotsSpec.inputSchema>) => {
    const source = args.source === undefined ? undefined : parseSourceId(args.source);
    const from = args.since === undefined ? Number.NEGATIVE_INFINITY : sinceMs(args.since);
    const access = await ctx.aws();
    await access.credentials();
    const errors: ListSnapshotsValue['errors'] = [];
    let summaries: SnapshotSummary[] = [];
    let truncated = false;
    let configurations = new Map<string, InventoryConfigurationView>();
    if (!source || source.kind === 'ebs') {
      const regions = source?.kind === 'ebs' ? [source.region] : await resolveRegions(args.regions, access);
      const ebs = await listEbs(
        ctx,
        clients,
        access,
        regions,
        source?.kind === 'ebs' ? source.volumeId : undefined,
        errors,
      );
      summaries.push(...ebs.summaries);
      truncated ||= ebs.truncated;
    }
    if (!source || source.kind === 's3_inventory') {
      const only = source?.kind === 's3_inventory' ? source : undefined;
      const inventories = await inService('s3', () => listInventories(ctx, clients, access, only, errors));
      summaries.push(...inventories.summaries);
      configurations = inventories.configurations;
      truncated ||= inventories.truncated;
    }
    summaries = summaries.filter((s) => Date.parse(s.time) >= from).sort(newestFirst);
    const matched = summaries.length;
    const shown = await withManifests(ctx, clients, access, summaries.slice(0, args.limit), configurations);
    const value: ListSnapshotsValue = { snapshots: shown, matched, errors };
    const kinds = { ebs: 0, s3_inventory: 0 };
    for (const s of shown) kinds[s.kind]++;
    return {
      value,
      truncated,
      summary:
        `${shown.length} of ${matched} snapshots (${kinds.ebs} EBS, ${kinds.s3_inventory} S3 Inventory)` +
        (errors.length > 0 ? `; ${errors.length} source(s) unreadable` : ''),
    };
  });
}

/** `list_snapshots`. */
export const listSnapshotsTool = createListSnapshotsTool();

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(listSnapshotsTool);
