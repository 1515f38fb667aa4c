/**
 * `aws_rds_inventory`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { DescribeDBInstancesCommand, RDSClient } from '@aws-sdk/client-rds';
import { rdsInstance } from '../../../../bench/aws-fixtures';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';

/** The cases of `aws_rds_inventory`. */
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_rds_inventory',
    clients: [EC2Client, RDSClient],
    account: '2 DB instances in each of 2 regions, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf);
      stubOf(RDSClient)
        .on(DescribeDBInstancesCommand)
        .callsFake(
          byRegion(
            (region) => ({
              DBInstances: [
                { id: 'orders', hardened: true },
                { id: 'reporting', hardened: false },
              ].map(({ id, hardened }) => rdsInstance(`${id}-db`, region, hardened)),
            }),
            { DBInstances: [] },
          ),
        );
    },
  },
];
