import { CloudWatchClient, type MetricDataQuery, paginateGetMetricData } from '@aws-sdk/client-cloudwatch';
import { EC2Client, type NatGateway, paginateDescribeNatGateways } from '@aws-sdk/client-ec2';
import { awsClientConfig } from '../../runtime/aws/client-config';
import type { AwsAccess } from '../../runtime/aws/credentials';
import { type PagesRead, readPages } from '../../runtime/aws/pagination';
import type { Deadline } from '../../runtime/deadline';
import { defineTool } from '../../runtime/spec';
import { formatUsd, increment, plural, roundCents } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { natGatewaysAuditSpec } from './nat-gateways-audit.meta';
import { readPart, regionalAuditSummary } from './shared/audit-parts';
import type { Finding } from './shared/findings';
import {
  BYTES_PER_BILLED_GB,
  HOURS_PER_MONTH,
  NAT_GATEWAY_GB_USD,
  NAT_GATEWAY_HOUR_USD,
  NAT_PRICE_SOURCE,
} from './shared/pricing';
import {
  type AuditValue,
  auditValue,
  firstStop,
  newFinding,
  type PartialError,
  runRegionalAudit,
} from './shared/regional-audit';

/** DescribeNatGateways returns at most 1,000 gateways a page (EC2 API reference, "DescribeNatGateways", MaxResults). */
const GATEWAY_PAGE_SIZE = 1000;
/** 10 pages: 10,000 gateways per region, far above the 5-per-AZ default quota ("Amazon VPC quotas"). */
const MAX_GATEWAY_PAGES = 10;

/**
 * The bytes a gateway processed: what it received from clients in the VPC plus
 * what it received back from destinations. Each processed byte enters the gateway
 * exactly once; adding the `BytesOut*` metrics would count it twice (Amazon VPC
 * User Guide, "NAT gateway CloudWatch metrics").
 */
const PROCESSED_BYTES_METRICS = ['BytesInFromSource', 'BytesInFromDestination'] as const;
/** GetMetricData takes at most 500 queries a request (CloudWatch API reference, "GetMetricData"). */
const MAX_QUERIES_PER_REQUEST = 500;
const GATEWAYS_PER_REQUEST = MAX_QUERIES_PER_REQUEST / PROCESSED_BYTES_METRICS.length;
/**
 * One datapoint a day: at most 90 per query, 45,000 per request, within the
 * 100,800 datapoints of one GetMetricData page; the page cap only guards a loop.
 */
const METRIC_PERIOD_SECONDS = 86_400;
const MAX_METRIC_PAGES = 10;
/** Gateways younger than this are not judged idle: too little time to have seen traffic. */
const MIN_OBSERVED_HOURS = 24;

const HOUR_MS = 3_600_000;

/** The metric window: whole hours, ending at the last full hour. */
interface MetricWindow {
  readonly start: Date;
  readonly end: Date;
  readonly days: number;
}

/** One gateway with its traffic and cost, as the tool lists it. */
export interface NatGatewayUsage {
  readonly natGatewayId: string;
  readonly region: string;
  readonly vpcId: string | null;
  readonly subnetId: string | null;
  readonly connectivityType: string;
  readonly createTime: string | null;
  /** Bytes processed over the observed window; null when CloudWatch could not be read. */
  readonly processedBytes: number | null;
  /** Days of the window the gateway existed (the window, or less for younger gateways). */
  readonly observedDays: number;
  /** Hourly charge plus processing at the observed rate, USD per month; hourly charge only when bytes are unknown. */
  readonly estimatedMonthlyUsd: number;
  /** Null when it could not be judged (no metrics, or younger than a day). */
  readonly idle: boolean | null;
}

/** Counts per region, added up over regions. */
export type NatGatewayStats = {
  gateways: number;
  idleGateways: number;
  /** Gateways whose traffic is unknown: CloudWatch failed or was cut short. */
  gatewaysWithoutMetrics: number;
  byConnectivityType: Record<string, number>;
  processedBytes: number;
  estimatedMonthlyUsd: number;
};

/** What `aws_nat_gateways_audit` returns. */
export type NatGatewaysAuditValue = AuditValue<NatGatewayStats> & {
  readonly window: { readonly start: string; readonly end: string; readonly days: number };
  readonly idleBytesThreshold: number;
  /** The top N gateways by estimated monthly cost. */
  readonly natGateways: NatGatewayUsage[];
  readonly priceSource: string;
};

const emptyStats = (): NatGatewayStats => ({
  gateways: 0,
  idleGateways: 0,
  gatewaysWithoutMetrics: 0,
  byConnectivityType: {},
  processedBytes: 0,
  estimatedMonthlyUsd: 0,
});

function metricWindow(days: number, now: number): MetricWindow {
  const end = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { start: new Date(end - days * 24 * HOUR_MS), end: new Date(end), days };
}

/** Processed bytes per gateway id, or why they are unknown. */
interface TrafficRead {
  readonly bytes: ReadonlyMap<string, number>;
  readonly complete: boolean;
  readonly read?: PagesRead;
  readonly partialError?: PartialError;
}

/**
 * Sums each gateway's processed bytes over the window with GetMetricData, 250
 * gateways (500 queries) a request. A CloudWatch failure is returned, not
 * thrown: the gateways and their hourly cost are still worth reporting.
 */
async function readTraffic(
  cloudwatch: CloudWatchClient,
  gatewayIds: readonly string[],
  window: MetricWindow,
  context: { readonly tool: string; readonly deadline: Deadline },
): Promise<TrafficRead> {
  const bytes = new Map<string, number>(gatewayIds.map((id) => [id, 0]));
  const summed = await readPart(
    'CloudWatch GetMetricData',
    { tool: context.tool, service: 'cloudwatch' },
    async (): Promise<Omit<TrafficRead, 'bytes'>> => {
      let lastRead: PagesRead | undefined;
      for (let first = 0; first < gatewayIds.length; first += GATEWAYS_PER_REQUEST) {
        const batch = gatewayIds.slice(first, first + GATEWAYS_PER_REQUEST);
        const queryOwner = new Map<string, string>();
        const queries: MetricDataQuery[] = batch.flatMap((natGatewayId, index) =>
          PROCESSED_BYTES_METRICS.map((metricName, m) => {
            const id = `g${first + index}m${m}`; // query ids must match ^[a-z][a-zA-Z0-9_]*$
            queryOwner.set(id, natGatewayId);
            return {
              Id: id,
              MetricStat: {
                Metric: {
                  Namespace: 'AWS/NATGateway',
                  MetricName: metricName,
                  Dimensions: [{ Name: 'NatGatewayId', Value: natGatewayId }],
                },
                Period: METRIC_PERIOD_SECONDS,
                Stat: 'Sum',
              },
              ReturnData: true,
            };
          }),
        );
        lastRead = await readPages(
          paginateGetMetricData(
            { client: cloudwatch },
            { StartTime: window.start, EndTime: window.end, MetricDataQueries: queries },
          ),
          (page) => {
            for (const result of page.MetricDataResults ?? []) {
              const owner = queryOwner.get(result.Id ?? '');
              if (!owner) continue;
              const sum = (result.Values ?? []).reduce((total, v) => total + v, 0);
              bytes.set(owner, (bytes.get(owner) ?? 0) + sum);
            }
          },
          { maxPages: MAX_METRIC_PAGES, deadline: context.deadline },
        );
        if (lastRead.stoppedBy) return { complete: false, read: lastRead };
      }
      return { complete: true, ...(lastRead ? { read: lastRead } : {}) };
    },
  );
  return summed.ok
    ? { bytes, ...summed.value }
    : { bytes, complete: false, partialError: summed.partialError };
}

function usageOf(
  gateway: NatGateway,
  region: string,
  window: MetricWindow,
  processedBytes: number | null,
  idleBytesThreshold: number,
): NatGatewayUsage {
  const windowHours = window.days * 24;
  const created = gateway.CreateTime?.getTime();
  const observedHours =
    created === undefined
      ? windowHours
      : Math.max(0, Math.min(windowHours, (window.end.getTime() - created) / HOUR_MS));
  const hourly = HOURS_PER_MONTH * NAT_GATEWAY_HOUR_USD;
  const processedGbPerMonth =
    processedBytes !== null && observedHours > 0
      ? (processedBytes / BYTES_PER_BILLED_GB / observedHours) * HOURS_PER_MONTH
      : 0;
  const judged = processedBytes !== null && observedHours >= MIN_OBSERVED_HOURS;
  return {
    natGatewayId: gateway.NatGatewayId ?? 'unknown',
    region,
    vpcId: gateway.VpcId ?? null,
    subnetId: gateway.SubnetId ?? null,
    connectivityType: gateway.ConnectivityType ?? 'public',
    createTime: gateway.CreateTime?.toISOString() ?? null,
    processedBytes,
    observedDays: Math.round((observedHours / 24) * 100) / 100,
    estimatedMonthlyUsd: roundCents(hourly + processedGbPerMonth * NAT_GATEWAY_GB_USD),
    idle: judged ? processedBytes <= idleBytesThreshold : null,
  };
}

function idleFinding(usage: NatGatewayUsage, threshold: number): Finding {
  const mib = ((usage.processedBytes ?? 0) / 1024 ** 2).toFixed(1);
  return newFinding({
    check: 'nat_gateway_idle',
    severity: 'medium',
    region: usage.region,
    resource: usage.natGatewayId,
    title:
      `NAT gateway ${usage.natGatewayId} processed ${mib} MiB in ${usage.observedDays} days ` +
      `(idle at or below ${threshold} bytes) and costs about ${formatUsd(usage.estimatedMonthlyUsd)}/month`,
    monthlyCost: { usd: usage.estimatedMonthlyUsd, priceSource: NAT_PRICE_SOURCE },
    details: { ...usage },
  });
}

/** Most expensive first, then by id: a stable order. */
function byCost(a: NatGatewayUsage, b: NatGatewayUsage): number {
  return b.estimatedMonthlyUsd - a.estimatedMonthlyUsd || a.natGatewayId.localeCompare(b.natGatewayId);
}

/**
 * `aws_nat_gateways_audit` with its handler.
 *
 * The monthly estimate is the hourly charge × 730 plus the processed bytes of the
 * window scaled to 730 hours × the per-GB processing price; data transfer charges
 * and the public IPv4 charge of the gateway's Elastic IP are billed apart and left
 * out (the Elastic IP stays billed until released, even after the gateway is deleted).
 *
 * API calls per run: per region ⌈gateways/1,000⌉ DescribeNatGateways (at least 1) +
 * ⌈gateways/250⌉ GetMetricData (none without gateways); plus 1 DescribeRegions for "all".
 */
export const natGatewaysAuditTool = defineTool(natGatewaysAuditSpec, async (ctx, args) => {
  const window = metricWindow(args.days, Date.now());
  let usages: NatGatewayUsage[] = [];

  const scanRegion = async (access: AwsAccess, region: string) => {
    const ec2 = new EC2Client(awsClientConfig(access, region));
    const gateways: NatGateway[] = [];
    const listed = await readPages(
      paginateDescribeNatGateways(
        { client: ec2, pageSize: GATEWAY_PAGE_SIZE },
        // Only available gateways are billed; deleted ones stay listed for about an hour.
        { Filter: [{ Name: 'state', Values: ['available'] }] },
      ),
      (page) => gateways.push(...(page.NatGateways ?? [])),
      { maxPages: MAX_GATEWAY_PAGES, deadline: ctx.deadline },
    );
    const ids = gateways.map((g) => g.NatGatewayId).filter((id): id is string => id !== undefined);
    const traffic: TrafficRead =
      ids.length > 0
        ? await readTraffic(new CloudWatchClient(awsClientConfig(access, region)), ids, window, ctx)
        : { bytes: new Map(), complete: true };

    const stats = emptyStats();
    const findings: Finding[] = [];
    for (const gateway of gateways) {
      const bytes = traffic.complete ? (traffic.bytes.get(gateway.NatGatewayId ?? '') ?? 0) : null;
      const usage = usageOf(gateway, region, window, bytes, args.idleBytesThreshold);
      stats.gateways++;
      increment(stats.byConnectivityType, usage.connectivityType);
      stats.processedBytes += bytes ?? 0;
      stats.estimatedMonthlyUsd += usage.estimatedMonthlyUsd;
      if (bytes === null) stats.gatewaysWithoutMetrics++;
      if (usage.idle) {
        stats.idleGateways++;
        findings.push(idleFinding(usage, args.idleBytesThreshold));
      }
      usages.push(usage);
    }
    // Only the topN most expensive gateways are kept in memory.
    if (usages.length > args.topN * 4) usages = usages.sort(byCost).slice(0, args.topN);
    const stoppedBy = firstStop(listed, traffic.read);
    return {
      stats,
      findings,
      ...(stoppedBy ? { stoppedBy } : {}),
      ...(traffic.partialError ? { partialErrors: [traffic.partialError] } : {}),
    };
  };

  const audit = await runRegionalAudit(
    ctx,
    { regions: args.regions, topN: args.topN, service: 'ec2', emptyStats: emptyStats() },
    scanRegion,
  );
  const { totals } = audit;
  const value: NatGatewaysAuditValue = {
    ...auditValue(audit),
    window: { start: window.start.toISOString(), end: window.end.toISOString(), days: window.days },
    idleBytesThreshold: args.idleBytesThreshold,
    natGateways: usages.sort(byCost).slice(0, args.topN),
    priceSource: NAT_PRICE_SOURCE,
  };
  return {
    value,
    truncated: audit.truncated,
    summary: regionalAuditSummary(
      `${plural(totals.gateways, 'NAT gateway')} (${totals.idleGateways} idle over ` +
        `${window.days} days, ~${formatUsd(totals.estimatedMonthlyUsd)}/month in all` +
        `${totals.gatewaysWithoutMetrics > 0 ? `, CloudWatch metrics unavailable for ${totals.gatewaysWithoutMetrics}` : ''})`,
      audit,
    ),
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(natGatewaysAuditTool);
