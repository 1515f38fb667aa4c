import {
  EC2Client,
  paginateDescribeSnapshots,
  paginateDescribeVolumes,
  type Snapshot,
  type Volume,
} from '@aws-sdk/client-ec2';
import { readPages } from '../../runtime/aws/pagination';
import { defineTool } from '../../runtime/spec';
import { formatUsd, increment, plural, roundCents } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { ebsInventorySpec } from './ebs-inventory.meta';
import { auditResult, readPart } from './shared/audit-parts';
import type { Finding } from './shared/findings';
import { EBS_GP3_INCLUDED_IOPS, ebsVolumeMonthlyUsd, priceSource, priceTableSource } from './shared/pricing';
import {
  type AuditValue,
  auditValue,
  firstStop,
  newFinding,
  runRegionalAudit,
} from './shared/regional-audit';
import { serviceEnum, type UnrecognizedValues } from './shared/service-enums';

/** DescribeVolumes returns at most 500 volumes a page (EC2 API reference, "DescribeVolumes", MaxResults). */
const VOLUME_PAGE_SIZE = 500;
/** 200 pages × 500 = 100,000 volumes per region before the page cap marks the result truncated. */
const MAX_VOLUME_PAGES = 200;
/** DescribeSnapshots returns at most 1,000 snapshots a page (EC2 API reference, "DescribeSnapshots", MaxResults). */
const SNAPSHOT_PAGE_SIZE = 1000;
/** 10 pages: 10,000 public snapshots in one region is already an incident; the rest is `truncated`. */
const MAX_SNAPSHOT_PAGES = 10;

/** gp2 baseline IOPS: 3 per GiB, at least 100, at most 16,000 (Amazon EBS volume types, "gp2 volumes"). */
function gp2BaselineIops(sizeGiB: number): number {
  return Math.min(16_000, Math.max(100, sizeGiB * 3));
}

/** DescribeVolumes `State` (EC2 API reference, "Volume"). */
const VOLUME_STATE = serviceEnum('State', [
  'creating',
  'available',
  'in-use',
  'deleting',
  'deleted',
  'error',
] as const);
/** DescribeVolumes `VolumeType` (EC2 API reference, "Volume"). */
const VOLUME_TYPE = serviceEnum('VolumeType', [
  'standard',
  'io1',
  'io2',
  'gp2',
  'sc1',
  'st1',
  'gp3',
] as const);
/**
 * Volumes on their way out: DescribeVolumes lists them until they are gone. They
 * are counted apart (`endedVolumes`), never in the totals, costs or findings.
 */
const ENDED_STATES: ReadonlySet<string> = new Set(['deleting', 'deleted']);

/** Counts per region, added up over regions. USD amounts are monthly estimates. */
export type EbsStats = {
  /** Live volumes (not deleting or deleted). */
  volumes: number;
  sizeGiB: number;
  byType: Record<string, number>;
  sizeGiBByType: Record<string, number>;
  byState: Record<string, number>;
  /** Volumes being deleted or deleted, by state: listed by EC2 a while, counted nowhere else. */
  endedVolumes: number;
  endedByState: Record<string, number>;
  /** Storage plus provisioned IOPS/throughput of every volume with a price in the table. */
  estimatedMonthlyUsd: number;
  /** Live volumes with no price in the table for their region or type ("estimate unavailable"). */
  volumesWithoutPrice: number;
  unattachedVolumes: number;
  unattachedMonthlyUsd: number;
  gp2Volumes: number;
  gp3MonthlySavingsUsd: number;
  unencryptedVolumes: number;
  /** Public snapshots found; regions whose DescribeSnapshots failed count none (see their `partialErrors`). */
  publicSnapshots: number;
  /** Volumes or snapshots EC2 listed twice (counted once). */
  duplicatesSkipped: number;
  /** States and types this tool does not know, by `field:value` (counted, never dropped). */
  unrecognizedValues: UnrecognizedValues;
};

/** What `aws_ebs_inventory` returns: the totals, findings and regions, and the prices' source. */
export type EbsInventoryValue = AuditValue<EbsStats> & { readonly priceSource: string };

const emptyStats = (): EbsStats => ({
  volumes: 0,
  sizeGiB: 0,
  byType: {},
  sizeGiBByType: {},
  byState: {},
  endedVolumes: 0,
  endedByState: {},
  estimatedMonthlyUsd: 0,
  volumesWithoutPrice: 0,
  unattachedVolumes: 0,
  unattachedMonthlyUsd: 0,
  gp2Volumes: 0,
  gp3MonthlySavingsUsd: 0,
  unencryptedVolumes: 0,
  publicSnapshots: 0,
  duplicatesSkipped: 0,
  unrecognizedValues: {},
});

/** The volume's Name tag, for people reading the finding. */
function nameOf(tags: Volume['Tags']): string | undefined {
  return tags?.find((tag) => tag.Key === 'Name')?.Value;
}

/**
 * What moving a gp2 volume to gp3 saves a month in `region`: the storage price
 * difference, less the gp3 IOPS needed to keep the gp2 baseline above the 3,000
 * gp3 includes (only volumes over 1,000 GiB). gp3's 125 MiB/s included throughput
 * is below gp2's 128–250 MiB/s ceiling; volumes that need more buy it separately.
 * Undefined when the region's table lacks a price it needs.
 */
function gp3MonthlySavingsUsd(sizeGiB: number, region: string): number | undefined {
  const gp2 = ebsVolumeMonthlyUsd({ volumeType: 'gp2', sizeGiB }, region);
  const gp3 = ebsVolumeMonthlyUsd(
    { volumeType: 'gp3', sizeGiB, iops: Math.max(EBS_GP3_INCLUDED_IOPS, gp2BaselineIops(sizeGiB)) },
    region,
  );
  return gp2 === undefined || gp3 === undefined ? undefined : gp2 - gp3;
}

/** A monthly cost for a finding, or the note that the region's table has none. */
function costOrUnavailable(usd: number | undefined, region: string) {
  return usd === undefined
    ? { estimate: 'unavailable' as const }
    : { monthlyCost: { usd: roundCents(usd), priceSource: priceSource('ebs', region) } };
}

/** Adds one volume to the region's stats and returns its findings. */
function auditVolume(volume: Volume, region: string, stats: EbsStats): Finding[] {
  const volumeId = volume.VolumeId ?? 'unknown';
  const rawState = volume.State ?? 'unknown';
  const state = VOLUME_STATE.parse(volume.State, stats.unrecognizedValues) ?? rawState;
  if (ENDED_STATES.has(state)) {
    stats.endedVolumes++;
    increment(stats.endedByState, state);
    return [];
  }
  const volumeType =
    VOLUME_TYPE.parse(volume.VolumeType, stats.unrecognizedValues) ?? volume.VolumeType ?? 'unknown';
  const sizeGiB = volume.Size ?? 0;
  const monthlyUsd = ebsVolumeMonthlyUsd(
    {
      volumeType,
      sizeGiB,
      ...(volume.Iops !== undefined ? { iops: volume.Iops } : {}),
      ...(volume.Throughput !== undefined ? { throughputMiBps: volume.Throughput } : {}),
    },
    region,
  );
  stats.volumes++;
  stats.sizeGiB += sizeGiB;
  increment(stats.byType, volumeType);
  increment(stats.byState, state);
  increment(stats.sizeGiBByType, volumeType, sizeGiB);
  if (monthlyUsd === undefined) stats.volumesWithoutPrice++;
  stats.estimatedMonthlyUsd += monthlyUsd ?? 0;

  const common = { region, resource: volume.VolumeArn ?? volumeId, key: volumeId };
  const name = nameOf(volume.Tags);
  const facts = { volumeId, ...(name ? { name } : {}), volumeType, sizeGiB, state };
  const findings: Finding[] = [];
  if (state === 'available') {
    stats.unattachedVolumes++;
    stats.unattachedMonthlyUsd += monthlyUsd ?? 0;
    const cost = costOrUnavailable(monthlyUsd, region);
    findings.push(
      newFinding({
        ...common,
        check: 'ebs_unattached_volume',
        severity: 'medium',
        title: `EBS volume ${volumeId} (${sizeGiB} GiB ${volumeType}) is not attached to any instance`,
        ...('monthlyCost' in cost ? { monthlyCost: cost.monthlyCost } : {}),
        details: {
          ...facts,
          createTime: volume.CreateTime?.toISOString() ?? null,
          ...('estimate' in cost ? { estimate: cost.estimate } : {}),
        },
      }),
    );
  } else if (volumeType === 'gp2' && (state === 'in-use' || state === 'creating')) {
    // An unattached gp2 volume is reported once, as unattached: deleting it saves more than converting it.
    const saving = gp3MonthlySavingsUsd(sizeGiB, region);
    const savings = saving === undefined ? undefined : roundCents(saving);
    stats.gp2Volumes++;
    stats.gp3MonthlySavingsUsd += savings ?? 0;
    findings.push(
      newFinding({
        ...common,
        check: 'ebs_gp2_to_gp3',
        severity: 'low',
        title:
          savings === undefined
            ? `EBS volume ${volumeId} (${sizeGiB} GiB gp2) could move to gp3 (monthly saving: estimate unavailable in ${region})`
            : `EBS volume ${volumeId} (${sizeGiB} GiB gp2) would cost ${formatUsd(savings)}/month less as gp3`,
        ...(savings === undefined
          ? {}
          : { monthlyCost: { usd: savings, priceSource: priceSource('ebs', region) } }),
        details: {
          ...facts,
          gp2BaselineIops: gp2BaselineIops(sizeGiB),
          ...(savings === undefined ? { estimate: 'unavailable' } : {}),
        },
      }),
    );
  }
  if (volume.Encrypted === false) {
    stats.unencryptedVolumes++;
    findings.push(
      newFinding({
        ...common,
        check: 'ebs_unencrypted_volume',
        severity: 'medium',
        title: `EBS volume ${volumeId} is not encrypted at rest`,
        details: facts,
      }),
    );
  }
  return findings;
}

function publicSnapshotFinding(snapshot: Snapshot, region: string): Finding {
  const snapshotId = snapshot.SnapshotId ?? 'unknown';
  return newFinding({
    check: 'ebs_public_snapshot',
    severity: 'critical',
    region,
    resource: snapshotId,
    title: `EBS snapshot ${snapshotId} can be restored by any AWS account (public)`,
    details: {
      snapshotId,
      volumeId: snapshot.VolumeId ?? null,
      sizeGiB: snapshot.VolumeSize ?? null,
      startTime: snapshot.StartTime?.toISOString() ?? null,
    },
  });
}

/**
 * `aws_ebs_inventory` with its handler.
 *
 * Public snapshots come from one filtered DescribeSnapshots (`OwnerIds: ['self']`,
 * `RestorableByUserIds: ['all']`: "all for public snapshots", EC2 API reference,
 * "DescribeSnapshots") instead of one DescribeSnapshotAttribute per snapshot: one
 * page per 1,000 public snapshots rather than a call per snapshot, and no cap that
 * would leave snapshots unchecked.
 *
 * API calls per run: per region ⌈volumes/500⌉ DescribeVolumes (at least 1) +
 * ⌈public snapshots/1,000⌉ DescribeSnapshots (at least 1); plus 1 DescribeRegions for "all".
 */
export const ebsInventoryTool = defineTool(ebsInventorySpec, async (ctx, args) => {
  const audit = await runRegionalAudit(
    ctx,
    { regions: args.regions, topN: args.topN, service: 'ec2', emptyStats: emptyStats() },
    async ({ clientConfig, region, stats, findings, once }) => {
      const client = new EC2Client(clientConfig);
      const volumes = await readPages(
        paginateDescribeVolumes({ client, pageSize: VOLUME_PAGE_SIZE }, {}),
        (page) =>
          once.each(
            page.Volumes,
            (volume) => volume.VolumeId,
            (volume) => findings.push(...auditVolume(volume, region, stats)),
          ),
        { maxPages: MAX_VOLUME_PAGES, deadline: ctx.deadline },
      );
      // A failed snapshot read leaves the public-snapshot check unknown, not the volumes' findings.
      const snapshots = await readPart('EC2 DescribeSnapshots', { tool: ctx.tool, service: 'ec2' }, () =>
        readPages(
          paginateDescribeSnapshots(
            { client, pageSize: SNAPSHOT_PAGE_SIZE },
            { OwnerIds: ['self'], RestorableByUserIds: ['all'] },
          ),
          (page) =>
            once.each(
              page.Snapshots,
              (snapshot) => snapshot.SnapshotId,
              (snapshot) => {
                stats.publicSnapshots++;
                findings.push(publicSnapshotFinding(snapshot, region));
              },
            ),
          { maxPages: MAX_SNAPSHOT_PAGES, deadline: ctx.deadline },
        ),
      );
      return {
        ...firstStop(volumes, snapshots.ok ? snapshots.value : undefined),
        ...(snapshots.ok ? {} : { partialErrors: [snapshots.partialError] }),
      };
    },
  );

  const { totals } = audit;
  const value: EbsInventoryValue = { ...auditValue(audit), priceSource: priceTableSource('ebs') };
  return auditResult(
    audit,
    `${plural(totals.volumes, 'EBS volume')} (${totals.unattachedVolumes} unattached, ` +
      `${plural(totals.publicSnapshots, 'public snapshot')}` +
      `${totals.endedVolumes > 0 ? `, ${totals.endedVolumes} deleting or deleted not counted` : ''}` +
      `${totals.volumesWithoutPrice > 0 ? `, price unavailable for ${totals.volumesWithoutPrice}` : ''})`,
    value,
  );
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(ebsInventoryTool);
