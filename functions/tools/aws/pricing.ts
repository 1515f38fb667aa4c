/**
 * Public on-demand prices used for monthly-cost estimates, in USD, region
 * us-east-1 (other regions differ by a few percent; estimates say so).
 * Each constant names the AWS pricing page it was read from and when.
 * A month is 730 hours, as AWS's pricing calculator counts it.
 */

/** Hours in AWS's pricing month. */
export const HOURS_PER_MONTH = 730;

/** Rounds USD to cents. */
export function usd(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/**
 * EBS volume storage, USD per GB-month (Amazon EBS pricing, us-east-1, read 2026-11).
 * Provisioned IOPS/throughput are extra and not counted here.
 */
export const EBS_GB_MONTH_USD: Readonly<Record<string, number>> = {
  gp2: 0.1,
  gp3: 0.08,
  io1: 0.125,
  io2: 0.125,
  st1: 0.045,
  sc1: 0.015,
  standard: 0.05,
};
export const EBS_PRICE_SOURCE = 'Amazon EBS pricing, us-east-1 (2026-11)';

/** EBS snapshot storage (standard tier), USD per GB-month (Amazon EBS pricing, us-east-1, 2026-11). */
export const EBS_SNAPSHOT_GB_MONTH_USD = 0.05;

/** NAT gateway, USD per hour and per GB processed (Amazon VPC pricing, "NAT Gateway", us-east-1, 2026-11). */
export const NAT_GATEWAY_HOUR_USD = 0.045;
export const NAT_GATEWAY_GB_USD = 0.045;
export const NAT_PRICE_SOURCE = 'Amazon VPC pricing, NAT Gateway, us-east-1 (2026-11)';

/**
 * Public IPv4 address, USD per hour, in use or idle, Elastic IPs included
 * (Amazon VPC pricing, "Public IPv4 Address", since 2024-02-01; read 2026-11).
 */
export const PUBLIC_IPV4_HOUR_USD = 0.005;
export const PUBLIC_IPV4_PRICE_SOURCE = 'Amazon VPC pricing, Public IPv4 Address (2026-11)';
