import * as z from 'zod/mini';
import { regionsArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** `aws_ec2_inventory`: EC2 instances over regions, summarized. */
export const ec2InventorySpec = defineAwsReadOnlySpec({
  name: 'aws_ec2_inventory',
  description:
    'Inventory of EC2 instances in the given regions (or "all" enabled regions): counts by state and instance type, ' +
    'and the first topN instances (running first, oldest first) with id, name tag, type, state, launch time and IPs. ' +
    'Terminated and shutting-down instances are counted apart (`endedInstances`), never in the totals or the list. ' +
    'Read-only; one DescribeInstances page per 1,000 instances per region; no cost. A region adds to the totals ' +
    'only when its read completed; regions that fail are reported in `regions[].error` without failing the others; ' +
    '`truncated` is set when the page cap or deadline stopped it.',
  inputSchema: () =>
    z.strictObject({
      regions: regionsArg(),
      topN: topNArg(20),
    }),
  service: 'ec2',
  iam: [{ actions: ['ec2:DescribeInstances', 'ec2:DescribeRegions'] }],
  runtime: { memorySizeMb: 512, timeoutSeconds: 120 },
});
