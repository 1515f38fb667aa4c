import * as z from 'zod/mini';
import { regionsArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** `aws_eips_audit`: Elastic IP addresses not associated with anything, and what they cost. */
export const eipsAuditSpec = defineAwsReadOnlySpec({
  name: 'aws_eips_audit',
  description:
    'Audit of Elastic IP addresses in the given regions (or "all" enabled regions): counts of associated and ' +
    'unassociated addresses, the monthly public IPv4 charge of all of them and of the unassociated ones ' +
    '(the region\'s list price in USD from a dated price table, "estimate unavailable" outside it; addresses from ' +
    'your own BYOIP pools are not charged), and a finding with a ' +
    'stable id for each unassociated address. Read-only; one DescribeAddresses call per region (not paginated); ' +
    'no cost. Regions that fail are reported in `regions[].error` without failing the others; `truncated` is ' +
    'set when the deadline left regions unread.',
  inputSchema: () =>
    z.strictObject({
      regions: regionsArg(),
      topN: topNArg(20),
    }),
  service: 'ec2',
  iam: [{ actions: ['ec2:DescribeAddresses', 'ec2:DescribeRegions'] }],
  runtime: { memorySizeMb: 256, timeoutSeconds: 60 },
});
