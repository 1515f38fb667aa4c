/**
 * One NAT gateway as the audit lists it: its traffic over the window, its
 * monthly cost at list prices, whether it is idle, and the idle finding.
 */
import type { NatGateway } from '@aws-sdk/client-ec2';
import { compareText, formatUsd, roundCents } from '../../../runtime/text';
import type { Finding } from '../shared/findings';
import { BYTES_PER_BILLED_GB, HOURS_PER_MONTH, natGatewayPrices, priceSource } from '../shared/pricing';
import { newFinding } from '../shared/regional-audit';
import { HOUR_MS, type MetricWindow, type TrafficRead } from './traffic';

/** Gateways younger than this are not judged idle: too little time to have seen traffic. */
const MIN_OBSERVED_HOURS = 24;

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
   * was cut short, answered Forbidden/InternalError for its queries or left one unanswered.
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

/** The usage of `gateway` in `region` over `window`, from its `measured` traffic. */
export function usageOf(
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

/** The `nat_gateway_idle` finding of an idle gateway (at or below `threshold` bytes processed). */
export function idleFinding(usage: NatGatewayUsage, threshold: number): Finding {
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
export function byCost(a: NatGatewayUsage, b: NatGatewayUsage): number {
  return (
    (b.estimatedMonthlyUsd ?? -1) - (a.estimatedMonthlyUsd ?? -1) ||
    compareText(a.natGatewayId, b.natGatewayId)
  );
}

/** A gateway's processed bytes and how they are known. */
export function trafficOf(
  traffic: TrafficRead,
  gatewayId: string,
): Pick<NatGatewayUsage, 'processedBytes' | 'traffic'> {
  if (!traffic.complete || traffic.failed.has(gatewayId))
    return { processedBytes: null, traffic: 'unavailable' };
  if (!traffic.measured.has(gatewayId)) return { processedBytes: null, traffic: 'no_datapoints' };
  return { processedBytes: traffic.bytes.get(gatewayId) ?? 0, traffic: 'measured' };
}
