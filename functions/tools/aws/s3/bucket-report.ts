import type { S3Client } from '@aws-sdk/client-s3';
import type { ToolErrorInfo } from '../../../runtime/result';
import type { UnrecognizedValues } from '../shared/service-enums';
import type { AccessPointReport } from './access-points';
import {
  ACL_NOT_READ,
  ACL_UNKNOWN,
  type BucketAcl,
  type BucketEncryption,
  type BucketOwnership,
  type BucketPolicyStatus,
  type BucketVersioning,
  ENCRYPTION_UNKNOWN,
  OWNERSHIP_NOT_READ,
  OWNERSHIP_UNKNOWN,
  POLICY_STATUS_UNKNOWN,
  readBucketAcl,
  readBucketEncryption,
  readBucketOwnership,
  readBucketPolicyStatus,
  readBucketRegion,
  readBucketVersioning,
  VERSIONING_UNKNOWN,
} from './bucket-settings';
import type { BucketExposure } from './exposure';
import {
  PUBLIC_ACCESS_BLOCK_UNKNOWN,
  type PublicAccessBlockState,
  readBucketPublicAccessBlock,
} from './public-access-block';

/** A bucket as ListBuckets answers it. */
export interface ListedBucket {
  readonly name: string;
  /** ISO 8601. */
  readonly createdAt: string | null;
  /** ListBuckets' `BucketRegion`, sent when the request has a parameter (MaxBuckets); else undefined. */
  readonly region: string | undefined;
}

/** One bucket's settings as read. Each setting that could not be read is `unknown` with its own `error`. */
export interface BucketSettings {
  readonly name: string;
  readonly arn: string;
  /** Null when the region could not be read (`error`); the settings are then `unknown`. */
  readonly region: string | null;
  readonly createdAt: string | null;
  readonly encryption: BucketEncryption;
  readonly publicAccessBlock: PublicAccessBlockState;
  readonly versioning: BucketVersioning;
  readonly policy: BucketPolicyStatus;
  /** Object Ownership: whether ACLs can grant access at all. */
  readonly ownership: BucketOwnership;
  /** The bucket ACL's public grants, read only when ACLs can take effect. */
  readonly acl: BucketAcl;
  /** Why the bucket's region could not be read. */
  readonly error?: ToolErrorInfo;
}

/** One bucket in the inventory: its settings, its access points and one exposure verdict. */
export interface BucketReport extends BucketSettings {
  /** The bucket's access points in its region (listed by S3 Control); empty when it has none or they are unknown. */
  readonly accessPoints: AccessPointReport[];
  readonly exposure: BucketExposure;
}

/** What {@link readBucket} needs. */
export interface BucketReader {
  /** Client of the account's home region: GetBucketLocation is answered from any region. */
  readonly home: S3Client;
  /** Client of a bucket's region: S3 answers other bucket calls sent elsewhere with 301 PermanentRedirect. */
  clientFor(region: string): S3Client;
  /** `aws:s3` ARNs are `arn:<partition>:s3:::<bucket>`. */
  readonly partition: string;
  /** Normalizes an error to record it on the bucket. */
  describeError(err: unknown): ToolErrorInfo;
  /** The account's Block Public Access: ACL reads are skipped where it ignores public ACLs. */
  readonly account: PublicAccessBlockState;
  /** Where enum values this tool does not know are counted. */
  readonly unrecognized?: UnrecognizedValues;
}

async function orUnknown<T extends { readonly error?: ToolErrorInfo }>(
  read: Promise<T>,
  unknown: T,
  reader: BucketReader,
): Promise<T> {
  try {
    return await read;
  } catch (err) {
    return { ...unknown, error: reader.describeError(err) };
  }
}

/**
 * Reads one bucket's region (unless ListBuckets gave it), then its settings in
 * its region: encryption, Block Public Access, versioning and policy status at
 * once, with Object Ownership unless the account ignores public ACLs; then the
 * ACL, only when ACLs can still grant access (not disabled by
 * `BucketOwnerEnforced`, not ignored by `IgnorePublicAcls` at either level). Never
 * throws: a failed call leaves that setting `unknown` with its error, and a
 * failed region read leaves every setting unknown. Makes 4 S3 requests when the
 * account ignores public ACLs, 5 when ACLs are disabled or ignored by the
 * bucket, 6 when the ACL is read; one more when ListBuckets gave no region.
 */
export async function readBucket(reader: BucketReader, listed: ListedBucket): Promise<BucketSettings> {
  const identity = {
    name: listed.name,
    arn: `arn:${reader.partition}:s3:::${listed.name}`,
    createdAt: listed.createdAt,
  };
  let region = listed.region;
  if (!region) {
    try {
      region = await readBucketRegion(reader.home, listed.name);
    } catch (err) {
      return {
        ...identity,
        region: null,
        encryption: ENCRYPTION_UNKNOWN,
        publicAccessBlock: PUBLIC_ACCESS_BLOCK_UNKNOWN,
        versioning: VERSIONING_UNKNOWN,
        policy: POLICY_STATUS_UNKNOWN,
        ownership: OWNERSHIP_UNKNOWN,
        acl: ACL_UNKNOWN,
        error: reader.describeError(err),
      };
    }
  }
  const client = reader.clientFor(region);
  const aclsIgnoredByAccount = reader.account.ignorePublicAcls;
  const [encryption, publicAccessBlock, versioning, policy, ownership] = await Promise.all([
    orUnknown(readBucketEncryption(client, listed.name), ENCRYPTION_UNKNOWN, reader),
    orUnknown(readBucketPublicAccessBlock(client, listed.name), PUBLIC_ACCESS_BLOCK_UNKNOWN, reader),
    orUnknown(readBucketVersioning(client, listed.name, reader.unrecognized), VERSIONING_UNKNOWN, reader),
    orUnknown(readBucketPolicyStatus(client, listed.name), POLICY_STATUS_UNKNOWN, reader),
    aclsIgnoredByAccount
      ? OWNERSHIP_NOT_READ
      : orUnknown(readBucketOwnership(client, listed.name, reader.unrecognized), OWNERSHIP_UNKNOWN, reader),
  ]);
  // The ACL can only make the bucket public when ACLs are enabled and not ignored at either level.
  const aclsCannotApply =
    aclsIgnoredByAccount || publicAccessBlock.ignorePublicAcls || ownership.aclsDisabled === true;
  const acl = aclsCannotApply
    ? ACL_NOT_READ
    : await orUnknown(readBucketAcl(client, listed.name, reader.unrecognized), ACL_UNKNOWN, reader);
  return { ...identity, region, encryption, publicAccessBlock, versioning, policy, ownership, acl };
}
