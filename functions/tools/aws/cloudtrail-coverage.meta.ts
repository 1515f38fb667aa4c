import * as z from 'zod/mini';
import { regionsList, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** `aws_cloudtrail_coverage`: whether CloudTrail records every enabled region's management events. */
export const cloudtrailCoverageSpec = defineAwsReadOnlySpec({
  name: 'aws_cloudtrail_coverage',
  description:
    'CloudTrail coverage: for every enabled region (default "all"), whether a logging multi-region trail records ' +
    'its management events, reads and writes, and delivers them (covered / organization / failing / partial / ' +
    'uncovered / unknown), with the uncovered regions listed. A trail whose S3, CloudWatch Logs or digest delivery ' +
    'fails does not cover (failing, with the error and the last good delivery); an organization trail owned by ' +
    'another account, whose status a member account cannot read, is reported as organization-managed and its ' +
    'regions as covered by the organization, not as errors. Each trail with logging status, delivery errors, ' +
    'management events read/write, log file validation, KMS encryption and whether it is an organization trail. ' +
    'Findings with stable ids and the Security Hub / CIS controls they evidence: region not covered (high), ' +
    'recorded but not delivered (high), only read or only write management events (medium), trail not logging ' +
    '(high), delivery failing (S3 high, CloudWatch Logs and digest medium), log file validation off (medium), logs ' +
    'not KMS-encrypted (medium). Read-only, no cost; one DescribeTrails per region plus two requests per trail. A ' +
    'region or trail that cannot be read is reported with its error without failing the others.',
  inputSchema: () =>
    z.strictObject({
      regions: z
        ._default(regionsList(), 'all')
        .check(z.describe('Region names, or "all" (default) for every region enabled in the account.')),
      topN: topNArg(20),
    }),
  service: 'cloudtrail',
  // STS GetCallerIdentity (the account id in finding ids) needs no permission.
  iam: [
    {
      actions: [
        'cloudtrail:DescribeTrails',
        'cloudtrail:GetTrailStatus',
        'cloudtrail:GetEventSelectors',
        'ec2:DescribeRegions',
      ],
    },
  ],
  runtime: { memorySizeMb: 256, timeoutSeconds: 120 },
});
