import * as z from 'zod/mini';
import { topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** `aws_s3_inventory`: every S3 bucket with its region and security settings, plus findings. */
export const s3InventorySpec = defineAwsReadOnlySpec({
  name: 'aws_s3_inventory',
  description:
    'Inventory of every S3 general purpose bucket of the account: region, default encryption (enabled/none/unknown), ' +
    'Block Public Access at bucket and account level, versioning, Object Ownership, and one exposure verdict per ' +
    'bucket (public / blocked / not_public / unknown) combining the bucket ACL (AllUsers, AuthenticatedUsers grants), ' +
    'the bucket policy status, internet-facing access points with a public policy, disabled ACLs and both Block ' +
    'Public Access levels. Findings with stable ids and the Security Hub / CIS controls they evidence: public ' +
    'bucket ACL, policy or access point (critical; high when only Block Public Access holds it back), Block Public ' +
    'Access off (account: high, bucket: medium), no default encryption (medium), versioning off (low); counts of ' +
    'all, the topN buckets (worst first) and findings in full. Read-only, no cost; 4-6 S3 requests per bucket (the ' +
    'ACL and Object Ownership only where ACLs can still grant access), 8 buckets at a time, plus one S3 Control ' +
    'ListAccessPoints per region holding buckets. A setting that cannot be read (AccessDenied on one bucket) is ' +
    '"unknown" with its error on that bucket, never failing the others; `truncated` is set when the deadline left ' +
    'buckets unread.',
  inputSchema: () =>
    z.strictObject({
      topN: topNArg(20),
    }),
  service: 's3',
  // ListBuckets is authorized by s3:ListAllMyBuckets, GetBucketEncryption by s3:GetEncryptionConfiguration,
  // S3 and S3 Control GetPublicAccessBlock by s3:GetBucketPublicAccessBlock / s3:GetAccountPublicAccessBlock,
  // GetBucketAcl by s3:GetBucketAcl, GetBucketOwnershipControls by s3:GetBucketOwnershipControls, S3 Control
  // ListAccessPoints / GetAccessPointPolicyStatus / GetAccessPoint by the actions of the same names
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
        's3:GetBucketAcl',
        's3:GetBucketOwnershipControls',
        's3:ListAccessPoints',
        's3:GetAccessPointPolicyStatus',
        's3:GetAccessPoint',
      ],
    },
  ],
  runtime: { memorySizeMb: 512, timeoutSeconds: 300 },
});
