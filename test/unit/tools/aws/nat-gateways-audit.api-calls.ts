/**
 * `aws_nat_gateways_audit`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import {
  CloudWatchClient,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
} from '@aws-sdk/client-cloudwatch';
import { DescribeNatGatewaysCommand, EC2Client } from '@aws-sdk/client-ec2';
import { CREATED } from '../../../../bench/aws-fixtures';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';

/** CloudWatch GetMetricData (CloudWatch API reference): 2 GB a day for every query, 14 days. */
function metricData(input: GetMetricDataCommandInput) {
  return {
    MetricDataResults: (input.MetricDataQueries ?? []).map((query) => ({
      Id: query.Id,
      Label: query.Id,
      Timestamps: Array.from({ length: 14 }, (_, day) => new Date(Date.UTC(2024, 5, day + 1))),
      Values: Array.from({ length: 14 }, () => 2e9),
      StatusCode: 'Complete' as const,
    })),
  };
}

/** The cases of `aws_nat_gateways_audit`. */
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_nat_gateways_audit',
    clients: [EC2Client, CloudWatchClient],
    account: '2 NAT gateways in us-east-1, 1 in eu-west-1, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeNatGatewaysCommand)
        .callsFake(
          byRegion(
            (region) => ({
              NatGateways: Array.from({ length: region === 'us-east-1' ? 2 : 1 }, (_, n) => ({
                NatGatewayId: `nat-0${region.replaceAll('-', '')}${n}`,
                State: 'available' as const,
                ConnectivityType: 'public' as const,
                VpcId: 'vpc-0123456789abcdef0',
                SubnetId: 'subnet-0123456789abcdef0',
                CreateTime: CREATED,
                NatGatewayAddresses: [
                  {
                    AllocationId: `eipalloc-0nat${n}`,
                    PublicIp: `198.51.100.${20 + n}`,
                    PrivateIp: `10.0.0.${20 + n}`,
                    IsPrimary: true,
                    Status: 'succeeded' as const,
                  },
                ],
                Tags: [{ Key: 'Name', Value: `nat-${n}` }],
              })),
            }),
            { NatGateways: [] },
          ),
        );
      stubOf(CloudWatchClient).on(GetMetricDataCommand).callsFake(metricData);
    },
  },
];
