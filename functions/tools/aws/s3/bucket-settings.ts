/**
 * Reads one bucket's settings, one S3 call each. "Not configured" answers
 * (documented error codes) become values; any other error rises to the caller,
 * which records it on that bucket only.
 */
import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLocationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  type Grant,
  type S3Client,
  type ServerSideEncryptionConfiguration,
} from '@aws-sdk/client-s3';
import type { ToolErrorInfo } from '../../../runtime/result';
import { serviceEnum, type UnrecognizedValues } from '../shared/service-enums';

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

/** GetBucketVersioning `Status` and `MFADelete` (S3 API reference, "GetBucketVersioning"). */
const VERSIONING_STATUS = serviceEnum('Status', ['Enabled', 'Suspended'] as const);
const MFA_DELETE = serviceEnum('MFADelete', ['Enabled', 'Disabled'] as const);

/**
 * The bucket's versioning (GetBucketVersioning). A status this tool does not
 * know is `unknown` (counted in `unrecognized`), never taken for "off".
 *
 * @throws the SDK's error (AccessDenied…).
 */
export async function readBucketVersioning(
  client: S3Client,
  bucket: string,
  unrecognized?: UnrecognizedValues,
): Promise<BucketVersioning> {
  const out = await client.send(new GetBucketVersioningCommand({ Bucket: bucket }));
  const status = out.Status ? (VERSIONING_STATUS.parse(out.Status, unrecognized) ?? 'unknown') : 'Disabled';
  return { status, mfaDelete: MFA_DELETE.is(out.MFADelete, 'Enabled') };
}

/** Object Ownership (S3 User Guide, "Controlling ownership of objects and disabling ACLs"). */
export interface BucketOwnership {
  /**
   * `BucketOwnerEnforced` disables ACLs: no ACL grants access. `not_configured`
   * (no ownership controls, a bucket from before 2023): ACLs apply, as with
   * `ObjectWriter`. `not_read`: skipped because Block Public Access ignores public
   * ACLs at account level anyway. `unknown`: could not be read (`error`) or a value
   * this tool does not know.
   */
  readonly status:
    | 'BucketOwnerEnforced'
    | 'BucketOwnerPreferred'
    | 'ObjectWriter'
    | 'not_configured'
    | 'not_read'
    | 'unknown';
  /** Whether ACLs are disabled; null when not known. */
  readonly aclsDisabled: boolean | null;
  readonly error?: ToolErrorInfo;
}

/** Could not be read; the caller adds the `error`. */
export const OWNERSHIP_UNKNOWN: BucketOwnership = { status: 'unknown', aclsDisabled: null };
/** Not read: public ACLs are ignored account-wide, so ownership cannot change the exposure verdict. */
export const OWNERSHIP_NOT_READ: BucketOwnership = { status: 'not_read', aclsDisabled: null };

const OBJECT_OWNERSHIP = serviceEnum('ObjectOwnership', [
  'BucketOwnerEnforced',
  'BucketOwnerPreferred',
  'ObjectWriter',
] as const);

/**
 * The bucket's Object Ownership (GetBucketOwnershipControls).
 *
 * @returns `not_configured` (ACLs enabled) when S3 answers OwnershipControlsNotFoundError.
 * @throws the SDK's error for anything else (AccessDenied…).
 */
export async function readBucketOwnership(
  client: S3Client,
  bucket: string,
  unrecognized?: UnrecognizedValues,
): Promise<BucketOwnership> {
  try {
    const out = await client.send(new GetBucketOwnershipControlsCommand({ Bucket: bucket }));
    const raw = out.OwnershipControls?.Rules?.[0]?.ObjectOwnership;
    const status = OBJECT_OWNERSHIP.parse(raw, unrecognized);
    if (!status) return OWNERSHIP_UNKNOWN;
    return { status, aclsDisabled: status === 'BucketOwnerEnforced' };
  } catch (err) {
    if (isNamed(err, 'OwnershipControlsNotFoundError'))
      return { status: 'not_configured', aclsDisabled: false };
    throw err;
  }
}

/** Grantee groups whose grants make a bucket public (S3 User Guide, "Access control list (ACL) overview"). */
export const PUBLIC_GROUPS = {
  AllUsers: 'http://acs.amazonaws.com/groups/global/AllUsers',
  AuthenticatedUsers: 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers',
} as const;

/** A grant of the bucket ACL to everyone (`AllUsers`) or to every AWS account (`AuthenticatedUsers`). */
export interface PublicGrant {
  readonly grantee: keyof typeof PUBLIC_GROUPS;
  /** READ, WRITE, READ_ACP, WRITE_ACP or FULL_CONTROL. */
  readonly permission: string;
}

/** The bucket ACL's public grants. */
export interface BucketAcl {
  /** `read`; `not_read`: ACLs cannot grant access (disabled, or public ACLs ignored); `unknown`: `error`. */
  readonly status: 'read' | 'not_read' | 'unknown';
  readonly publicGrants: PublicGrant[];
  readonly error?: ToolErrorInfo;
}

export const ACL_UNKNOWN: BucketAcl = { status: 'unknown', publicGrants: [] };
export const ACL_NOT_READ: BucketAcl = { status: 'not_read', publicGrants: [] };

const GRANTEE_TYPE = serviceEnum('Grantee.Type', [
  'CanonicalUser',
  'AmazonCustomerByEmail',
  'Group',
] as const);
const PERMISSION = serviceEnum('Permission', [
  'FULL_CONTROL',
  'WRITE',
  'WRITE_ACP',
  'READ',
  'READ_ACP',
] as const);

/** The grants of `grants` to the AllUsers and AuthenticatedUsers groups. */
export function publicGrantsOf(grants: readonly Grant[], unrecognized?: UnrecognizedValues): PublicGrant[] {
  const found: PublicGrant[] = [];
  for (const grant of grants) {
    const grantee = grant.Grantee;
    if (!grantee || GRANTEE_TYPE.parse(grantee.Type, unrecognized) !== 'Group') continue;
    const uri = (grantee.URI ?? '')
      .trim()
      .replace(/^https:/i, 'http:')
      .toLowerCase();
    const group = (Object.keys(PUBLIC_GROUPS) as (keyof typeof PUBLIC_GROUPS)[]).find(
      (name) => PUBLIC_GROUPS[name].toLowerCase() === uri,
    );
    if (!group) continue;
    const permission = PERMISSION.parse(grant.Permission, unrecognized) ?? grant.Permission ?? 'unknown';
    found.push({ grantee: group, permission });
  }
  return found;
}

/**
 * The bucket ACL's public grants (GetBucketAcl).
 *
 * @throws the SDK's error (AccessDenied…).
 */
export async function readBucketAcl(
  client: S3Client,
  bucket: string,
  unrecognized?: UnrecognizedValues,
): Promise<BucketAcl> {
  const out = await client.send(new GetBucketAclCommand({ Bucket: bucket }));
  return { status: 'read', publicGrants: publicGrantsOf(out.Grants ?? [], unrecognized) };
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
