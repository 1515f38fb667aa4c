/**
 * `aws_cloudtrail_coverage`'s representative run (its API-call case): the responses of every AWS
 * call it makes, in the shapes of the AWS API references. Its test uses it as a
 * fixture, the API-call bench (bench/api-calls.ts) counts its calls, the IAM
 * check (iam-covers-calls.test.ts) proves its spec declares them, and the
 * end-to-end runs of aws_pulse answer the account with it.
 */
import {
  CloudTrailClient,
  DescribeTrailsCommand,
  GetEventSelectorsCommand,
  GetTrailStatusCommand,
} from '@aws-sdk/client-cloudtrail';
import { EC2Client } from '@aws-sdk/client-ec2';
import { STSClient } from '@aws-sdk/client-sts';
import { ACCOUNT_ID, CREATED } from '../../../../bench/aws-fixtures';
import { type ApiCallCase, arrangeCaller, arrangeRegions } from '../../../helpers/api-call-case';

/** The cases of `aws_cloudtrail_coverage`. */
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_cloudtrail_coverage',
    clients: [STSClient, EC2Client, CloudTrailClient],
    account: 'one logging multi-region trail homed in us-east-1, 17 regions',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeCaller(stubOf);
      arrangeRegions(stubOf);
      const trailArn = `arn:aws:cloudtrail:us-east-1:${ACCOUNT_ID}:trail/management-events`;
      stubOf(CloudTrailClient)
        .on(DescribeTrailsCommand)
        .resolves({
          trailList: [
            {
              Name: 'management-events',
              TrailARN: trailArn,
              HomeRegion: 'us-east-1',
              S3BucketName: 'acme-cloudtrail-logs',
              IsMultiRegionTrail: true,
              IsOrganizationTrail: false,
              IncludeGlobalServiceEvents: true,
              LogFileValidationEnabled: true,
              KmsKeyId: `arn:aws:kms:us-east-1:${ACCOUNT_ID}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
              HasCustomEventSelectors: false,
              HasInsightSelectors: false,
            },
          ],
        })
        .on(GetTrailStatusCommand)
        .resolves({ IsLogging: true, LatestDeliveryTime: CREATED })
        .on(GetEventSelectorsCommand)
        .resolves({
          TrailARN: trailArn,
          EventSelectors: [{ ReadWriteType: 'All', IncludeManagementEvents: true, DataResources: [] }],
        });
    },
  },
];
