/**
 * `aws_s3_inventory`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  ListBucketsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import {
  GetAccessPointPolicyStatusCommand,
  GetPublicAccessBlockCommand as GetAccountPublicAccessBlockCommand,
  ListAccessPointsCommand,
  NoSuchPublicAccessBlockConfiguration,
  S3ControlClient,
} from '@aws-sdk/client-s3-control';
import { STSClient } from '@aws-sdk/client-sts';
import { ACCOUNT_ID, CREATED } from '../../../../bench/aws-fixtures';
import { type ApiCallCase, arrangeCaller, byRegion, type StubOf } from '../../../helpers/api-call-case';

/** The 12 buckets of the account: 8 in us-east-1, 4 in eu-west-1 (S3 API reference, "ListBuckets"). */
const BUCKETS = Array.from({ length: 12 }, (_, n) => ({
  Name: `acme-data-${n}`,
  CreationDate: CREATED,
  BucketRegion: n < 8 ? 'us-east-1' : 'eu-west-1',
}));

/** All four Block Public Access flags on (S3 API reference, "PublicAccessBlockConfiguration"). */
const ALL_BLOCKED = {
  BlockPublicAcls: true,
  IgnorePublicAcls: true,
  BlockPublicPolicy: true,
  RestrictPublicBuckets: true,
};

/**
 * The 12 buckets' S3 answers: SSE-S3, `bucketBlock` at bucket level, versioning
 * on, private policies (S3 API reference, each Get* action). Returns the stub to
 * add more answers.
 */
function arrangeBucketSettings(stubOf: StubOf, bucketBlock: typeof ALL_BLOCKED): ReturnType<StubOf> {
  return stubOf(S3Client)
    .on(ListBucketsCommand)
    .resolves({ Buckets: BUCKETS, Owner: { ID: 'a1b2c3d4e5f6' } })
    .on(GetBucketEncryptionCommand)
    .resolves({
      ServerSideEncryptionConfiguration: {
        Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' }, BucketKeyEnabled: false }],
      },
    })
    .on(GetPublicAccessBlockCommand)
    .resolves({ PublicAccessBlockConfiguration: bucketBlock })
    .on(GetBucketVersioningCommand)
    .resolves({ Status: 'Enabled' })
    .on(GetBucketPolicyStatusCommand)
    .resolves({ PolicyStatus: { IsPublic: false } });
}

/** The cases of `aws_s3_inventory`. */
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_s3_inventory',
    clients: [STSClient, S3Client, S3ControlClient],
    account:
      '12 buckets in 2 regions, account Block Public Access on (ACLs ignored: not read), no access points',
    args: {},
    arrange: (stubOf) => {
      arrangeCaller(stubOf);
      arrangeBucketSettings(stubOf, ALL_BLOCKED);
      stubOf(S3ControlClient)
        .on(GetAccountPublicAccessBlockCommand)
        .resolves({ PublicAccessBlockConfiguration: ALL_BLOCKED })
        .on(ListAccessPointsCommand)
        .resolves({ AccessPointList: [] });
    },
  },
  {
    tool: 'aws_s3_inventory',
    clients: [STSClient, S3Client, S3ControlClient],
    account:
      '12 buckets in 2 regions, no account Block Public Access, 10 with ACLs disabled, 2 legacy buckets with ACLs, one internet access point',
    args: {},
    arrange: (stubOf) => {
      arrangeCaller(stubOf);
      // Bucket-level Block Public Access restricts policies but leaves ACLs alone: ACLs could apply.
      arrangeBucketSettings(stubOf, { ...ALL_BLOCKED, IgnorePublicAcls: false })
        .on(GetBucketOwnershipControlsCommand)
        .callsFake(async (input: { Bucket?: string }) => {
          if (input.Bucket === 'acme-data-0' || input.Bucket === 'acme-data-8') {
            throw new S3ServiceException({
              name: 'OwnershipControlsNotFoundError',
              message: 'The bucket ownership controls were not found',
              $fault: 'client',
              $metadata: { httpStatusCode: 404 },
            });
          }
          return { OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] } };
        })
        .on(GetBucketAclCommand)
        .resolves({
          Owner: { ID: 'a1b2c3d4e5f6' },
          Grants: [{ Grantee: { Type: 'CanonicalUser', ID: 'a1b2c3d4e5f6' }, Permission: 'FULL_CONTROL' }],
        });
      stubOf(S3ControlClient)
        .on(GetAccountPublicAccessBlockCommand)
        .rejects(
          new NoSuchPublicAccessBlockConfiguration({
            message: 'The public access block configuration was not found',
            $metadata: { httpStatusCode: 404 },
          }),
        )
        .on(ListAccessPointsCommand)
        .callsFake(
          byRegion(
            (region) => ({
              AccessPointList:
                region === 'us-east-1'
                  ? [
                      {
                        Name: 'partners',
                        NetworkOrigin: 'Internet',
                        Bucket: 'acme-data-1',
                        BucketAccountId: ACCOUNT_ID,
                      },
                    ]
                  : [],
            }),
            { AccessPointList: [] },
          ),
        )
        .on(GetAccessPointPolicyStatusCommand)
        .resolves({ PolicyStatus: { IsPublic: false } });
    },
  },
];
