import * as z from 'zod/mini';
import { regionsArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** `aws_rds_inventory`: RDS DB instances with their resilience and exposure settings, and findings. */
export const rdsInventorySpec = defineAwsReadOnlySpec({
  name: 'aws_rds_inventory',
  description:
    'Inventory of RDS DB instances in the given regions (or "all" enabled regions): counts by engine, instance ' +
    'class and status; for the top N instances (worst findings first) the engine and version, class, Multi-AZ, ' +
    'storage encryption, public accessibility, backup retention in days and deletion protection; and findings ' +
    'with stable ids: publicly accessible (high), storage not encrypted (medium), automated backups off ' +
    '(medium), no deletion protection (low), single-AZ (low). Aurora and Multi-AZ DB cluster members are judged ' +
    'on exposure and encryption only (their backups, deletion protection and AZs belong to the cluster); read ' +
    'replicas are not judged on backups; instances being deleted are counted apart. Findings carry the Security ' +
    'Hub / CIS controls they evidence. Read-only; one DescribeDBInstances page per 100 instances per region; ' +
    'no cost. Regions that fail are reported in `regions[].error` without failing the others; `truncated` is ' +
    'set when the page cap or deadline stopped it.',
  inputSchema: () =>
    z.strictObject({
      regions: regionsArg(),
      topN: topNArg(20),
    }),
  service: 'rds',
  iam: [{ actions: ['rds:DescribeDBInstances', 'ec2:DescribeRegions'] }],
  runtime: { memorySizeMb: 512, timeoutSeconds: 120 },
});
