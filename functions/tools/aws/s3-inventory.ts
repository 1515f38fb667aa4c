import { paginateListBuckets, S3Client } from '@aws-sdk/client-s3';
import { awsClientConfig } from '../../runtime/aws/client-config';
import { readPages, stopFields } from '../../runtime/aws/pagination';
import { mapBounded } from '../../runtime/concurrency';
import type { Deadline } from '../../runtime/deadline';
import { normalizeError } from '../../runtime/normalize-error';
import type { ToolErrorInfo } from '../../runtime/result';
import { defineTool } from '../../runtime/spec';
import { compareText, increment, plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { type RegionAccessPoints, readRegionAccessPoints } from './s3/access-points';
import { type BucketReport, type BucketSettings, type ListedBucket, readBucket } from './s3/bucket-report';
import { s3ControlClient } from './s3/control-client';
import { bucketExposure, EXPOSURE_UNKNOWN } from './s3/exposure';
import { accountFindings, bucketFindings } from './s3/findings';
import {
  PUBLIC_ACCESS_BLOCK_UNKNOWN,
  type PublicAccessBlockState,
  readAccountPublicAccessBlock,
} from './s3/public-access-block';
import { s3InventorySpec } from './s3-inventory.meta';
import { callerAccount } from './shared/account';
import {
  type Finding,
  type FindingsSummary,
  FirstSeen,
  summarizeFindings,
  worstSeverityRank,
} from './shared/findings';
import { type UnrecognizedValues, unrecognizedNote } from './shared/service-enums';

/** Buckets per ListBuckets page; S3 accepts 1-10,000 (S3 API reference, "ListBuckets", MaxBuckets). */
const LIST_PAGE_SIZE = 1000;
/**
 * 100 pages × 1,000 = 100,000 buckets before the page cap marks the result truncated
 * (the default quota is 10,000 buckets per account; Amazon S3 User Guide, "Bucket quotas").
 */
const MAX_LIST_PAGES = 100;
/** Buckets read at once; each sends its 4-5 setting requests together, so ≤ 40 requests in flight. */
const BUCKET_CONCURRENCY = 8;
/** Regions whose access points are listed at once. */
const REGION_CONCURRENCY = 4;

/** Every bucket of the account, page by page (ListBuckets is answered from any region); a name listed twice counts once. */
async function listBuckets(client: S3Client, deadline: Deadline) {
  const buckets: ListedBucket[] = [];
  const once = new FirstSeen();
  const read = await readPages(
    paginateListBuckets({ client, pageSize: LIST_PAGE_SIZE }, {}),
    (page) => {
      for (const bucket of page.Buckets ?? []) {
        if (!bucket.Name || !once.first(bucket.Name)) continue;
        buckets.push({
          name: bucket.Name,
          createdAt: bucket.CreationDate?.toISOString() ?? null,
          region: bucket.BucketRegion || undefined,
        });
      }
    },
    { maxPages: MAX_LIST_PAGES, deadline, nextToken: (page) => page.ContinuationToken },
  );
  return { buckets, read, duplicates: once.duplicates };
}

function settingErrors(bucket: BucketReport): number {
  return [
    bucket.encryption,
    bucket.publicAccessBlock,
    bucket.versioning,
    bucket.policy,
    bucket.ownership,
    bucket.acl,
  ].filter((setting) => setting.error).length;
}

function hasError(bucket: BucketReport): boolean {
  return Boolean(bucket.error) || settingErrors(bucket) > 0;
}

/** Nothing of the bucket was read: its region, or every one of its four main settings, failed. */
function isUnreadable(bucket: BucketReport): boolean {
  return (
    Boolean(bucket.error) ||
    [bucket.encryption, bucket.publicAccessBlock, bucket.versioning, bucket.policy].every((s) => s.error)
  );
}

/** `; 50 buckets unreadable, 2 partly unreadable`, or empty when every bucket was read in full. */
function readErrorsNote(unreadable: number, partly: number): string {
  const parts = [
    ...(unreadable > 0 ? [`${plural(unreadable, 'bucket')} unreadable`] : []),
    ...(partly > 0 ? [`${unreadable > 0 ? partly : plural(partly, 'bucket')} partly unreadable`] : []),
  ];
  return parts.length > 0 ? `; ${parts.join(', ')}` : '';
}

/**
 * What the summary says when the account-level Block Public Access could not be
 * read: every bucket's exposure leans on it, so it is said, not left in the value.
 */
function accountBlockNote(account: PublicAccessBlockState): string {
  if (account.status !== 'unknown') return '';
  return `; account-level Block Public Access unknown (${account.error?.code ?? 'not read'})`;
}

/** Counts of buckets by a setting's status (`{ enabled: 12, none: 1, unknown: 1 }`). */
type StatusCounts = Record<string, number>;

/** What `aws_s3_inventory` returns. */
export interface S3InventoryValue {
  readonly accountId: string;
  /** Block Public Access of the account (S3 Control), on top of each bucket's own. */
  readonly accountPublicAccessBlock: PublicAccessBlockState;
  /** Buckets ListBuckets returned. */
  readonly totalBuckets: number;
  /** Buckets whose settings were read (the rest were skipped at the deadline). */
  readonly bucketsRead: number;
  /** Buckets with at least one setting unreadable (its error is on the bucket), `bucketsUnreadable` included. */
  readonly bucketsWithErrors: number;
  /** Buckets of which nothing was read: the region, or all four settings, failed. */
  readonly bucketsUnreadable: number;
  readonly byRegion: StatusCounts;
  readonly encryption: StatusCounts;
  readonly publicAccessBlock: StatusCounts;
  readonly versioning: StatusCounts;
  readonly policy: StatusCounts;
  /** Buckets by exposure verdict: `public`, `blocked` (public grants held back by Block Public Access), `not_public`, `unknown`. */
  readonly exposure: StatusCounts;
  /** Access points of the account's buckets, by region; a region whose listing failed carries its error. */
  readonly accessPoints: ({
    readonly region: string;
    readonly count?: number;
    readonly error?: ToolErrorInfo;
  } & ReturnType<typeof stopFields>)[];
  /** Bucket names ListBuckets answered twice (counted once). */
  readonly duplicatesSkipped: number;
  /** Enum values this tool does not know, by `field:value` (never taken for a safe value). */
  readonly unrecognizedValues: UnrecognizedValues;
  /** The first topN buckets: worst finding first, then buckets with errors, then by name. */
  readonly buckets: BucketReport[];
  readonly findings: FindingsSummary;
  /** ListBuckets pages read, and why reading stopped early if it did (with the token to resume from). */
  readonly listing: { readonly pages: number } & ReturnType<typeof stopFields>;
  /** Buckets listed but not read because the deadline passed. */
  readonly skippedBuckets: number;
}

/** A bucket with its findings, for ranking: worst finding first, then buckets with errors, then by name. */
interface RankedBucket {
  readonly bucket: BucketReport;
  readonly worst: number;
  readonly failed: boolean;
}

function byRisk(a: RankedBucket, b: RankedBucket): number {
  return (
    a.worst - b.worst || Number(b.failed) - Number(a.failed) || compareText(a.bucket.name, b.bucket.name)
  );
}

/** `aws_s3_inventory` with its handler. */
export const s3InventoryTool = defineTool(s3InventorySpec, async (ctx, args) => {
  const access = await ctx.aws();
  // Fails the call once with auth_failed when the credentials are bad, before any bucket is read.
  const { accountId, partition } = await callerAccount(access);
  const describeError = (err: unknown) => normalizeError(ctx.tool, err, 's3');
  const home = new S3Client(awsClientConfig(access));
  const regional = new Map<string, S3Client>([[access.region, home]]);
  const clientFor = (region: string): S3Client => {
    let client = regional.get(region);
    if (!client) {
      client = new S3Client(awsClientConfig(access, region));
      regional.set(region, client);
    }
    return client;
  };

  const [listing, account] = await Promise.all([
    listBuckets(home, ctx.deadline),
    readAccountPublicAccessBlock(s3ControlClient(awsClientConfig(access)), accountId).catch(
      (err): PublicAccessBlockState => ({ ...PUBLIC_ACCESS_BLOCK_UNKNOWN, error: describeError(err) }),
    ),
  ]);
  const unrecognizedValues: UnrecognizedValues = {};
  const { settled, skipped } = await mapBounded(
    listing.buckets,
    (bucket) =>
      readBucket(
        { home, clientFor, partition, describeError, account, unrecognized: unrecognizedValues },
        bucket,
      ),
    { concurrency: BUCKET_CONCURRENCY, deadline: ctx.deadline },
  );
  const read: BucketSettings[] = settled.map((outcome) => {
    if (!outcome.ok) throw outcome.error; // readBucket records its errors on the bucket and never throws
    return outcome.value;
  });

  // Access points, listed once per region that holds a bucket of the account.
  const bucketsByRegion = new Map<string, Set<string>>();
  for (const bucket of read) {
    if (bucket.region)
      bucketsByRegion.set(bucket.region, (bucketsByRegion.get(bucket.region) ?? new Set()).add(bucket.name));
  }
  const listedPoints = await mapBounded(
    [...bucketsByRegion],
    ([region, names]) =>
      readRegionAccessPoints({
        client: s3ControlClient(awsClientConfig(access, region)),
        accountId,
        buckets: names,
        deadline: ctx.deadline,
        describeError,
        unrecognized: unrecognizedValues,
      }),
    { concurrency: REGION_CONCURRENCY, deadline: ctx.deadline },
  );
  const accessPointsByRegion = new Map<string, RegionAccessPoints>();
  for (const outcome of listedPoints.settled) {
    if (!outcome.ok) throw outcome.error; // readRegionAccessPoints never throws
    accessPointsByRegion.set(outcome.item[0], outcome.value);
  }

  const findings: Finding[] = accountFindings(account, accountId);
  const ranked: RankedBucket[] = [];
  const counts: Record<
    'byRegion' | 'encryption' | 'publicAccessBlock' | 'versioning' | 'policy' | 'exposure',
    StatusCounts
  > = {
    byRegion: {},
    encryption: {},
    publicAccessBlock: {},
    versioning: {},
    policy: {},
    exposure: {},
  };
  for (const settings of read) {
    const points = settings.region ? accessPointsByRegion.get(settings.region) : undefined;
    // A region skipped at the deadline, or whose listing failed, leaves access-point exposure unknown.
    const accessPoints = points?.ok
      ? points.accessPoints.filter((p) => p.bucket === settings.name)
      : 'unknown';
    const bucket: BucketReport = {
      ...settings,
      accessPoints: accessPoints === 'unknown' ? [] : accessPoints,
      exposure: settings.error ? EXPOSURE_UNKNOWN : bucketExposure(settings, account, accessPoints),
    };
    const own = bucketFindings(bucket, account, accountId);
    findings.push(...own);
    const worst = worstSeverityRank(own);
    ranked.push({ bucket, worst, failed: hasError(bucket) });
    increment(counts.byRegion, bucket.region ?? 'unknown');
    increment(counts.encryption, bucket.encryption.status);
    increment(counts.publicAccessBlock, bucket.publicAccessBlock.status);
    increment(counts.versioning, bucket.versioning.status);
    increment(counts.policy, bucket.policy.status);
    increment(counts.exposure, bucket.exposure.verdict);
  }

  const summary = summarizeFindings(findings, args.topN);
  const failed = ranked.filter((r) => r.failed).length;
  const unreadable = ranked.filter((r) => isUnreadable(r.bucket)).length;
  const accessPointsStopped = [...accessPointsByRegion.values()].some(
    (r) => r.ok && r.stoppedBy !== undefined,
  );
  const truncated =
    listing.read.stoppedBy !== undefined ||
    skipped.length > 0 ||
    listedPoints.skipped.length > 0 ||
    accessPointsStopped;
  const total = listing.buckets.length;
  const regions = Object.keys(counts.byRegion).filter((r) => r !== 'unknown').length;
  const value: S3InventoryValue = {
    accountId,
    accountPublicAccessBlock: account,
    totalBuckets: total,
    bucketsRead: ranked.length,
    bucketsWithErrors: failed,
    bucketsUnreadable: unreadable,
    ...counts,
    accessPoints: [...bucketsByRegion.keys()].map((region) => {
      const points = accessPointsByRegion.get(region);
      if (!points)
        return {
          region,
          error: { code: 'timeout', message: 'Not listed: the deadline passed', retryable: true },
        };
      return points.ok
        ? { region, count: points.accessPoints.length, ...stopFields({ pages: 0, ...points }) }
        : { region, error: points.error };
    }),
    duplicatesSkipped: listing.duplicates,
    unrecognizedValues,
    buckets: ranked
      .sort(byRisk)
      .slice(0, args.topN)
      .map((r) => r.bucket),
    findings: summary,
    listing: {
      pages: listing.read.pages,
      ...stopFields(listing.read),
    },
    skippedBuckets: skipped.length,
  };
  return {
    value,
    truncated,
    summary:
      `${plural(total, 'S3 bucket')} in ${plural(regions, 'region')}: ` +
      `${counts.exposure.public ?? 0} public (ACL, policy or access point)` +
      `${counts.exposure.blocked ? `, ${counts.exposure.blocked} held back only by Block Public Access` : ''}` +
      `${counts.exposure.unknown ? `, ${counts.exposure.unknown} of unknown exposure` : ''}, ` +
      `${counts.encryption.none ?? 0} without default encryption; ` +
      `${plural(summary.total, 'finding')} (${summary.bySeverity.critical} critical, ` +
      `${summary.bySeverity.high} high)${readErrorsNote(unreadable, failed - unreadable)}` +
      `${accountBlockNote(account)}${truncated ? '; partial' : ''}${unrecognizedNote(unrecognizedValues)}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(s3InventoryTool);
