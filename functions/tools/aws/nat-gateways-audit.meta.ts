import * as z from 'zod/mini';
import { regionsArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** Default `idleBytesThreshold`: 1 GiB over the window, whose processing ($0.045) is noise next to the hourly charge. */
export const DEFAULT_IDLE_BYTES_THRESHOLD = 1024 ** 3;

/** `aws_nat_gateways_audit`: NAT gateways with little or no traffic, and what each costs a month. */
export const natGatewaysAuditSpec = defineAwsReadOnlySpec({
  name: 'aws_nat_gateways_audit',
  description:
    'Audit of available NAT gateways in the given regions (or "all" enabled regions; gateways in other states ' +
    'counted apart by state): bytes processed over the last `days` days (CloudWatch AWS/NATGateway ' +
    'BytesInFromSource + BytesInFromDestination, summed), the estimated monthly cost of each (hourly charge plus ' +
    "data processing at that rate, the region's list prices in USD from a dated price table, null where the " +
    'table has none), and a finding with a stable id for each gateway that processed at most `idleBytesThreshold` ' +
    'bytes (gateways younger than a day, or with no CloudWatch datapoints, are unknown, never idle). Returns ' +
    'counts, the top N gateways by cost and the top N ' +
    'findings. Read-only; per region one DescribeNatGateways page per 1,000 gateways and one CloudWatch ' +
    'GetMetricData request per 250 gateways (GetMetricData is billed per metric requested: 2 per gateway). ' +
    'Regions that fail are reported in `regions[].error` without failing the others; a CloudWatch failure is ' +
    'reported in `regions[].partialErrors`; `truncated` is set when the page cap or deadline stopped it.',
  inputSchema: () =>
    z.strictObject({
      regions: regionsArg(),
      topN: topNArg(20),
      days: z
        ._default(z.int().check(z.minimum(1), z.maximum(90)), 14)
        .check(z.describe('Days of CloudWatch metrics to look back over (1-90, default 14).')),
      idleBytesThreshold: z
        ._default(z.int().check(z.minimum(0)), DEFAULT_IDLE_BYTES_THRESHOLD)
        .check(
          z.describe(
            'A gateway that processed at most this many bytes over the window is idle (default 1073741824 = 1 GiB).',
          ),
        ),
    }),
  service: 'ec2',
  iam: [{ actions: ['ec2:DescribeNatGateways', 'cloudwatch:GetMetricData', 'ec2:DescribeRegions'] }],
  runtime: { memorySizeMb: 512, timeoutSeconds: 120 },
});
