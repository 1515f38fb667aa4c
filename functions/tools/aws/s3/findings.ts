/**
 * S3 checks. Severities follow Prowler's and AWS Security Hub's S3 controls
 * (S3.1 account Block Public Access: high; S3.8 bucket Block Public Access,
 * default encryption: medium; S3.2/S3.3 public access: critical; versioning: low).
 * Public access is judged from the bucket's exposure verdict (`exposure.ts`):
 * one finding per path (ACL, policy, access point), critical when it reaches the
 * internet, high when only Block Public Access holds it back or that could not be told.
 */

import { accountFinding as finding } from '../shared/account';
import type { Finding, Severity } from '../shared/findings';
import type { BucketReport } from './bucket-report';
import type { ExposurePath } from './exposure';
import { type PublicAccessBlockState, switchesLeftOff } from './public-access-block';

/** Critical when a path reaches the internet; high when blocked (public once a switch is off) or undetermined. */
function pathSeverity(path: ExposurePath): Severity {
  return path.effective === true ? 'critical' : 'high';
}

/** `, blocked only by account RestrictPublicBuckets` / `(whether Block Public Access holds it back could not be read)`. */
function pathNote(path: ExposurePath): string {
  if (path.effective === false) return `, blocked only by ${path.blockedBy.join(' and ')}`;
  if (path.effective === null) return ' (whether Block Public Access holds it back could not be read)';
  return '';
}

/** Findings for the public paths of a bucket's exposure verdict. */
function exposureFindings(bucket: BucketReport, accountId: string, region: string): Finding[] {
  const findings: Finding[] = [];
  for (const path of bucket.exposure.paths) {
    const severity = pathSeverity(path);
    const common = { severity, region, details: { effective: path.effective, blockedBy: path.blockedBy } };
    if (path.via === 'bucket_policy') {
      findings.push(
        finding(accountId, {
          check: 's3_bucket_policy_public',
          resource: bucket.arn,
          ...common,
          title:
            path.effective === true
              ? `Bucket ${bucket.name} is public through its bucket policy`
              : `Bucket ${bucket.name} has a public bucket policy${pathNote(path)}`,
          details: { ...common.details, restrictedByBlockPublicAccess: path.effective === false },
        }),
      );
    } else if (path.via === 'bucket_acl') {
      const [grantee = '', permissions = ''] = path.what.split(': ');
      findings.push(
        finding(accountId, {
          check: 's3_bucket_acl_public',
          // One finding per bucket and grantee group: AllUsers and AuthenticatedUsers are two paths.
          resource: `${bucket.arn}#acl-${grantee}`,
          ...common,
          title:
            `Bucket ${bucket.name}'s ACL grants ${permissions} to ` +
            `${grantee === 'AllUsers' ? 'everyone (AllUsers)' : 'every AWS account (AuthenticatedUsers)'}${pathNote(path)}`,
          details: { ...common.details, grantee, permissions: permissions.split(', ') },
        }),
      );
    } else {
      const point = bucket.accessPoints.find((p) => p.name === path.what);
      findings.push(
        finding(accountId, {
          check: 's3_access_point_public',
          resource: point?.arn ?? `${bucket.arn}#access-point-${path.what}`,
          ...common,
          title: `Access point ${path.what} of bucket ${bucket.name} has a public policy${pathNote(path)}`,
          details: {
            ...common.details,
            accessPoint: path.what,
            bucket: bucket.name,
            accessPointBlocksPublicAccess:
              point?.blockPublicAccess === null || point?.blockPublicAccess === undefined
                ? null
                : Object.values(point.blockPublicAccess).every(Boolean),
          },
        }),
      );
    }
  }
  return findings;
}

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
 * on the bucket). Public paths come from the exposure verdict: the bucket policy
 * (`s3_bucket_policy_public`), the ACL (`s3_bucket_acl_public`, per grantee
 * group) and access points (`s3_access_point_public`), each critical when it
 * reaches the internet, high while Block Public Access or disabled ACLs keep it
 * from taking effect.
 */
export function bucketFindings(
  bucket: BucketReport,
  account: PublicAccessBlockState,
  accountId: string,
): Finding[] {
  if (bucket.region === null) return [];
  const at = { resource: bucket.arn, region: bucket.region };
  const findings: Finding[] = exposureFindings(bucket, accountId, bucket.region);
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
