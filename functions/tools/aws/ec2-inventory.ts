import { EC2Client, type Instance, paginateDescribeInstances } from '@aws-sdk/client-ec2';
import { awsClientConfig } from '../../runtime/aws/client-config';
import { resolveRegions } from '../../runtime/aws/enabled-regions';
import { readPages } from '../../runtime/aws/pagination';
import { forEachRegion } from '../../runtime/aws/region-fan-out';
import { defineTool } from '../../runtime/spec';
import { increment, plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { ec2InventorySpec } from './ec2-inventory.meta';

/** One instance as the inventory lists it. */
export interface InventoryInstance {
  readonly instanceId: string;
  readonly region: string;
  readonly name: string | null;
  readonly instanceType: string;
  readonly state: string;
  readonly launchTime: string | null;
  readonly privateIpAddress: string | null;
  readonly publicIpAddress: string | null;
  readonly platform: string;
}

/** DescribeInstances returns at most 1,000 instances a page (EC2 API reference, "DescribeInstances", MaxResults). */
const PAGE_SIZE = 1000;
/** 100 pages × 1,000 = 100,000 instances per region before the page cap marks the result truncated. */
const MAX_PAGES_PER_REGION = 100;

function toInventoryInstance(instance: Instance, region: string): InventoryInstance {
  return {
    instanceId: instance.InstanceId ?? 'unknown',
    region,
    name: instance.Tags?.find((tag) => tag.Key === 'Name')?.Value ?? null,
    instanceType: instance.InstanceType ?? 'unknown',
    state: instance.State?.Name ?? 'unknown',
    launchTime: instance.LaunchTime?.toISOString() ?? null,
    privateIpAddress: instance.PrivateIpAddress ?? null,
    publicIpAddress: instance.PublicIpAddress ?? null,
    platform: instance.PlatformDetails ?? instance.Platform ?? 'Linux/UNIX',
  };
}

/** Plain code-unit order: ISO timestamps and instance ids sort correctly, much faster than localeCompare. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Running first, then oldest launch first, then by id: a stable order. */
function byRelevance(a: InventoryInstance, b: InventoryInstance): number {
  const running = Number(b.state === 'running') - Number(a.state === 'running');
  if (running !== 0) return running;
  return (
    compareText(a.launchTime ?? '9999', b.launchTime ?? '9999') || compareText(a.instanceId, b.instanceId)
  );
}

/** Region summary kept per region; instances themselves are only kept for the top N. */
interface RegionInventory {
  readonly instanceCount: number;
  readonly pages: number;
  readonly stoppedBy?: string;
}

/** `aws_ec2_inventory` with its handler. */
export const ec2InventoryTool = defineTool(ec2InventorySpec, async (ctx, args) => {
  const access = await ctx.aws();
  await access.credentials(); // fail once with auth_failed, not once per region
  const regions = await resolveRegions(args.regions, access);
  const byState: Record<string, number> = {};
  const byInstanceType: Record<string, number> = {};
  // Only the topN most relevant instances are kept in memory, so 100,000 instances stay cheap.
  let top: InventoryInstance[] = [];

  const { outcomes, skipped } = await forEachRegion(
    regions,
    async (region): Promise<RegionInventory> => {
      const client = new EC2Client(awsClientConfig(access, region));
      let instanceCount = 0;
      const read = await readPages(
        paginateDescribeInstances({ client, pageSize: PAGE_SIZE }, {}),
        (page) => {
          for (const reservation of page.Reservations ?? []) {
            for (const instance of reservation.Instances ?? []) {
              const item = toInventoryInstance(instance, region);
              instanceCount++;
              increment(byState, item.state);
              increment(byInstanceType, item.instanceType);
              top.push(item);
            }
          }
          if (top.length > args.topN * 4) top = top.sort(byRelevance).slice(0, args.topN);
        },
        { maxPages: MAX_PAGES_PER_REGION, deadline: ctx.deadline },
      );
      return { instanceCount, pages: read.pages, ...(read.stoppedBy ? { stoppedBy: read.stoppedBy } : {}) };
    },
    { tool: ctx.tool, service: 'ec2', deadline: ctx.deadline },
  );

  const totalInstances = outcomes.reduce((sum, o) => sum + (o.ok ? o.value.instanceCount : 0), 0);
  const failed = outcomes.filter((o) => !o.ok).length;
  const truncated = skipped.length > 0 || outcomes.some((o) => o.ok && o.value.stoppedBy !== undefined);
  const running = byState.running ?? 0;
  return {
    value: {
      totalInstances,
      byState,
      byInstanceType,
      instances: top.sort(byRelevance).slice(0, args.topN),
      regions: outcomes.map((o) =>
        o.ok ? { region: o.region, ...o.value } : { region: o.region, error: o.error },
      ),
      skippedRegions: skipped,
    },
    truncated,
    summary:
      `${plural(totalInstances, 'EC2 instance')} in ${plural(regions.length, 'region')} ` +
      `(${running} running)${failed > 0 ? `; ${plural(failed, 'region')} failed` : ''}${truncated ? '; partial' : ''}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(ec2InventoryTool);
