/**
 * One exposure verdict per bucket, from every path that can make it public and
 * every switch that can block one (S3 User Guide, "Blocking public access to
 * your Amazon S3 storage", "The meaning of public"):
 *
 * - the bucket ACL: grants to `AllUsers` (anyone) or `AuthenticatedUsers` (any
 *   AWS account), unless ACLs are disabled (Object Ownership
 *   `BucketOwnerEnforced`) or `IgnorePublicAcls` is on at account or bucket level;
 * - the bucket policy (GetBucketPolicyStatus `IsPublic`), unless
 *   `RestrictPublicBuckets` is on at account or bucket level;
 * - access points with a public policy and internet network origin, unless
 *   `RestrictPublicBuckets` is on at account, bucket or access point level.
 *
 * `BlockPublicAcls` and `BlockPublicPolicy` only refuse new public ACLs and
 * policies; existing ones are neutralized by the two switches above.
 */
import type { AccessPointReport } from './access-points';
import type { BucketAcl, BucketOwnership, BucketPolicyStatus } from './bucket-settings';
import type { PublicAccessBlockState } from './public-access-block';

/**
 * `public`: a path reaches the internet; `blocked`: public grants or policies
 * exist but Block Public Access or disabled ACLs neutralize every one (public
 * the moment a switch is turned off); `not_public`: no path; `unknown`: a fact
 * that could decide it could not be read (see `unknown`).
 */
export type ExposureVerdict = 'public' | 'blocked' | 'not_public' | 'unknown';

/** One way the bucket's data is, or would be, public. */
export interface ExposurePath {
  readonly via: 'bucket_acl' | 'bucket_policy' | 'access_point';
  /** `AllUsers: READ`, an access point's name, `bucket policy`. */
  readonly what: string;
  /** True: reaches the internet; false: neutralized (`blockedBy`); null: could not be told. */
  readonly effective: boolean | null;
  /** The switches that neutralize it (`account RestrictPublicBuckets`, `Object Ownership BucketOwnerEnforced`). */
  readonly blockedBy: string[];
}

/** A bucket's exposure. */
export interface BucketExposure {
  readonly verdict: ExposureVerdict;
  readonly paths: ExposurePath[];
  /** Facts that could decide the verdict but could not be read (`bucket policy status`, `access points`). */
  readonly unknown: string[];
}

/** The bucket facts the verdict reads. */
export interface ExposureFacts {
  readonly publicAccessBlock: PublicAccessBlockState;
  readonly policy: BucketPolicyStatus;
  readonly ownership: BucketOwnership;
  readonly acl: BucketAcl;
}

/** The bucket's access points, or `unknown` when its region's could not be listed. */
export type BucketAccessPoints = readonly AccessPointReport[] | 'unknown';

type Switch = 'ignorePublicAcls' | 'restrictPublicBuckets';

/** Which levels turn `flag` on, and whether an unread level leaves it open. */
function blockers(
  flag: Switch,
  levels: readonly { readonly name: string; readonly state: PublicAccessBlockState | null }[],
) {
  const on = levels.filter((l) => l.state?.[flag] === true).map((l) => `${l.name} ${switchName(flag)}`);
  const unread = levels.some((l) => l.state === null || l.state.status === 'unknown');
  return { on, unread };
}

function switchName(flag: Switch): string {
  return flag === 'ignorePublicAcls' ? 'IgnorePublicAcls' : 'RestrictPublicBuckets';
}

/** A path's effect: neutralized when a blocker is on, unknown when a level could not be read, else effective. */
function path(via: ExposurePath['via'], what: string, blockedBy: string[], unread: boolean): ExposurePath {
  return { via, what, effective: blockedBy.length > 0 ? false : unread ? null : true, blockedBy };
}

/**
 * The bucket's exposure verdict.
 *
 * @example
 * bucketExposure({ publicAccessBlock: NOT_CONFIGURED, policy: { status: 'no_policy' },
 *   ownership: { status: 'not_configured', aclsDisabled: false },
 *   acl: { status: 'read', publicGrants: [{ grantee: 'AllUsers', permission: 'READ' }] } }, ACCOUNT_NOT_CONFIGURED, [])
 * // { verdict: 'public', paths: [{ via: 'bucket_acl', what: 'AllUsers: READ', effective: true, blockedBy: [] }], unknown: [] }
 */
export function bucketExposure(
  bucket: ExposureFacts,
  account: PublicAccessBlockState,
  accessPoints: BucketAccessPoints,
): BucketExposure {
  const levels = [
    { name: 'account', state: account },
    { name: 'bucket', state: bucket.publicAccessBlock },
  ];
  const paths: ExposurePath[] = [];
  const unknown: string[] = [];

  // ACLs: disabled by Object Ownership, or ignored by IgnorePublicAcls.
  const acls = blockers('ignorePublicAcls', levels);
  const aclBlockers = [
    ...(bucket.ownership.aclsDisabled === true
      ? ['Object Ownership BucketOwnerEnforced (ACLs disabled)']
      : []),
    ...acls.on,
  ];
  const byGrantee = new Map<string, string[]>();
  for (const grant of bucket.acl.publicGrants) {
    byGrantee.set(grant.grantee, [...(byGrantee.get(grant.grantee) ?? []), grant.permission]);
  }
  for (const [grantee, permissions] of byGrantee) {
    const unread = acls.unread || bucket.ownership.aclsDisabled === null;
    paths.push(path('bucket_acl', `${grantee}: ${permissions.join(', ')}`, aclBlockers, unread));
  }
  if (bucket.acl.status === 'unknown' && aclBlockers.length === 0) unknown.push('bucket ACL');

  // The bucket policy and access points: restricted by RestrictPublicBuckets.
  const restrict = blockers('restrictPublicBuckets', levels);
  if (bucket.policy.status === 'public') {
    paths.push(path('bucket_policy', 'bucket policy', restrict.on, restrict.unread));
  } else if (bucket.policy.status === 'unknown' && restrict.on.length === 0) {
    unknown.push('bucket policy status');
  }
  if (accessPoints === 'unknown') {
    if (restrict.on.length === 0) unknown.push('access points');
  } else {
    for (const point of accessPoints) {
      if (point.policy === 'unknown' && restrict.on.length === 0) unknown.push(`access point ${point.name}`);
      if (point.policy !== 'public') continue;
      const own =
        point.blockPublicAccess?.restrictPublicBuckets === true ? ['access point RestrictPublicBuckets'] : [];
      const unread = restrict.unread || point.blockPublicAccess === null;
      paths.push(path('access_point', point.name, [...restrict.on, ...own], unread));
    }
  }

  const verdict: ExposureVerdict = paths.some((p) => p.effective === true)
    ? 'public'
    : paths.some((p) => p.effective === null) || unknown.length > 0
      ? 'unknown'
      : paths.length > 0
        ? 'blocked'
        : 'not_public';
  return { verdict, paths, unknown };
}

/** The verdict of a bucket none of whose settings could be read. */
export const EXPOSURE_UNKNOWN: BucketExposure = {
  verdict: 'unknown',
  paths: [],
  unknown: ['bucket settings'],
};
