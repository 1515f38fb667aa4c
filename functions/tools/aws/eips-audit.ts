import { type Address, DescribeAddressesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { defineTool } from '../../runtime/spec';
import { plural, roundCents } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { eipsAuditSpec } from './eips-audit.meta';
import { auditResult } from './shared/audit-parts';
import type { Finding } from './shared/findings';
import { HOURS_PER_MONTH, priceSource, priceTableSource, publicIpv4HourUsd } from './shared/pricing';
import { type AuditValue, auditValue, newFinding, runRegionalAudit } from './shared/regional-audit';

/**
 * An address's monthly public IPv4 charge in `region`, associated or not (Amazon
 * VPC pricing, "Public IPv4 Address"); undefined outside the price table.
 */
function addressMonthlyUsd(region: string): number | undefined {
  const hourly = publicIpv4HourUsd(region);
  return hourly === undefined ? undefined : roundCents(HOURS_PER_MONTH * hourly);
}

/** The pool of Amazon-provided addresses; BYOIP pools (`ipv4pool-ec2-…`) carry no public IPv4 charge. */
const AMAZON_POOL = 'amazon';

/** Counts per region, added up over regions. */
export type ElasticIpStats = {
  addresses: number;
  associated: number;
  unassociated: number;
  /** Addresses from the account's own (BYOIP) pools: not charged by AWS. */
  byoipAddresses: number;
  /** Public IPv4 charge of every Amazon-provided address, USD per month. */
  monthlyUsd: number;
  /** The part of it paid for unassociated addresses. */
  unassociatedMonthlyUsd: number;
  /** Charged addresses in regions the price table lacks ("estimate unavailable"; not in the USD sums). */
  addressesWithoutPrice: number;
  /** Addresses EC2 listed twice (counted once). */
  duplicatesSkipped: number;
};

/** What `aws_eips_audit` returns. */
export type EipsAuditValue = AuditValue<ElasticIpStats> & { readonly priceSource: string };

const emptyStats = (): ElasticIpStats => ({
  addresses: 0,
  associated: 0,
  unassociated: 0,
  byoipAddresses: 0,
  monthlyUsd: 0,
  unassociatedMonthlyUsd: 0,
  addressesWithoutPrice: 0,
  duplicatesSkipped: 0,
});

/** Whether AWS charges the address's public IPv4 hours (Carrier and customer-owned IPs are not public IPv4). */
function isCharged(address: Address): boolean {
  return address.PublicIp !== undefined && (address.PublicIpv4Pool ?? AMAZON_POOL) === AMAZON_POOL;
}

/** Adds one address to the region's stats; returns its finding when it is unassociated. */
function auditAddress(address: Address, region: string, stats: ElasticIpStats): Finding | undefined {
  const charged = isCharged(address);
  const monthly = charged ? addressMonthlyUsd(region) : undefined;
  stats.addresses++;
  if ((address.PublicIpv4Pool ?? AMAZON_POOL) !== AMAZON_POOL) stats.byoipAddresses++;
  if (charged && monthly === undefined) stats.addressesWithoutPrice++;
  stats.monthlyUsd += monthly ?? 0;
  // A VPC address in use has an AssociationId; EC2-Classic addresses only ever had an InstanceId.
  if (address.AssociationId || address.InstanceId) {
    stats.associated++;
    return undefined;
  }
  stats.unassociated++;
  stats.unassociatedMonthlyUsd += monthly ?? 0;
  const ip = address.PublicIp ?? address.CarrierIp ?? address.CustomerOwnedIp ?? 'unknown';
  const allocationId = address.AllocationId ?? ip;
  const name = address.Tags?.find((tag) => tag.Key === 'Name')?.Value;
  return newFinding({
    check: 'eip_unassociated',
    severity: 'low',
    region,
    resource: allocationId,
    title: `Elastic IP ${ip} (${allocationId}) is not associated with any instance or network interface`,
    ...(monthly !== undefined
      ? { monthlyCost: { usd: monthly, priceSource: priceSource('ipv4', region) } }
      : {}),
    details: {
      ...(charged && monthly === undefined ? { estimate: 'unavailable' } : {}),
      publicIp: ip,
      allocationId,
      ...(name ? { name } : {}),
      domain: address.Domain ?? null,
      networkBorderGroup: address.NetworkBorderGroup ?? null,
      publicIpv4Pool: address.PublicIpv4Pool ?? null,
    },
  });
}

/**
 * `aws_eips_audit` with its handler.
 *
 * Since 2024-02-01 every public IPv4 address is charged by the hour, associated or
 * not, so `monthlyUsd` is the account's Elastic IP bill and `unassociatedMonthlyUsd`
 * the part that buys nothing.
 *
 * API calls per run: 1 DescribeAddresses per region (the call is not paginated:
 * it returns every address); plus 1 DescribeRegions for "all".
 */
export const eipsAuditTool = defineTool(eipsAuditSpec, async (ctx, args) => {
  const audit = await runRegionalAudit(
    ctx,
    { regions: args.regions, topN: args.topN, service: 'ec2', emptyStats: emptyStats() },
    async ({ clientConfig, region, stats, findings, once }) => {
      const { Addresses } = await new EC2Client(clientConfig).send(new DescribeAddressesCommand({}));
      once.each(
        Addresses,
        (address) => address.AllocationId ?? address.PublicIp,
        (address) => {
          const finding = auditAddress(address, region, stats);
          if (finding) findings.push(finding);
        },
      );
      return {};
    },
  );
  const { totals } = audit;
  const value: EipsAuditValue = { ...auditValue(audit), priceSource: priceTableSource('ipv4') };
  return auditResult(
    audit,
    `${plural(totals.addresses, 'Elastic IP')} (${totals.unassociated} unassociated` +
      `${totals.addressesWithoutPrice > 0 ? `, price unavailable for ${totals.addressesWithoutPrice}` : ''})`,
    value,
  );
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(eipsAuditTool);
