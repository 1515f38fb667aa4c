import { EC2Client, type Instance, paginateDescribeInstances } from '@aws-sdk/client-ec2';
import { awsClientConfig } from '../../runtime/aws/client-config';
import { regionErrorExplainer, resolveRegions } from '../../runtime/aws/enabled-regions';
import { type PageStop, readPages, stopFields } from '../../runtime/aws/pagination';
import { forEachRegion } from '../../runtime/aws/region-fan-out';
import type { ToolErrorInfo } from '../../runtime/result';
import { defineTool } from '../../runtime/spec';
import { compareText, increment, plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { ec2InventorySpec } from './ec2-inventory.meta';
import { FirstSeen } from './shared/findings';
import { addStats } from './shared/regional-audit';
import { serviceEnum, type UnrecognizedValues, unrecognizedNote } from './shared/service-enums';

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

/** InstanceState `Name` (EC2 API reference, "InstanceState"). */
const INSTANCE_STATE = serviceEnum('State.Name', [
  'pending',
  'running',
  'shutting-down',
  'terminated',
  'stopping',
  'stopped',
] as const);
/**
 * States of instances that are gone or going: EC2 keeps listing terminated
 * instances for about an hour (EC2 User Guide, "Terminate Amazon EC2
 * instances"). They are counted apart (`endedInstances`) and never in the
 * totals or the top N.
 */
const ENDED_STATES: ReadonlySet<string> = new Set(['shutting-down', 'terminated']);

function toInventoryInstance(instance: Instance, region: string, state: string): InventoryInstance {
  return {
    instanceId: instance.InstanceId ?? 'unknown',
    region,
    name: instance.Tags?.find((tag) => tag.Key === 'Name')?.Value ?? null,
    instanceType: instance.InstanceType ?? 'unknown',
    state,
    launchTime: instance.LaunchTime?.toISOString() ?? null,
    privateIpAddress: instance.PrivateIpAddress ?? null,
    publicIpAddress: instance.PublicIpAddress ?? null,
    platform: instance.PlatformDetails ?? instance.Platform ?? 'Linux/UNIX',
  };
}

/** Running first, then oldest launch first, then by id: a stable order. */
function byRelevance(a: InventoryInstance, b: InventoryInstance): number {
  const running = Number(b.state === 'running') - Number(a.state === 'running');
  if (running !== 0) return running;
  return (
    compareText(a.launchTime ?? '9999', b.launchTime ?? '9999') || compareText(a.instanceId, b.instanceId)
  );
}

/** What one region adds to the inventory; merged only when the region's read completed. */
type RegionCounts = {
  /** Live instances (not shutting-down or terminated). */
  instanceCount: number;
  byState: Record<string, number>;
  byInstanceType: Record<string, number>;
  /** Shutting-down and terminated instances still listed, by state. */
  endedInstances: number;
  endedByState: Record<string, number>;
  /** Instances listed twice (page boundaries that moved while paging), counted once. */
  duplicatesSkipped: number;
  /** States this tool does not know, by `field:value`; such instances count as live under their raw state. */
  unrecognizedValues: UnrecognizedValues;
};

const emptyCounts = (): RegionCounts => ({
  instanceCount: 0,
  byState: {},
  byInstanceType: {},
  endedInstances: 0,
  endedByState: {},
  duplicatesSkipped: 0,
  unrecognizedValues: {},
});

/**
 * One region's line in `regions[]`: its live instances and pages read, with
 * ended instances and duplicates when there were any (the maps stay in the totals).
 */
interface RegionInventory {
  readonly instanceCount: number;
  readonly endedInstances?: number;
  readonly duplicatesSkipped?: number;
  readonly pages: number;
  readonly stoppedBy?: PageStop;
  readonly nextToken?: string;
  readonly stopError?: ToolErrorInfo;
}

/**
 * `aws_ec2_inventory` with its handler.
 *
 * A region adds to the totals only once its read has ended (all pages, or a
 * page cap, the deadline or a throttling answer after some pages, marked `stoppedBy`
 * with the `nextToken` to resume from and `truncated`): a region that
 * answers page 1 and fails on page 2 is an error line in `regions[]` and adds
 * nothing, so `totalInstances` is always the sum of `byState` and of the
 * regions' `instanceCount`.
 */
export const ec2InventoryTool = defineTool(ec2InventorySpec, async (ctx, args) => {
  const access = await ctx.aws();
  await access.credentials(); // fail once with auth_failed, not once per region
  const regions = await resolveRegions(args.regions, access);

  const { outcomes, skipped } = await forEachRegion(
    regions,
    async (region): Promise<{ line: RegionInventory; counts: RegionCounts; top: InventoryInstance[] }> => {
      const client = new EC2Client(awsClientConfig(access, region));
      const counts = emptyCounts();
      const once = new FirstSeen();
      // Only the topN most relevant live instances are kept in memory, so 100,000 instances stay cheap.
      let top: InventoryInstance[] = [];
      const read = await readPages(
        paginateDescribeInstances({ client, pageSize: PAGE_SIZE }, {}),
        (page) => {
          for (const reservation of page.Reservations ?? []) {
            once.each(
              reservation.Instances,
              (instance) => instance.InstanceId,
              (instance) => {
                const state =
                  INSTANCE_STATE.parse(instance.State?.Name, counts.unrecognizedValues) ??
                  instance.State?.Name ??
                  'unknown';
                if (ENDED_STATES.has(state)) {
                  counts.endedInstances++;
                  increment(counts.endedByState, state);
                  return;
                }
                const item = toInventoryInstance(instance, region, state);
                counts.instanceCount++;
                increment(counts.byState, item.state);
                increment(counts.byInstanceType, item.instanceType);
                top.push(item);
              },
            );
          }
          if (top.length > args.topN * 4) top = top.sort(byRelevance).slice(0, args.topN);
        },
        { maxPages: MAX_PAGES_PER_REGION, deadline: ctx.deadline },
      );
      counts.duplicatesSkipped = once.duplicates;
      return {
        line: {
          instanceCount: counts.instanceCount,
          ...(counts.endedInstances > 0 ? { endedInstances: counts.endedInstances } : {}),
          ...(counts.duplicatesSkipped > 0 ? { duplicatesSkipped: counts.duplicatesSkipped } : {}),
          pages: read.pages,
          ...stopFields(read),
        },
        counts,
        top,
      };
    },
    {
      tool: ctx.tool,
      service: 'ec2',
      deadline: ctx.deadline,
      explainError: regionErrorExplainer(access),
    },
  );

  const completed = outcomes.flatMap((o) => (o.ok ? [o.value] : []));
  const totals = addStats(
    emptyCounts(),
    completed.map((c) => c.counts),
  );
  const failed = outcomes.length - completed.length;
  const truncated = skipped.length > 0 || completed.some((c) => c.line.stoppedBy !== undefined);
  const running = totals.byState.running ?? 0;
  return {
    value: {
      totalInstances: totals.instanceCount,
      byState: totals.byState,
      byInstanceType: totals.byInstanceType,
      endedInstances: totals.endedInstances,
      endedByState: totals.endedByState,
      duplicatesSkipped: totals.duplicatesSkipped,
      unrecognizedValues: totals.unrecognizedValues,
      instances: completed
        .flatMap((c) => c.top)
        .sort(byRelevance)
        .slice(0, args.topN),
      regions: outcomes.map((o) =>
        o.ok ? { region: o.region, ...o.value.line } : { region: o.region, error: o.error },
      ),
      skippedRegions: skipped,
    },
    truncated,
    summary:
      `${plural(totals.instanceCount, 'EC2 instance')} in ${plural(regions.length, 'region')} ` +
      `(${running} running${totals.endedInstances > 0 ? `; ${totals.endedInstances} terminated or shutting down, not counted` : ''})` +
      `${failed > 0 ? `; ${plural(failed, 'region')} failed` : ''}${truncated ? '; partial' : ''}` +
      unrecognizedNote(totals.unrecognizedValues),
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(ec2InventoryTool);
