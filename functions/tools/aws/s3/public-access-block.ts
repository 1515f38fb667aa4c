import {
  GetPublicAccessBlockCommand,
  type PublicAccessBlockConfiguration,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  GetPublicAccessBlockCommand as GetAccountPublicAccessBlockCommand,
  type S3ControlClient,
} from '@aws-sdk/client-s3-control';
import type { ToolErrorInfo } from '../../../runtime/result';

/** The four Block Public Access switches (S3 API reference, "PublicAccessBlockConfiguration"). */
export interface PublicAccessBlockFlags {
  readonly blockPublicAcls: boolean;
  readonly ignorePublicAcls: boolean;
  readonly blockPublicPolicy: boolean;
  readonly restrictPublicBuckets: boolean;
}

/**
 * Block Public Access as read at one level (bucket or account). `not_configured`
 * means no configuration exists: all four switches are off. `unknown` means it
 * could not be read (`error` says why); its switches are then reported off.
 */
export interface PublicAccessBlockState extends PublicAccessBlockFlags {
  readonly status: 'configured' | 'not_configured' | 'unknown';
  readonly error?: ToolErrorInfo;
}

const FLAG_NAMES = [
  'blockPublicAcls',
  'ignorePublicAcls',
  'blockPublicPolicy',
  'restrictPublicBuckets',
] as const satisfies readonly (keyof PublicAccessBlockFlags)[];

/** No configuration at this level: all four switches off. */
export const PUBLIC_ACCESS_BLOCK_NOT_CONFIGURED: PublicAccessBlockState = {
  status: 'not_configured',
  blockPublicAcls: false,
  ignorePublicAcls: false,
  blockPublicPolicy: false,
  restrictPublicBuckets: false,
};

/** Could not be read; the caller adds the `error`. */
export const PUBLIC_ACCESS_BLOCK_UNKNOWN: PublicAccessBlockState = {
  ...PUBLIC_ACCESS_BLOCK_NOT_CONFIGURED,
  status: 'unknown',
};

/**
 * S3 and S3 Control answer "no configuration" with the error code
 * NoSuchPublicAccessBlockConfiguration (S3 API reference, "GetPublicAccessBlock").
 * S3 does not model it and S3 Control does, so the code is compared by name.
 */
function isNoConfiguration(err: unknown): boolean {
  return err instanceof Error && err.name === 'NoSuchPublicAccessBlockConfiguration';
}

function fromConfiguration(config: PublicAccessBlockConfiguration | undefined): PublicAccessBlockState {
  return {
    status: 'configured',
    blockPublicAcls: config?.BlockPublicAcls === true,
    ignorePublicAcls: config?.IgnorePublicAcls === true,
    blockPublicPolicy: config?.BlockPublicPolicy === true,
    restrictPublicBuckets: config?.RestrictPublicBuckets === true,
  };
}

/**
 * A bucket's Block Public Access (S3 GetPublicAccessBlock).
 *
 * @param client - an S3 client in the bucket's region.
 * @returns `not_configured` (all off) when S3 answers NoSuchPublicAccessBlockConfiguration.
 * @throws the SDK's error for anything else (AccessDenied…).
 */
export async function readBucketPublicAccessBlock(
  client: S3Client,
  bucket: string,
): Promise<PublicAccessBlockState> {
  try {
    const out = await client.send(new GetPublicAccessBlockCommand({ Bucket: bucket }));
    return fromConfiguration(out.PublicAccessBlockConfiguration);
  } catch (err) {
    if (isNoConfiguration(err)) return PUBLIC_ACCESS_BLOCK_NOT_CONFIGURED;
    throw err;
  }
}

/**
 * The account's Block Public Access (S3 Control GetPublicAccessBlock), which
 * applies to every bucket on top of the bucket's own.
 *
 * @returns `not_configured` (all off) when S3 Control answers NoSuchPublicAccessBlockConfiguration.
 * @throws the SDK's error for anything else (AccessDenied…).
 */
export async function readAccountPublicAccessBlock(
  client: S3ControlClient,
  accountId: string,
): Promise<PublicAccessBlockState> {
  try {
    const out = await client.send(new GetAccountPublicAccessBlockCommand({ AccountId: accountId }));
    return fromConfiguration(out.PublicAccessBlockConfiguration);
  } catch (err) {
    if (isNoConfiguration(err)) return PUBLIC_ACCESS_BLOCK_NOT_CONFIGURED;
    throw err;
  }
}

/**
 * The switches in force for a bucket: each is on when the account or the bucket
 * turns it on (S3 User Guide, "Blocking public access to your Amazon S3 storage").
 *
 * @returns the names of the switches left off, or `null` when that cannot be told
 *   (a level is `unknown` and the other does not turn every switch on).
 */
export function switchesLeftOff(
  account: PublicAccessBlockState,
  bucket: PublicAccessBlockState,
): (keyof PublicAccessBlockFlags)[] | null {
  const off = FLAG_NAMES.filter((flag) => !account[flag] && !bucket[flag]);
  if (off.length === 0) return [];
  return account.status === 'unknown' || bucket.status === 'unknown' ? null : off;
}
