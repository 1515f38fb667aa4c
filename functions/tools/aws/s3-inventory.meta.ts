import * as z from 'zod/mini';
import { topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** `aws_s3_inventory`: every S3 bucket with its region and security settings, plus findings. */
export const s3InventorySpec = defineAwsReadOnlySpec({
  name: 'aws_s3_inventory',
  description:
    'Inventory of every S3 general purpose bucket of the account: region, default encryption (enabled/none/unknown), ' +
    'Block Public Access at bucket and account level, versioning, and whether the bucket policy makes it public. ' +
    'Findings with stable ids: public bucket policy (critical), Block Public Access off (account: high, bucket: ' +
    'medium), no default encryption (medium), versioning off (low); counts of all, the topN buckets (worst first) ' +
    'and findings in full. Read-only, no cost; about 4 S3 requests per bucket, 8 buckets at a time. A setting that ' +
    'cannot be read (AccessDenied on one bucket) is "unknown" with its error on that bucket, never failing the ' +
    'others; `truncated` is set when the deadline left buckets unread.',
  inputSchema: () =>
    z.strictObject({
      topN: topNArg(20),
    }),
  service: 's3',
  // ListBuckets is authorized by s3:ListAllMyBuckets, GetBucketEncryption by s3:GetEncryptionConfiguration,
  // S3 and S3 Control GetPublicAccessBlock by s3:GetBucketPublicAccessBlock / s3:GetAccountPublicAccessBlock
  // (Service Authorization Reference, "Actions defined by Amazon S3"). STS GetCallerIdentity needs no permission.
  iam: [
    {
      actions: [
        's3:ListAllMyBuckets',
        's3:GetBucketLocation',
        's3:GetEncryptionConfiguration',
        's3:GetBucketPublicAccessBlock',
        's3:GetBucketVersioning',
        's3:GetBucketPolicyStatus',
        's3:GetAccountPublicAccessBlock',
      ],
    },
  ],
  runtime: { memorySizeMb: 512, timeoutSeconds: 300 },
});
