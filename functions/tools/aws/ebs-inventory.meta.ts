import * as z from 'zod/mini';
import { regionsArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** `aws_ebs_inventory`: EBS volumes and public snapshots over regions, with cost findings. */
export const ebsInventorySpec = defineAwsReadOnlySpec({
  name: 'aws_ebs_inventory',
  description:
    'Inventory of EBS volumes in the given regions (or "all" enabled regions): counts and GiB by volume type and ' +
    'state (deleting and deleted volumes counted apart, never in totals), estimated monthly storage cost, and ' +
    'findings with stable ids and the Security Hub controls they evidence: unattached volumes (state available) ' +
    'with their monthly cost, gp2 volumes that gp3 would make cheaper with the monthly saving, unencrypted ' +
    "volumes, and snapshots owned by the account that anyone can restore (public). Costs use each region's list " +
    'prices (USD) from a dated price table; "estimate unavailable" where the table has no price (never another ' +
    "region's). Read-only; per region one DescribeVolumes page per 500 volumes and one DescribeSnapshots page " +
    'per 1,000 public snapshots; no cost. Regions that fail are reported in `regions[].error` without failing ' +
    'the others; `truncated` is set when the page cap or deadline stopped it.',
  inputSchema: () =>
    z.strictObject({
      regions: regionsArg(),
      topN: topNArg(20),
    }),
  service: 'ec2',
  iam: [{ actions: ['ec2:DescribeVolumes', 'ec2:DescribeSnapshots', 'ec2:DescribeRegions'] }],
  runtime: { memorySizeMb: 512, timeoutSeconds: 120 },
});
