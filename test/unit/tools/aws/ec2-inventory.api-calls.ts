/**
 * `aws_ec2_inventory`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { BENCH_ACCOUNT } from '../../../../bench/aws-fixtures';
import { type ApiCallCase, arrangeRegions } from '../../../helpers/api-call-case';
import { describeInstancesResponder } from '../../../helpers/ec2-pages';

/** The cases of `aws_ec2_inventory`. */
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_ec2_inventory',
    clients: [EC2Client],
    account: '10,000 instances in 17 regions, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeInstancesCommand)
        .callsFake(describeInstancesResponder(BENCH_ACCOUNT));
    },
  },
];
