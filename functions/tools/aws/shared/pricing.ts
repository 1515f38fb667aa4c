/**
 * Public on-demand prices used for monthly-cost estimates, in USD, region
 * us-east-1 (other regions differ by a few percent; estimates say so).
 * Each constant names the AWS pricing page it was read from and when.
 * A month is 730 hours, as AWS's pricing calculator counts it.
 */

/** Hours in AWS's pricing month. */
export const HOURS_PER_MONTH = 730;

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

/**
 * EBS provisioned performance, USD per month (Amazon EBS pricing, us-east-1, 2026-11):
 * io1 per provisioned IOPS; io2 per provisioned IOPS in tiers (up to 32,000, 32,001–64,000,
 * above 64,000); gp3 per IOPS above the 3,000 included and per MiB/s above the 125 included.
 */
export const EBS_IO1_IOPS_MONTH_USD = 0.065;
export const EBS_IO2_IOPS_TIERS: readonly { readonly upTo: number; readonly usd: number }[] = [
  { upTo: 32_000, usd: 0.065 },
  { upTo: 64_000, usd: 0.0455 },
  { upTo: Number.POSITIVE_INFINITY, usd: 0.032 },
];
export const EBS_GP3_IOPS_MONTH_USD = 0.005;
export const EBS_GP3_THROUGHPUT_MIBPS_MONTH_USD = 0.04;
/** IOPS and throughput (MiB/s) every gp3 volume includes (Amazon EBS volume types, "General Purpose SSD"). */
export const EBS_GP3_INCLUDED_IOPS = 3000;
export const EBS_GP3_INCLUDED_THROUGHPUT_MIBPS = 125;

/** What an EBS volume's monthly price depends on (DescribeVolumes field names, camel-cased). */
export interface EbsVolumePricing {
  /** `gp2`, `gp3`, `io1`, `io2`, `st1`, `sc1`, `standard`. */
  readonly volumeType: string;
  readonly sizeGiB: number;
  /** Provisioned IOPS (io1, io2, gp3); ignored for other types. */
  readonly iops?: number;
  /** Provisioned throughput in MiB/s (gp3 only). */
  readonly throughputMiBps?: number;
}

function io2IopsMonthlyUsd(iops: number): number {
  let cost = 0;
  let floor = 0;
  for (const tier of EBS_IO2_IOPS_TIERS) {
    cost += Math.max(0, Math.min(iops, tier.upTo) - floor) * tier.usd;
    floor = tier.upTo;
  }
  return cost;
}

/**
 * A volume's monthly price in USD, not rounded: storage plus provisioned IOPS and
 * throughput. Undefined for a volume type with no published price here (a new
 * type, or `io2` Block Express extras), so callers never report a guess as a cost.
 *
 * @example ebsVolumeMonthlyUsd({ volumeType: 'gp2', sizeGiB: 100 }) // 10
 */
export function ebsVolumeMonthlyUsd(volume: EbsVolumePricing): number | undefined {
  const perGb = EBS_GB_MONTH_USD[volume.volumeType];
  if (perGb === undefined) return undefined;
  const storage = volume.sizeGiB * perGb;
  const iops = volume.iops ?? 0;
  switch (volume.volumeType) {
    case 'io1':
      return storage + iops * EBS_IO1_IOPS_MONTH_USD;
    case 'io2':
      return storage + io2IopsMonthlyUsd(iops);
    case 'gp3':
      return (
        storage +
        Math.max(0, iops - EBS_GP3_INCLUDED_IOPS) * EBS_GP3_IOPS_MONTH_USD +
        Math.max(0, (volume.throughputMiBps ?? 0) - EBS_GP3_INCLUDED_THROUGHPUT_MIBPS) *
          EBS_GP3_THROUGHPUT_MIBPS_MONTH_USD
      );
    default:
      return storage;
  }
}

/**
 * Bytes in the "GB" of per-GB data prices (NAT data processing): AWS's billing
 * examples count a GB as 2^30 bytes (Amazon S3 pricing FAQ, "GB-Month"); the same
 * convention is assumed here, which errs on the low side by at most 7%.
 */
export const BYTES_PER_BILLED_GB = 1024 ** 3;
