/**
 * Reads one bucket's settings, one S3 call each. "Not configured" answers
 * (documented error codes) become values; any other error rises to the caller,
 * which records it on that bucket only.
 */
import {
  GetBucketEncryptionCommand,
  GetBucketLocationCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  type S3Client,
  type ServerSideEncryptionConfiguration,
} from '@aws-sdk/client-s3';
import type { ToolErrorInfo } from '../../../runtime/result';

function isNamed(err: unknown, name: string): boolean {
  return err instanceof Error && err.name === name;
}

/**
 * The region of a GetBucketLocation `LocationConstraint`. S3 answers no value
 * (or an empty one) for us-east-1 and the legacy `EU` for eu-west-1 (S3 API
 * reference, "GetBucketLocation").
 *
 * @example regionFromLocationConstraint(undefined) // 'us-east-1'
 * @example regionFromLocationConstraint('EU') // 'eu-west-1'
 */
export function regionFromLocationConstraint(constraint: string | null | undefined): string {
  if (constraint === undefined || constraint === null || constraint === '') return 'us-east-1';
  return constraint === 'EU' ? 'eu-west-1' : constraint;
}

/**
 * The bucket's region (GetBucketLocation, which S3 answers from any region).
 *
 * @throws the SDK's error (AccessDenied…).
 */
export async function readBucketRegion(client: S3Client, bucket: string): Promise<string> {
  const out = await client.send(new GetBucketLocationCommand({ Bucket: bucket }));
  return regionFromLocationConstraint(out.LocationConstraint);
}

/** A bucket's default encryption. */
export interface BucketEncryption {
  /** `none`: no rule sets a default algorithm; `unknown`: could not be read (`error`). */
  readonly status: 'enabled' | 'none' | 'unknown';
  /** `AES256` (SSE-S3), `aws:kms` (SSE-KMS), `aws:kms:dsse` (DSSE-KMS); null without a default. */
  readonly algorithm: string | null;
  /** The KMS key of SSE-KMS when one is named (else the AWS managed key `aws/s3`). */
  readonly kmsKeyId: string | null;
  /** S3 Bucket Keys (fewer KMS requests). */
  readonly bucketKeyEnabled: boolean;
  readonly error?: ToolErrorInfo;
}

/** Could not be read; the caller adds the `error`. */
export const ENCRYPTION_UNKNOWN: BucketEncryption = {
  status: 'unknown',
  algorithm: null,
  kmsKeyId: null,
  bucketKeyEnabled: false,
};

/**
 * The default encryption a configuration sets: the first rule carrying
 * `ApplyServerSideEncryptionByDefault`. A rule may carry only `BucketKeyEnabled`
 * (S3 API reference, "ServerSideEncryptionRule": every member is optional); with
 * no rule naming an algorithm the bucket has no default encryption.
 */
export function encryptionFromConfiguration(
  config: ServerSideEncryptionConfiguration | undefined,
): BucketEncryption {
  const rules = config?.Rules ?? [];
  const rule = rules.find((r) => r.ApplyServerSideEncryptionByDefault?.SSEAlgorithm);
  const bucketKeyEnabled = (rule ?? rules[0])?.BucketKeyEnabled === true;
  const defaults = rule?.ApplyServerSideEncryptionByDefault;
  if (!defaults?.SSEAlgorithm) return { status: 'none', algorithm: null, kmsKeyId: null, bucketKeyEnabled };
  return {
    status: 'enabled',
    algorithm: defaults.SSEAlgorithm,
    kmsKeyId: defaults.KMSMasterKeyID ?? null,
    bucketKeyEnabled,
  };
}

/**
 * The bucket's default encryption (GetBucketEncryption).
 *
 * @param client - an S3 client in the bucket's region.
 * @returns `none` when S3 answers ServerSideEncryptionConfigurationNotFoundError.
 * @throws the SDK's error for anything else (AccessDenied…).
 */
export async function readBucketEncryption(client: S3Client, bucket: string): Promise<BucketEncryption> {
  try {
    const out = await client.send(new GetBucketEncryptionCommand({ Bucket: bucket }));
    return encryptionFromConfiguration(out.ServerSideEncryptionConfiguration);
  } catch (err) {
    if (isNamed(err, 'ServerSideEncryptionConfigurationNotFoundError')) {
      return encryptionFromConfiguration(undefined);
    }
    throw err;
  }
}

/** A bucket's versioning. */
export interface BucketVersioning {
  /** S3 answers no `Status` for a bucket that never had versioning: `Disabled`. */
  readonly status: 'Enabled' | 'Suspended' | 'Disabled' | 'unknown';
  /** MFA delete; null when unknown. */
  readonly mfaDelete: boolean | null;
  readonly error?: ToolErrorInfo;
}

/** Could not be read; the caller adds the `error`. */
export const VERSIONING_UNKNOWN: BucketVersioning = { status: 'unknown', mfaDelete: null };

/**
 * The bucket's versioning (GetBucketVersioning).
 *
 * @throws the SDK's error (AccessDenied…).
 */
export async function readBucketVersioning(client: S3Client, bucket: string): Promise<BucketVersioning> {
  const out = await client.send(new GetBucketVersioningCommand({ Bucket: bucket }));
  return { status: out.Status ?? 'Disabled', mfaDelete: out.MFADelete === 'Enabled' };
}

/** Whether the bucket policy makes the bucket public. */
export interface BucketPolicyStatus {
  /** `no_policy`: the bucket has no policy (so it is not public through one). */
  readonly status: 'public' | 'not_public' | 'no_policy' | 'unknown';
  readonly error?: ToolErrorInfo;
}

/** Could not be read; the caller adds the `error`. */
export const POLICY_STATUS_UNKNOWN: BucketPolicyStatus = { status: 'unknown' };

/**
 * Whether the bucket policy grants public access (GetBucketPolicyStatus `IsPublic`).
 *
 * @returns `no_policy` when S3 answers NoSuchBucketPolicy.
 * @throws the SDK's error for anything else (AccessDenied…).
 */
export async function readBucketPolicyStatus(client: S3Client, bucket: string): Promise<BucketPolicyStatus> {
  try {
    const out = await client.send(new GetBucketPolicyStatusCommand({ Bucket: bucket }));
    return { status: out.PolicyStatus?.IsPublic === true ? 'public' : 'not_public' };
  } catch (err) {
    if (isNamed(err, 'NoSuchBucketPolicy')) return { status: 'no_policy' };
    throw err;
  }
}
