/**
 * `aws_nat_gateways_audit`: the available NAT gateways of each region, their
 * traffic over the window (nat-gateways/traffic.ts), their monthly cost and the
 * idle ones (nat-gateways/usage.ts).
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client, type NatGateway, paginateDescribeNatGateways } from '@aws-sdk/client-ec2';
import { readPages } from '../../runtime/aws/pagination';
import { defineTool } from '../../runtime/spec';
import { formatUsd, increment, plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { metricWindow, readTraffic, type TrafficRead } from './nat-gateways/traffic';
import { byCost, idleFinding, type NatGatewayUsage, trafficOf, usageOf } from './nat-gateways/usage';
import { natGatewaysAuditSpec } from './nat-gateways-audit.meta';
import { auditResult } from './shared/audit-parts';
import { priceTableSource } from './shared/pricing';
import {
  type AuditValue,
  auditValue,
  firstStop,
  type RegionScope,
  runRegionalAudit,
} from './shared/regional-audit';
import { serviceEnum, type UnrecognizedValues } from './shared/service-enums';

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

  const scanRegion = async ({
    clientConfig,
    region,
    stats,
    findings,
    once,
  }: RegionScope<NatGatewayStats>) => {
    const gateways: { gateway: NatGateway; connectivityType: string }[] = [];
    const listed = await readPages(
      // Every state is listed (no server-side filter), so gateways on their way out are counted apart.
      paginateDescribeNatGateways({ client: new EC2Client(clientConfig), pageSize: GATEWAY_PAGE_SIZE }, {}),
      (page) =>
        once.each(
          page.NatGateways,
          (gateway) => gateway.NatGatewayId,
          (gateway) => {
            const state =
              NAT_STATE.parse(gateway.State, stats.unrecognizedValues) ?? gateway.State ?? 'unknown';
            if (state !== 'available') {
              increment(stats.notAvailableByState, state);
              return;
            }
            const connectivityType =
              CONNECTIVITY.parse(gateway.ConnectivityType, stats.unrecognizedValues) ??
              gateway.ConnectivityType ??
              'public';
            gateways.push({ gateway, connectivityType });
          },
        ),
      { maxPages: MAX_GATEWAY_PAGES, deadline: ctx.deadline },
    );
    const ids = gateways.map((g) => g.gateway.NatGatewayId).filter((id): id is string => id !== undefined);
    const traffic: TrafficRead =
      ids.length > 0
        ? await readTraffic(new CloudWatchClient(clientConfig), ids, window, {
            tool: ctx.tool,
            deadline: ctx.deadline,
            unrecognized: stats.unrecognizedValues,
          })
        : { bytes: new Map(), measured: new Set(), failed: new Set(), complete: true };

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
    return {
      listed: usages,
      ...firstStop(listed, traffic.read),
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
  return auditResult(
    audit,
    `${plural(totals.gateways, 'NAT gateway')} (${totals.idleGateways} idle over ` +
      `${window.days} days, ~${formatUsd(totals.estimatedMonthlyUsd)}/month in all` +
      `${totals.gatewaysWithoutMetrics > 0 ? `, traffic unknown for ${totals.gatewaysWithoutMetrics}` : ''}` +
      `${totals.gatewaysWithoutPrice > 0 ? `, price unavailable for ${totals.gatewaysWithoutPrice}` : ''})`,
    value,
  );
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(natGatewaysAuditTool);
