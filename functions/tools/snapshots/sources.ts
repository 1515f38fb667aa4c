/**
 * Finding the snapshot sources of an account: EBS snapshots per region
 * (DescribeSnapshots of the account's own, plus the public ones in one filtered
 * call), and S3 Inventory configurations per bucket (ListBuckets, then
 * ListBucketInventoryConfigurations per bucket in its own region).
 */
import type { Snapshot } from '@aws-sdk/client-ec2';
import { paginateListBuckets } from '@aws-sdk/client-s3';
import type { AwsAccess } from '../../runtime/aws/credentials';
import { readPages } from '../../runtime/aws/pagination';
import { mapBounded } from '../../runtime/concurrency';
import type { Deadline } from '../../runtime/deadline';
import { normalizeError } from '../../runtime/normalize-error';
import type { ToolErrorInfo } from '../../runtime/result';
import type { SnapshotClients } from './clients';
import { SNAPSHOT_PAGE_SIZE } from './ebs';
import {
  type InventoryConfigurationView,
  listInventoryConfigurations,
  readInventoryConfiguration,
} from './inventory/configuration';
import { ec2Sdk } from './lazy-sdk';

/**
 * Page caps, in pages of {@link SNAPSHOT_PAGE_SIZE} snapshots or 1,000 buckets:
 * 100,000 of the account's snapshots per region, 10,000 public ones (already an
 * incident), 10,000 buckets (the default quota; S3 User Guide, "Bucket quotas").
 * Beyond, listings are marked truncated.
 */
const MAX_PAGES = { snapshots: 100, publicSnapshots: 10, buckets: 10 } as const;
/** Buckets whose inventory configurations are read at once. */
const BUCKET_CONCURRENCY = 8;

/** The account's snapshots in one region. */
export interface RegionSnapshots {
  readonly snapshots: Snapshot[];
  /** Ids of those restorable by anyone. */
  readonly publicIds: ReadonlySet<string>;
  /** The page cap or the deadline left snapshots unlisted. */
  readonly truncated: boolean;
}

/**
 * The account's own EBS snapshots in `region` (of one volume when given), and
 * which are public (`RestorableByUserIds: ['all']`, EC2 API reference,
 * "DescribeSnapshots").
 *
 * @throws the SDK's errors (the caller's fan-out records them per region).
 */
export async function regionSnapshots(
  clients: SnapshotClients,
  access: AwsAccess,
  region: string,
  deadline: Deadline,
  volumeId?: string,
): Promise<RegionSnapshots> {
  const ec2 = clients.ec2(access, region);
  const filters = volumeId ? [{ Name: 'volume-id', Values: [volumeId] }] : undefined;
  const snapshots: Snapshot[] = [];
  const read = await readPages(
    ec2Sdk().paginateDescribeSnapshots(
      { client: ec2, pageSize: SNAPSHOT_PAGE_SIZE },
      { OwnerIds: ['self'], Filters: filters },
    ),
    (page) => snapshots.push(...(page.Snapshots ?? [])),
    { maxPages: MAX_PAGES.snapshots, deadline },
  );
  const publicIds = new Set<string>();
  const publicRead = await readPages(
    ec2Sdk().paginateDescribeSnapshots(
      { client: ec2, pageSize: SNAPSHOT_PAGE_SIZE },
      { OwnerIds: ['self'], RestorableByUserIds: ['all'], Filters: filters },
    ),
    (page) => {
      for (const snapshot of page.Snapshots ?? [])
        if (snapshot.SnapshotId) publicIds.add(snapshot.SnapshotId);
    },
    { maxPages: MAX_PAGES.publicSnapshots, deadline },
  );
  return {
    snapshots,
    publicIds,
    truncated: read.stoppedBy !== undefined || publicRead.stoppedBy !== undefined,
  };
}

/** A bucket whose configurations could not be read. */
export interface BucketError {
  readonly bucket: string;
  readonly error: ToolErrorInfo;
}

/** What {@link findInventoryConfigurations} found. */
export interface FoundConfigurations {
  readonly configurations: InventoryConfigurationView[];
  readonly errors: BucketError[];
  /** Buckets left unread (page cap, deadline). */
  readonly truncated: boolean;
}

/** Which configurations to find: one, every one of a bucket, or every one of every bucket. */
export interface ConfigurationFilter {
  readonly bucket?: string;
  readonly configurationId?: string;
}

/**
 * The inventory configurations the filter names. A named configuration that
 * does not exist fails (`not_found`, listing the bucket's); a bucket whose
 * configurations cannot be read is recorded in `errors` when scanning every
 * bucket, and fails the call when it was the one asked for.
 *
 * @param tool - for error normalization.
 */
export async function findInventoryConfigurations(
  clients: SnapshotClients,
  access: AwsAccess,
  filter: ConfigurationFilter,
  deadline: Deadline,
  tool: string,
): Promise<FoundConfigurations> {
  if (filter.bucket) {
    const s3 = clients.s3(access, access.region);
    const configurations = filter.configurationId
      ? [await readInventoryConfiguration(s3, filter.bucket, filter.configurationId, deadline)]
      : await listInventoryConfigurations(s3, filter.bucket, deadline);
    return { configurations, errors: [], truncated: false };
  }
  const s3 = clients.s3(access, access.region);
  const buckets: { name: string; region: string }[] = [];
  const read = await readPages(
    paginateListBuckets({ client: s3, pageSize: 1000 }, {}),
    (page) => {
      for (const bucket of page.Buckets ?? []) {
        if (bucket.Name) buckets.push({ name: bucket.Name, region: bucket.BucketRegion || access.region });
      }
    },
    // ListBuckets answers its next token as ContinuationToken (see readPages).
    { maxPages: MAX_PAGES.buckets, deadline, nextToken: (page) => page.ContinuationToken },
  );
  const { settled, skipped } = await mapBounded(
    buckets,
    (bucket) => listInventoryConfigurations(clients.s3(access, bucket.region), bucket.name, deadline),
    { concurrency: BUCKET_CONCURRENCY, deadline },
  );
  const configurations: InventoryConfigurationView[] = [];
  const errors: BucketError[] = [];
  for (const outcome of settled) {
    if (outcome.ok) configurations.push(...outcome.value);
    else errors.push({ bucket: outcome.item.name, error: normalizeError(tool, outcome.error, 's3') });
  }
  return { configurations, errors, truncated: read.stoppedBy !== undefined || skipped.length > 0 };
}
