/**
 * S3 access points as a path to a bucket: an access point with its own policy
 * can make a bucket's data public even when the bucket policy does not (S3 User
 * Guide, "Managing access to shared datasets with access points"). Access points
 * are listed per region (S3 Control ListAccessPoints answers the region of its
 * endpoint), and only those reachable from the internet are read further.
 */
import {
  type AccessPoint,
  GetAccessPointCommand,
  GetAccessPointPolicyStatusCommand,
  paginateListAccessPoints,
  type S3ControlClient,
} from '@aws-sdk/client-s3-control';
import { type PagesRead, readPages, stopFields } from '../../../runtime/aws/pagination';
import type { Deadline } from '../../../runtime/deadline';
import type { ToolErrorInfo } from '../../../runtime/result';
import { serviceEnum, type UnrecognizedValues } from '../shared/service-enums';
import type { PublicAccessBlockFlags } from './public-access-block';

/** ListAccessPoints returns at most 1,000 a page (S3 Control API reference, "ListAccessPoints", MaxResults). */
const PAGE_SIZE = 1000;
/** 10 pages: 10,000 access points per region (the default quota; Amazon S3 User Guide, "Access points restrictions and limitations"). */
const MAX_PAGES = 10;

/** AccessPoint `NetworkOrigin` (S3 Control API reference, "AccessPoint"). */
const NETWORK_ORIGIN = serviceEnum('NetworkOrigin', ['Internet', 'VPC'] as const);

/** One access point of a bucket, as the exposure verdict reads it. */
export interface AccessPointReport {
  readonly name: string;
  readonly arn: string | null;
  readonly bucket: string;
  /** `Internet` or `VPC` (a VPC-only access point is never public), as answered when unknown to this tool. */
  readonly networkOrigin: string;
  /**
   * Its policy status: `public` (GetAccessPointPolicyStatus IsPublic), `not_public`,
   * `no_policy`, `not_read` (a VPC access point), or `unknown` (`error`).
   */
  readonly policy: 'public' | 'not_public' | 'no_policy' | 'not_read' | 'unknown';
  /**
   * The access point's own Block Public Access (GetAccessPoint), read only when
   * its policy is public; null when not read.
   */
  readonly blockPublicAccess: PublicAccessBlockFlags | null;
  readonly error?: ToolErrorInfo;
}

/** The access points of one region, or why they could not be listed. */
export type RegionAccessPoints =
  | ({ readonly ok: true; readonly accessPoints: AccessPointReport[] } & ReturnType<typeof stopFields>)
  | { readonly ok: false; readonly error: ToolErrorInfo };

/** What {@link readRegionAccessPoints} needs. */
export interface AccessPointReader {
  /** An S3 Control client in the region. */
  readonly client: S3ControlClient;
  readonly accountId: string;
  /** The buckets of this account in the region: access points of other buckets are not read. */
  readonly buckets: ReadonlySet<string>;
  readonly deadline: Deadline;
  describeError(err: unknown): ToolErrorInfo;
  readonly unrecognized?: UnrecognizedValues;
}

function isNamed(err: unknown, name: string): boolean {
  return err instanceof Error && err.name === name;
}

async function policyOf(reader: AccessPointReader, name: string) {
  try {
    const out = await reader.client.send(
      new GetAccessPointPolicyStatusCommand({ AccountId: reader.accountId, Name: name }),
    );
    return { policy: out.PolicyStatus?.IsPublic === true ? ('public' as const) : ('not_public' as const) };
  } catch (err) {
    if (isNamed(err, 'NoSuchAccessPointPolicy')) return { policy: 'no_policy' as const };
    return { policy: 'unknown' as const, error: reader.describeError(err) };
  }
}

async function blockPublicAccessOf(reader: AccessPointReader, name: string) {
  try {
    const out = await reader.client.send(
      new GetAccessPointCommand({ AccountId: reader.accountId, Name: name }),
    );
    const config = out.PublicAccessBlockConfiguration;
    return {
      blockPublicAccess: {
        blockPublicAcls: config?.BlockPublicAcls === true,
        ignorePublicAcls: config?.IgnorePublicAcls === true,
        blockPublicPolicy: config?.BlockPublicPolicy === true,
        restrictPublicBuckets: config?.RestrictPublicBuckets === true,
      },
    };
  } catch (err) {
    return { blockPublicAccess: null, error: reader.describeError(err) };
  }
}

/** One access point: its policy status when reachable from the internet, and its Block Public Access when that policy is public. */
async function readAccessPoint(reader: AccessPointReader, point: AccessPoint): Promise<AccessPointReport> {
  const name = point.Name ?? 'unknown';
  const origin = NETWORK_ORIGIN.parse(point.NetworkOrigin, reader.unrecognized);
  const base = {
    name,
    arn: point.AccessPointArn ?? null,
    bucket: point.Bucket ?? '',
    networkOrigin: origin ?? point.NetworkOrigin ?? 'unknown',
    blockPublicAccess: null,
  };
  if (origin === 'VPC') return { ...base, policy: 'not_read' };
  const policy = await policyOf(reader, name);
  if (policy.policy !== 'public') return { ...base, ...policy };
  const block = await blockPublicAccessOf(reader, name);
  const error = policy.error ?? block.error;
  return {
    ...base,
    policy: policy.policy,
    blockPublicAccess: block.blockPublicAccess,
    ...(error ? { error } : {}),
  };
}

/**
 * The access points of the account's buckets in one region: one ListAccessPoints
 * page per 1,000, one GetAccessPointPolicyStatus per internet-facing access
 * point of a listed bucket, and one GetAccessPoint per public one. Never throws:
 * a failed listing is `ok: false` (the region's buckets then have unknown
 * access-point exposure), a failed read is that access point's `error`.
 */
export async function readRegionAccessPoints(reader: AccessPointReader): Promise<RegionAccessPoints> {
  const points: AccessPoint[] = [];
  let read: PagesRead;
  try {
    read = await readPages(
      paginateListAccessPoints(
        { client: reader.client, pageSize: PAGE_SIZE },
        { AccountId: reader.accountId },
      ),
      (page) => {
        for (const point of page.AccessPointList ?? []) {
          const ours = !point.BucketAccountId || point.BucketAccountId === reader.accountId;
          if (ours && point.Bucket && reader.buckets.has(point.Bucket)) points.push(point);
        }
      },
      { maxPages: MAX_PAGES, deadline: reader.deadline },
    );
  } catch (err) {
    return { ok: false, error: reader.describeError(err) };
  }
  const accessPoints: AccessPointReport[] = [];
  for (const point of points) accessPoints.push(await readAccessPoint(reader, point));
  return { ok: true, accessPoints, ...stopFields(read) };
}
