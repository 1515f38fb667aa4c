/**
 * `aws_eips_audit`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import { DescribeAddressesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';

/** The cases of `aws_eips_audit`. */
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_eips_audit',
    clients: [EC2Client],
    account: '2 addresses in each of 2 regions, one unassociated, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeAddressesCommand)
        .callsFake(
          byRegion(
            (region) => ({
              Addresses: [
                {
                  PublicIp: region === 'us-east-1' ? '198.51.100.10' : '203.0.113.10',
                  AllocationId: `eipalloc-0${region.replaceAll('-', '')}1`,
                  AssociationId: `eipassoc-0${region.replaceAll('-', '')}1`,
                  InstanceId: `i-0${region.replaceAll('-', '')}1`,
                  Domain: 'vpc' as const,
                  PublicIpv4Pool: 'amazon',
                  NetworkBorderGroup: region,
                },
                {
                  PublicIp: region === 'us-east-1' ? '198.51.100.11' : '203.0.113.11',
                  AllocationId: `eipalloc-0${region.replaceAll('-', '')}2`,
                  Domain: 'vpc' as const,
                  PublicIpv4Pool: 'amazon',
                  NetworkBorderGroup: region,
                },
              ],
            }),
            { Addresses: [] },
          ),
        );
    },
  },
];
