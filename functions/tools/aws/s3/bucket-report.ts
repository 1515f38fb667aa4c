import type { S3Client } from '@aws-sdk/client-s3';
import type { ToolErrorInfo } from '../../../runtime/result';
import {
  type BucketEncryption,
  type BucketPolicyStatus,
  type BucketVersioning,
  ENCRYPTION_UNKNOWN,
  POLICY_STATUS_UNKNOWN,
  readBucketEncryption,
  readBucketPolicyStatus,
  readBucketRegion,
  readBucketVersioning,
  VERSIONING_UNKNOWN,
} from './bucket-settings';
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

/** One bucket in the inventory. Each setting that could not be read is `unknown` with its own `error`. */
export interface BucketReport {
  readonly name: string;
  readonly arn: string;
  /** Null when the region could not be read (`error`); the settings are then `unknown`. */
  readonly region: string | null;
  readonly createdAt: string | null;
  readonly encryption: BucketEncryption;
  readonly publicAccessBlock: PublicAccessBlockState;
  readonly versioning: BucketVersioning;
  readonly policy: BucketPolicyStatus;
  /** Why the bucket's region could not be read. */
  readonly error?: ToolErrorInfo;
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
 * Reads one bucket's region (unless ListBuckets gave it), then its four settings
 * at once in its region. Never throws: a failed call leaves that setting
 * `unknown` with its error, and a failed region read leaves every setting unknown.
 * Makes 4 S3 requests, 5 when ListBuckets gave no region.
 */
export async function readBucket(reader: BucketReader, listed: ListedBucket): Promise<BucketReport> {
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
        error: reader.describeError(err),
      };
    }
  }
  const client = reader.clientFor(region);
  const [encryption, publicAccessBlock, versioning, policy] = await Promise.all([
    orUnknown(readBucketEncryption(client, listed.name), ENCRYPTION_UNKNOWN, reader),
    orUnknown(readBucketPublicAccessBlock(client, listed.name), PUBLIC_ACCESS_BLOCK_UNKNOWN, reader),
    orUnknown(readBucketVersioning(client, listed.name), VERSIONING_UNKNOWN, reader),
    orUnknown(readBucketPolicyStatus(client, listed.name), POLICY_STATUS_UNKNOWN, reader),
  ]);
  return { ...identity, region, encryption, publicAccessBlock, versioning, policy };
}
