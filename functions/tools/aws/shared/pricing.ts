/**
 * Public on-demand list prices, per region, in USD, for the monthly estimates
 * of the EBS, NAT gateway and Elastic IP tools. A month is 730 hours, as AWS's
 * pricing calculator counts it.
 *
 * PRICE TABLE — source and date
 * - Amazon EBS pricing, https://aws.amazon.com/ebs/pricing/ (on-demand, per region)
 * - Amazon VPC pricing, https://aws.amazon.com/vpc/pricing/ ("NAT Gateway",
 *   "Public IPv4 Address"; the IPv4 charge since 2024-02-01: AWS News Blog,
 *   "New – AWS Public IPv4 Address Charge + Public IP Insights", 2023-07-28)
 * - Table date: 2026-11 ({@link PRICE_TABLE_DATE}). The figures were transcribed
 *   from those pages; this build cannot reach them (no network), so re-check the
 *   table against the AWS Price List API (`aws pricing get-products --service-code
 *   AmazonEC2 --filters …`) when updating it, and move the date.
 *
 * Only the 17 regions every account has enabled by default are in the table, and
 * only with the prices read for them: a region or a price that is not here gives
 * `undefined`, which the tools report as "estimate unavailable" (never another
 * region's price). Full EBS price cards (every volume type, provisioned IOPS and
 * throughput) are kept for us-east-1, us-east-2 and us-west-2, which share one;
 * the other regions carry gp2 and gp3 storage, the volumes most accounts hold.
 */

/** Hours in AWS's pricing month. */
export const HOURS_PER_MONTH = 730;

/** When the table was last read from the pricing pages (YYYY-MM). */
export const PRICE_TABLE_DATE = '2026-11';

/** EBS volume types with a storage price (DescribeVolumes `VolumeType`). */
export type EbsVolumeType = 'gp2' | 'gp3' | 'io1' | 'io2' | 'st1' | 'sc1' | 'standard';

/** One region's EBS prices, USD per month; a missing field is a price not in the table. */
interface EbsPriceCard {
  /** Storage, per GB-month. */
  readonly gbMonth: Readonly<Partial<Record<EbsVolumeType, number>>>;
  /** io1: per provisioned IOPS-month. */
  readonly io1IopsMonth?: number;
  /** io2: per provisioned IOPS-month, in tiers (up to 32,000, 32,001–64,000, above 64,000). */
  readonly io2IopsTiers?: readonly { readonly upTo: number; readonly usd: number }[];
  /** gp3: per IOPS-month above the included 3,000, and per MiB/s-month above the included 125. */
  readonly gp3IopsMonth?: number;
  readonly gp3ThroughputMibpsMonth?: number;
}

/** One region's prices. */
interface RegionPrices {
  readonly ebs?: EbsPriceCard;
  /** NAT gateway: per hour, and per GB processed. */
  readonly natGateway?: { readonly hour: number; readonly gb: number };
  /** Public IPv4 address, in use or idle, per hour. */
  readonly publicIpv4Hour?: number;
}

/** The price card us-east-1, us-east-2 and us-west-2 share (Amazon EBS pricing). */
const EBS_US_CARD: EbsPriceCard = {
  gbMonth: { gp2: 0.1, gp3: 0.08, io1: 0.125, io2: 0.125, st1: 0.045, sc1: 0.015, standard: 0.05 },
  io1IopsMonth: 0.065,
  io2IopsTiers: [
    { upTo: 32_000, usd: 0.065 },
    { upTo: 64_000, usd: 0.0455 },
    { upTo: Number.POSITIVE_INFINITY, usd: 0.032 },
  ],
  gp3IopsMonth: 0.005,
  gp3ThroughputMibpsMonth: 0.04,
};

/** gp2 and gp3 storage only (gp3 lists at 80% of gp2 in every region). */
function gpStorage(gp2: number, gp3: number): EbsPriceCard {
  return { gbMonth: { gp2, gp3 } };
}

/** Public IPv4 is one price in every commercial region (Amazon VPC pricing, "Public IPv4 Address"). */
const PUBLIC_IPV4_HOUR_USD = 0.005;

/** NAT gateways charge the same per hour as per GB processed in each region (Amazon VPC pricing, "NAT Gateway"). */
function nat(usd: number): RegionPrices['natGateway'] {
  return { hour: usd, gb: usd };
}

/** The table: region → prices read for it. */
export const REGION_PRICES: Readonly<Record<string, RegionPrices>> = {
  'us-east-1': { ebs: EBS_US_CARD, natGateway: nat(0.045), publicIpv4Hour: PUBLIC_IPV4_HOUR_USD },
  'us-east-2': { ebs: EBS_US_CARD, natGateway: nat(0.045), publicIpv4Hour: PUBLIC_IPV4_HOUR_USD },
  'us-west-2': { ebs: EBS_US_CARD, natGateway: nat(0.045), publicIpv4Hour: PUBLIC_IPV4_HOUR_USD },
  'us-west-1': { ebs: gpStorage(0.12, 0.096), natGateway: nat(0.048), publicIpv4Hour: PUBLIC_IPV4_HOUR_USD },
  'ca-central-1': {
    ebs: gpStorage(0.11, 0.088),
    natGateway: nat(0.05),
    publicIpv4Hour: PUBLIC_IPV4_HOUR_USD,
  },
  'eu-west-1': { ebs: gpStorage(0.11, 0.088), natGateway: nat(0.048), publicIpv4Hour: PUBLIC_IPV4_HOUR_USD },
  'eu-west-2': { ebs: gpStorage(0.116, 0.0928), natGateway: nat(0.05), publicIpv4Hour: PUBLIC_IPV4_HOUR_USD },
  'eu-west-3': { ebs: gpStorage(0.116, 0.0928), natGateway: nat(0.05), publicIpv4Hour: PUBLIC_IPV4_HOUR_USD },
  'eu-central-1': {
    ebs: gpStorage(0.119, 0.0952),
    natGateway: nat(0.052),
    publicIpv4Hour: PUBLIC_IPV4_HOUR_USD,
  },
  'eu-north-1': {
    ebs: gpStorage(0.1045, 0.0836),
    natGateway: nat(0.046),
    publicIpv4Hour: PUBLIC_IPV4_HOUR_USD,
  },
  'ap-south-1': {
    ebs: gpStorage(0.114, 0.0912),
    natGateway: nat(0.056),
    publicIpv4Hour: PUBLIC_IPV4_HOUR_USD,
  },
  'ap-northeast-1': {
    ebs: gpStorage(0.12, 0.096),
    natGateway: nat(0.062),
    publicIpv4Hour: PUBLIC_IPV4_HOUR_USD,
  },
  'ap-northeast-2': {
    ebs: gpStorage(0.114, 0.0912),
    natGateway: nat(0.059),
    publicIpv4Hour: PUBLIC_IPV4_HOUR_USD,
  },
  'ap-northeast-3': {
    ebs: gpStorage(0.12, 0.096),
    natGateway: nat(0.062),
    publicIpv4Hour: PUBLIC_IPV4_HOUR_USD,
  },
  'ap-southeast-1': {
    ebs: gpStorage(0.12, 0.096),
    natGateway: nat(0.059),
    publicIpv4Hour: PUBLIC_IPV4_HOUR_USD,
  },
  'ap-southeast-2': {
    ebs: gpStorage(0.12, 0.096),
    natGateway: nat(0.059),
    publicIpv4Hour: PUBLIC_IPV4_HOUR_USD,
  },
  'sa-east-1': { ebs: gpStorage(0.19, 0.152), natGateway: nat(0.093), publicIpv4Hour: PUBLIC_IPV4_HOUR_USD },
};

function pricesOf(region: string): RegionPrices | undefined {
  return Object.hasOwn(REGION_PRICES, region) ? REGION_PRICES[region] : undefined;
}

/** Which price a source names. */
export type PricedItem = 'ebs' | 'nat' | 'ipv4';

const PRICE_PAGES: Record<PricedItem, string> = {
  ebs: 'Amazon EBS pricing',
  nat: 'Amazon VPC pricing, NAT Gateway',
  ipv4: 'Amazon VPC pricing, Public IPv4 Address',
};

/**
 * Where an estimate's price came from: page, region and table date.
 *
 * @example priceSource('ebs', 'eu-west-1') // 'Amazon EBS pricing, eu-west-1 (price table 2026-11)'
 */
export function priceSource(item: PricedItem, region: string): string {
  return `${PRICE_PAGES[item]}, ${region} (price table ${PRICE_TABLE_DATE})`;
}

/** The table's sources, for results that state them once. */
export function priceTableSource(item: PricedItem): string {
  return `${PRICE_PAGES[item]}, per region (price table ${PRICE_TABLE_DATE}); estimate unavailable outside the table`;
}

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

function tieredUsd(units: number, tiers: readonly { readonly upTo: number; readonly usd: number }[]): number {
  let cost = 0;
  let floor = 0;
  for (const tier of tiers) {
    cost += Math.max(0, Math.min(units, tier.upTo) - floor) * tier.usd;
    floor = tier.upTo;
  }
  return cost;
}

/** `base` plus the cost of an extra that exists, or undefined when an extra is needed and has no price. */
function withExtra(base: number, units: number, price: number | undefined): number | undefined {
  if (units <= 0) return base;
  return price === undefined ? undefined : base + units * price;
}

/**
 * A volume's monthly price in USD in `region`, not rounded: storage plus
 * provisioned IOPS and throughput. Undefined when the table has no price for a
 * part the volume needs (a region or volume type not in the table, gp3 extras
 * or io1/io2 IOPS outside the full price cards), so callers never report a guess
 * as a cost.
 *
 * @example ebsVolumeMonthlyUsd({ volumeType: 'gp2', sizeGiB: 100 }, 'us-east-1') // 10
 * @example ebsVolumeMonthlyUsd({ volumeType: 'gp2', sizeGiB: 100 }, 'sa-east-1') // 19
 * @example ebsVolumeMonthlyUsd({ volumeType: 'st1', sizeGiB: 500 }, 'sa-east-1') // undefined
 */
export function ebsVolumeMonthlyUsd(volume: EbsVolumePricing, region: string): number | undefined {
  const card = pricesOf(region)?.ebs;
  const perGb = card?.gbMonth[volume.volumeType as EbsVolumeType];
  if (!card || perGb === undefined) return undefined;
  const storage = volume.sizeGiB * perGb;
  const iops = volume.iops ?? 0;
  switch (volume.volumeType) {
    case 'io1':
      return withExtra(storage, iops, card.io1IopsMonth);
    case 'io2':
      return card.io2IopsTiers ? storage + tieredUsd(iops, card.io2IopsTiers) : undefined;
    case 'gp3': {
      const withIops = withExtra(storage, iops - EBS_GP3_INCLUDED_IOPS, card.gp3IopsMonth);
      if (withIops === undefined) return undefined;
      return withExtra(
        withIops,
        (volume.throughputMiBps ?? 0) - EBS_GP3_INCLUDED_THROUGHPUT_MIBPS,
        card.gp3ThroughputMibpsMonth,
      );
    }
    default:
      return storage;
  }
}

/** A NAT gateway's hourly and per-GB prices in `region`; undefined outside the table. */
export function natGatewayPrices(region: string): { readonly hour: number; readonly gb: number } | undefined {
  return pricesOf(region)?.natGateway;
}

/** A public IPv4 address's hourly price in `region`; undefined outside the table. */
export function publicIpv4HourUsd(region: string): number | undefined {
  return pricesOf(region)?.publicIpv4Hour;
}

/**
 * Bytes in the "GB" of per-GB data prices (NAT data processing): AWS's billing
 * examples count a GB as 2^30 bytes (Amazon S3 pricing FAQ, "GB-Month"); the same
 * convention is assumed here, which errs on the low side by at most 7%.
 */
export const BYTES_PER_BILLED_GB = 1024 ** 3;
