import { CloudWatchClient, type MetricDataQuery, paginateGetMetricData } from '@aws-sdk/client-cloudwatch';
import { EC2Client, type NatGateway, paginateDescribeNatGateways } from '@aws-sdk/client-ec2';
import { awsClientConfig } from '../../runtime/aws/client-config';
import type { AwsAccess } from '../../runtime/aws/credentials';
import { type PagesRead, readPages } from '../../runtime/aws/pagination';
import type { Deadline } from '../../runtime/deadline';
import { defineTool } from '../../runtime/spec';
import { compareText, formatUsd, increment, plural, roundCents } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { natGatewaysAuditSpec } from './nat-gateways-audit.meta';
import { readPart, regionalAuditSummary } from './shared/audit-parts';
import { type Finding, FirstSeen } from './shared/findings';
import {
  BYTES_PER_BILLED_GB,
  HOURS_PER_MONTH,
  natGatewayPrices,
  priceSource,
  priceTableSource,
} from './shared/pricing';
import {
  type AuditValue,
  auditValue,
  firstStop,
  newFinding,
  type PartialError,
  runRegionalAudit,
} from './shared/regional-audit';
import { serviceEnum, type UnrecognizedValues, unrecognizedNote } from './shared/service-enums';

/** DescribeNatGateways returns at most 1,000 gateways a page (EC2 API reference, "DescribeNatGateways", MaxResults). */
const GATEWAY_PAGE_SIZE = 1000;
/** 10 pages: 10,000 gateways per region, far above the 5-per-AZ default quota ("Amazon VPC quotas"). */
const MAX_GATEWAY_PAGES = 10;

/**
 * NatGateway `State` (EC2 API reference, "NatGateway"). Only `available`
 * gateways are billed and audited; the others (deleted ones stay listed for
 * about an hour) are counted apart, by state.
 */
const NAT_STATE = serviceEnum('State', ['pending', 'failed', 'available', 'deleting', 'deleted'] as const);
/** NatGateway `ConnectivityType`; absent on gateways created before private ones existed: `public`. */
const CONNECTIVITY = serviceEnum('ConnectivityType', ['public', 'private'] as const);
/**
 * MetricDataResult `StatusCode` (CloudWatch API reference, "MetricDataResult"):
 * `Complete` and `PartialData` (more pages follow) carry datapoints; `Forbidden`
 * and `InternalError` mean the query's values are not the gateway's traffic.
 */
const METRIC_STATUS = serviceEnum('StatusCode', [
  'Complete',
  'PartialData',
  'Forbidden',
  'InternalError',
] as const);

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
  /** Bytes processed over the observed window; null when unknown (see `traffic`). */
  readonly processedBytes: number | null;
  /**
   * `measured`; `no_datapoints`: CloudWatch answered no datapoint for the gateway
   * (new, or metrics missing): unknown, never zero; `unavailable`: CloudWatch failed,
   * was cut short, or answered Forbidden/InternalError for its queries.
   */
  readonly traffic: 'measured' | 'no_datapoints' | 'unavailable';
  /** Days of the window the gateway existed (the window, or less for younger gateways). */
  readonly observedDays: number;
  /**
   * Hourly charge plus processing at the observed rate, USD per month (hourly
   * charge only when bytes are unknown); null when the region has no price in
   * the table ("estimate unavailable").
   */
  readonly estimatedMonthlyUsd: number | null;
  /** Null when it could not be judged (traffic unknown, or younger than a day). */
  readonly idle: boolean | null;
}

/** Counts per region, added up over regions. */
export type NatGatewayStats = {
  /** Available gateways: the billed ones, audited. */
  gateways: number;
  idleGateways: number;
  /** Gateways whose traffic is unknown: no datapoints, CloudWatch failed or was cut short. */
  gatewaysWithoutMetrics: number;
  /** Of those, gateways CloudWatch answered no datapoint for (new, or metrics missing). */
  gatewaysWithoutDatapoints: number;
  /** Gateways in regions the price table lacks ("estimate unavailable"; not in the USD sum). */
  gatewaysWithoutPrice: number;
  byConnectivityType: Record<string, number>;
  /** Gateways not available (pending, failed, deleting, deleted), by state: listed, not audited. */
  notAvailableByState: Record<string, number>;
  processedBytes: number;
  estimatedMonthlyUsd: number;
  /** Gateways EC2 listed twice (counted once). */
  duplicatesSkipped: number;
  /** States and status codes this tool does not know, by `field:value`. */
  unrecognizedValues: UnrecognizedValues;
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
  gatewaysWithoutDatapoints: 0,
  gatewaysWithoutPrice: 0,
  byConnectivityType: {},
  notAvailableByState: {},
  processedBytes: 0,
  estimatedMonthlyUsd: 0,
  duplicatesSkipped: 0,
  unrecognizedValues: {},
});

function metricWindow(days: number, now: number): MetricWindow {
  const end = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { start: new Date(end - days * 24 * HOUR_MS), end: new Date(end), days };
}

/** Processed bytes per gateway id, or why they are unknown. */
interface TrafficRead {
  readonly bytes: ReadonlyMap<string, number>;
  /** Gateways with at least one datapoint: the others have no measured traffic. */
  readonly measured: ReadonlySet<string>;
  /** Gateways a query of which answered Forbidden or InternalError. */
  readonly failed: ReadonlySet<string>;
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
  context: { readonly tool: string; readonly deadline: Deadline; readonly unrecognized: UnrecognizedValues },
): Promise<TrafficRead> {
  const bytes = new Map<string, number>(gatewayIds.map((id) => [id, 0]));
  const measured = new Set<string>();
  const failed = new Set<string>();
  const summed = await readPart(
    'CloudWatch GetMetricData',
    { tool: context.tool, service: 'cloudwatch' },
    async (): Promise<Omit<TrafficRead, 'bytes' | 'measured' | 'failed'>> => {
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
              const status = METRIC_STATUS.parse(result.StatusCode, context.unrecognized);
              if (status === 'Forbidden' || status === 'InternalError') failed.add(owner);
              const values = result.Values ?? [];
              if (values.length > 0) measured.add(owner);
              const sum = values.reduce((total, v) => total + v, 0);
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
    ? { bytes, measured, failed, ...summed.value }
    : { bytes, measured, failed, complete: false, partialError: summed.partialError };
}

/** A gateway's processed bytes and how they are known. */
function trafficOf(
  traffic: TrafficRead,
  gatewayId: string,
): Pick<NatGatewayUsage, 'processedBytes' | 'traffic'> {
  if (!traffic.complete || traffic.failed.has(gatewayId))
    return { processedBytes: null, traffic: 'unavailable' };
  if (!traffic.measured.has(gatewayId)) return { processedBytes: null, traffic: 'no_datapoints' };
  return { processedBytes: traffic.bytes.get(gatewayId) ?? 0, traffic: 'measured' };
}

function usageOf(
  gateway: NatGateway,
  region: string,
  window: MetricWindow,
  measured: Pick<NatGatewayUsage, 'processedBytes' | 'traffic'>,
  idleBytesThreshold: number,
  connectivityType: string,
): NatGatewayUsage {
  const { processedBytes } = measured;
  const windowHours = window.days * 24;
  const created = gateway.CreateTime?.getTime();
  const observedHours =
    created === undefined
      ? windowHours
      : Math.max(0, Math.min(windowHours, (window.end.getTime() - created) / HOUR_MS));
  const prices = natGatewayPrices(region);
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
    connectivityType,
    createTime: gateway.CreateTime?.toISOString() ?? null,
    ...measured,
    observedDays: Math.round((observedHours / 24) * 100) / 100,
    estimatedMonthlyUsd: prices
      ? roundCents(HOURS_PER_MONTH * prices.hour + processedGbPerMonth * prices.gb)
      : null,
    idle: judged ? processedBytes <= idleBytesThreshold : null,
  };
}

function idleFinding(usage: NatGatewayUsage, threshold: number): Finding {
  const mib = ((usage.processedBytes ?? 0) / 1024 ** 2).toFixed(1);
  const cost = usage.estimatedMonthlyUsd;
  return newFinding({
    check: 'nat_gateway_idle',
    severity: 'medium',
    region: usage.region,
    resource: usage.natGatewayId,
    title:
      `NAT gateway ${usage.natGatewayId} processed ${mib} MiB in ${usage.observedDays} days ` +
      `(idle at or below ${threshold} bytes) and costs ` +
      `${cost === null ? `an unknown amount (no price for ${usage.region})` : `about ${formatUsd(cost)}/month`}`,
    ...(cost === null ? {} : { monthlyCost: { usd: cost, priceSource: priceSource('nat', usage.region) } }),
    details: { ...usage, ...(cost === null ? { estimate: 'unavailable' } : {}) },
  });
}

/** Most expensive first, then by id: a stable order. */
function byCost(a: NatGatewayUsage, b: NatGatewayUsage): number {
  return (
    (b.estimatedMonthlyUsd ?? -1) - (a.estimatedMonthlyUsd ?? -1) ||
    compareText(a.natGatewayId, b.natGatewayId)
  );
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

  const scanRegion = async (access: AwsAccess, region: string) => {
    const ec2 = new EC2Client(awsClientConfig(access, region));
    const stats = emptyStats();
    const once = new FirstSeen();
    const gateways: { gateway: NatGateway; connectivityType: string }[] = [];
    const listed = await readPages(
      // Every state is listed (no server-side filter), so gateways on their way out are counted apart.
      paginateDescribeNatGateways({ client: ec2, pageSize: GATEWAY_PAGE_SIZE }, {}),
      (page) => {
        for (const gateway of page.NatGateways ?? []) {
          if (!once.first(gateway.NatGatewayId)) continue;
          const state =
            NAT_STATE.parse(gateway.State, stats.unrecognizedValues) ?? gateway.State ?? 'unknown';
          if (state !== 'available') {
            increment(stats.notAvailableByState, state);
            continue;
          }
          const connectivityType =
            CONNECTIVITY.parse(gateway.ConnectivityType, stats.unrecognizedValues) ??
            gateway.ConnectivityType ??
            'public';
          gateways.push({ gateway, connectivityType });
        }
      },
      { maxPages: MAX_GATEWAY_PAGES, deadline: ctx.deadline },
    );
    const ids = gateways.map((g) => g.gateway.NatGatewayId).filter((id): id is string => id !== undefined);
    const traffic: TrafficRead =
      ids.length > 0
        ? await readTraffic(new CloudWatchClient(awsClientConfig(access, region)), ids, window, {
            tool: ctx.tool,
            deadline: ctx.deadline,
            unrecognized: stats.unrecognizedValues,
          })
        : { bytes: new Map(), measured: new Set(), failed: new Set(), complete: true };

    const findings: Finding[] = [];
    let usages: NatGatewayUsage[] = [];
    for (const { gateway, connectivityType } of gateways) {
      const measured = trafficOf(traffic, gateway.NatGatewayId ?? '');
      const usage = usageOf(gateway, region, window, measured, args.idleBytesThreshold, connectivityType);
      stats.gateways++;
      increment(stats.byConnectivityType, usage.connectivityType);
      stats.processedBytes += usage.processedBytes ?? 0;
      if (usage.estimatedMonthlyUsd === null) stats.gatewaysWithoutPrice++;
      stats.estimatedMonthlyUsd += usage.estimatedMonthlyUsd ?? 0;
      if (usage.processedBytes === null) stats.gatewaysWithoutMetrics++;
      if (usage.traffic === 'no_datapoints') stats.gatewaysWithoutDatapoints++;
      if (usage.idle) {
        stats.idleGateways++;
        findings.push(idleFinding(usage, args.idleBytesThreshold));
      }
      usages.push(usage);
      // Only the topN most expensive gateways are kept in memory.
      if (usages.length > args.topN * 4) usages = usages.sort(byCost).slice(0, args.topN);
    }
    stats.duplicatesSkipped = once.duplicates;
    const stop = firstStop(listed, traffic.read);
    return {
      stats,
      findings,
      listed: usages,
      ...stop,
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
    natGateways: audit.listed.sort(byCost).slice(0, args.topN),
    priceSource: priceTableSource('nat'),
  };
  return {
    value,
    truncated: audit.truncated,
    summary:
      regionalAuditSummary(
        `${plural(totals.gateways, 'NAT gateway')} (${totals.idleGateways} idle over ` +
          `${window.days} days, ~${formatUsd(totals.estimatedMonthlyUsd)}/month in all` +
          `${totals.gatewaysWithoutMetrics > 0 ? `, traffic unknown for ${totals.gatewaysWithoutMetrics}` : ''}` +
          `${totals.gatewaysWithoutPrice > 0 ? `, price unavailable for ${totals.gatewaysWithoutPrice}` : ''})`,
        audit,
      ) + unrecognizedNote(totals.unrecognizedValues),
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(natGatewaysAuditTool);
