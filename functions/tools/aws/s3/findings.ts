/**
 * S3 checks. Severities follow Prowler's and AWS Security Hub's S3 controls
 * (S3.1 account Block Public Access: high; S3.8 bucket Block Public Access,
 * default encryption: medium; S3.2/S3.3 public access: critical; versioning: low).
 */

import { accountFinding as finding } from '../shared/account';
import type { Finding } from '../shared/findings';
import type { BucketReport } from './bucket-report';
import { type PublicAccessBlockState, switchesLeftOff } from './public-access-block';

/** Region of account-wide S3 findings. */
const GLOBAL = 'global';

/**
 * `s3_account_block_public_access_off` (high) when account-level Block Public
 * Access leaves a switch off; nothing when it could not be read.
 */
export function accountFindings(account: PublicAccessBlockState, accountId: string): Finding[] {
  if (account.status === 'unknown') return [];
  const off = switchesLeftOff(account, account) ?? [];
  if (off.length === 0) return [];
  return [
    finding(accountId, {
      check: 's3_account_block_public_access_off',
      severity: 'high',
      resource: accountId,
      region: GLOBAL,
      title:
        account.status === 'not_configured'
          ? 'Account-level S3 Block Public Access is not configured'
          : `Account-level S3 Block Public Access leaves ${off.join(', ')} off`,
      details: { status: account.status, switchesOff: off },
    }),
  ];
}

/**
 * One bucket's findings. A setting that is `unknown` raises nothing (its error is
 * on the bucket). A public policy is critical, or high while Block Public Access
 * (`restrictPublicBuckets`, at either level) keeps it from taking effect.
 */
export function bucketFindings(
  bucket: BucketReport,
  account: PublicAccessBlockState,
  accountId: string,
): Finding[] {
  if (bucket.region === null) return [];
  const at = { resource: bucket.arn, region: bucket.region };
  const findings: Finding[] = [];
  if (bucket.policy.status === 'public') {
    const restricted = account.restrictPublicBuckets || bucket.publicAccessBlock.restrictPublicBuckets;
    findings.push(
      finding(accountId, {
        check: 's3_bucket_policy_public',
        severity: restricted ? 'high' : 'critical',
        ...at,
        title: restricted
          ? `Bucket ${bucket.name} has a public bucket policy, blocked only by RestrictPublicBuckets`
          : `Bucket ${bucket.name} is public through its bucket policy`,
        details: { restrictedByBlockPublicAccess: restricted },
      }),
    );
  }
  const off = switchesLeftOff(account, bucket.publicAccessBlock);
  if (off && off.length > 0) {
    findings.push(
      finding(accountId, {
        check: 's3_bucket_block_public_access_off',
        severity: 'medium',
        ...at,
        title: `Block Public Access leaves ${off.join(', ')} off for bucket ${bucket.name}`,
        details: { switchesOff: off, bucketLevel: bucket.publicAccessBlock.status },
      }),
    );
  }
  if (bucket.encryption.status === 'none') {
    findings.push(
      finding(accountId, {
        check: 's3_bucket_no_default_encryption',
        severity: 'medium',
        ...at,
        title: `Bucket ${bucket.name} has no default encryption`,
      }),
    );
  }
  if (bucket.versioning.status === 'Disabled' || bucket.versioning.status === 'Suspended') {
    findings.push(
      finding(accountId, {
        check: 's3_bucket_versioning_disabled',
        severity: 'low',
        ...at,
        title: `Versioning is ${bucket.versioning.status.toLowerCase()} on bucket ${bucket.name}`,
        details: { versioning: bucket.versioning.status },
      }),
    );
  }
  return findings;
}
