/**
 * EBS snapshots: their metadata (EC2 DescribeSnapshots) and their blocks
 * through the EBS direct APIs' list calls, ListSnapshotBlocks and
 * ListChangedBlocks, which return block indexes and block tokens. A token is
 * what GetSnapshotBlock (content) would take: tokens are counted and dropped
 * here, never kept or returned, and GetSnapshotBlock is denied to the tools'
 * roles (iam.ts).
 */
import type { EBSClient } from '@aws-sdk/client-ebs';
import type { EC2Client, Snapshot } from '@aws-sdk/client-ec2';
import { readPages } from '../../runtime/aws/pagination';
import type { Deadline } from '../../runtime/deadline';
import { InvalidArgsError, PlatformError } from '../../runtime/errors';
import { ebsSnapshotId, ebsSourceId } from './ids';
import { ebsSdk, ec2Sdk } from './lazy-sdk';

/** ListSnapshotBlocks / ListChangedBlocks return at most 10,000 blocks a page (EBS direct APIs reference, MaxResults). */
const BLOCK_PAGE_SIZE = 10_000;
/** 3,300 pages × 10,000 blocks × 512 KiB covers a 16 TiB volume, the largest gp3 (EBS User Guide, "Volume types"). */
const MAX_BLOCK_PAGES = 3_300;
/** DescribeSnapshots returns at most 1,000 a page (EC2 API reference, "DescribeSnapshots", MaxResults). */
export const SNAPSHOT_PAGE_SIZE = 1000;
/** Snapshots of one volume read at most: 20 pages, 20,000. */
const MAX_VOLUME_SNAPSHOT_PAGES = 20;
/** The block size the EBS direct APIs report today (512 KiB), used only when a response omits it. */
const DEFAULT_BLOCK_SIZE = 524_288;
/** Copied snapshots name this placeholder volume (EC2 User Guide, "Copy an Amazon EBS snapshot"). */
export const PLACEHOLDER_VOLUME = 'vol-ffffffff';

/**
 * A snapshot's metadata.
 *
 * @throws PlatformError (`not_found`) when no snapshot has the id (EC2 `InvalidSnapshot.NotFound` is also mapped so).
 */
export async function describeSnapshot(
  ec2: EC2Client,
  region: string,
  snapshotId: string,
  deadline: Deadline,
): Promise<Snapshot> {
  const out = await ec2.send(new (ec2Sdk().DescribeSnapshotsCommand)({ SnapshotIds: [snapshotId] }), {
    abortSignal: deadline.signal,
  });
  const snapshot = out.Snapshots?.[0];
  if (!snapshot) {
    throw new PlatformError('not_found', `No EBS snapshot ${snapshotId} in ${region}`, { service: 'ec2' });
  }
  return snapshot;
}

/**
 * Refuses snapshots the EBS direct APIs cannot list: not `completed`, or archived.
 *
 * @throws InvalidArgsError naming the state.
 */
export function requireListable(snapshot: Snapshot, region: string): void {
  const id = ebsSnapshotId(region, snapshot.SnapshotId ?? '');
  if (snapshot.State !== 'completed') {
    throw new InvalidArgsError(
      `EBS snapshot ${id} is ${snapshot.State ?? 'in an unknown state'}; its blocks can be listed once it is completed`,
    );
  }
  if (snapshot.StorageTier === 'archive') {
    throw new InvalidArgsError(
      `EBS snapshot ${id} is archived; the EBS direct APIs list only standard-tier snapshots (restore it first)`,
    );
  }
}

/**
 * The snapshots of one volume owned by the account, oldest first.
 *
 * @returns the snapshots and whether the page cap or deadline cut the listing.
 */
export async function snapshotsOfVolume(
  ec2: EC2Client,
  volumeId: string,
  deadline: Deadline,
): Promise<{ readonly snapshots: Snapshot[]; readonly truncated: boolean }> {
  const snapshots: Snapshot[] = [];
  const read = await readPages(
    ec2Sdk().paginateDescribeSnapshots(
      { client: ec2, pageSize: SNAPSHOT_PAGE_SIZE },
      { OwnerIds: ['self'], Filters: [{ Name: 'volume-id', Values: [volumeId] }] },
    ),
    (page) => snapshots.push(...(page.Snapshots ?? [])),
    { maxPages: MAX_VOLUME_SNAPSHOT_PAGES, deadline },
  );
  return { snapshots: snapshots.sort(byStartTime), truncated: read.stoppedBy !== undefined };
}

/** Orders snapshots by start time, oldest first (ties by id). */
export function byStartTime(a: Snapshot, b: Snapshot): number {
  return (
    (a.StartTime?.getTime() ?? 0) - (b.StartTime?.getTime() ?? 0) ||
    (a.SnapshotId ?? '').localeCompare(b.SnapshotId ?? '')
  );
}

/**
 * The newest completed snapshot of the same volume taken before `snapshot`, or
 * undefined (the first snapshot, or a copy whose volume is the placeholder).
 */
export async function previousSnapshot(
  ec2: EC2Client,
  snapshot: Snapshot,
  deadline: Deadline,
): Promise<Snapshot | undefined> {
  const volumeId = snapshot.VolumeId;
  if (!volumeId || volumeId === PLACEHOLDER_VOLUME) return undefined;
  const { snapshots } = await snapshotsOfVolume(ec2, volumeId, deadline);
  const before = snapshots.filter(
    (s) => s.State === 'completed' && s.StorageTier !== 'archive' && byStartTime(s, snapshot) < 0,
  );
  return before.at(-1);
}

/** What ListSnapshotBlocks says of a snapshot. */
export interface SnapshotBlocks {
  readonly blocks: number;
  readonly blockSize: number;
  readonly volumeSizeGiB: number | null;
  /** Set when the page cap or deadline stopped the listing: counts are then lower bounds. */
  readonly truncated: boolean;
}

/**
 * Counts a snapshot's written blocks (ListSnapshotBlocks, paginated). Pages may
 * be empty and still carry a next token (EBS direct APIs reference); reading
 * goes on until a page has none.
 */
export async function countSnapshotBlocks(
  ebs: EBSClient,
  snapshotId: string,
  deadline: Deadline,
): Promise<SnapshotBlocks> {
  let blocks = 0;
  let blockSize = 0;
  let volumeSizeGiB: number | null = null;
  const read = await readPages(
    ebsSdk().paginateListSnapshotBlocks(
      { client: ebs, pageSize: BLOCK_PAGE_SIZE },
      { SnapshotId: snapshotId },
    ),
    (page) => {
      blocks += page.Blocks?.length ?? 0;
      blockSize ||= page.BlockSize ?? 0;
      volumeSizeGiB ??= page.VolumeSize ?? null;
    },
    { maxPages: MAX_BLOCK_PAGES, deadline },
  );
  return {
    blocks,
    blockSize: blockSize || DEFAULT_BLOCK_SIZE,
    volumeSizeGiB,
    truncated: read.stoppedBy !== undefined,
  };
}

/** What ListChangedBlocks says of two snapshots of one lineage. */
export interface ChangedBlocks {
  /** Blocks in both, different: both tokens present. */
  readonly changed: number;
  /** Blocks only in the second: no first token. */
  readonly added: number;
  /** Blocks only in the first: no second token. */
  readonly removed: number;
  readonly blockSize: number;
  readonly volumeSizeGiB: number | null;
  /** The first block indexes of each kind (ascending), at most `sampleSize`. */
  readonly samples: { readonly changed: number[]; readonly added: number[]; readonly removed: number[] };
  readonly truncated: boolean;
}

/**
 * Tallies the blocks that differ between two snapshots of one volume lineage
 * (ListChangedBlocks, paginated). ChangedBlock: "FirstBlockToken … is absent if
 * the first snapshot does not have the changed block that is on the second
 * snapshot" (EBS direct APIs reference, "ChangedBlock").
 *
 * @throws the SDK's errors; ValidationException (`UNRELATED_SNAPSHOTS`) maps to `invalid_args`.
 */
export async function listChangedBlocks(
  ebs: EBSClient,
  first: string,
  second: string,
  deadline: Deadline,
  sampleSize: number,
): Promise<ChangedBlocks> {
  const tally = { changed: 0, added: 0, removed: 0 };
  const samples = { changed: [] as number[], added: [] as number[], removed: [] as number[] };
  let blockSize = 0;
  let volumeSizeGiB: number | null = null;
  const read = await readPages(
    ebsSdk().paginateListChangedBlocks(
      { client: ebs, pageSize: BLOCK_PAGE_SIZE },
      { FirstSnapshotId: first, SecondSnapshotId: second },
    ),
    (page) => {
      blockSize ||= page.BlockSize ?? 0;
      volumeSizeGiB ??= page.VolumeSize ?? null;
      for (const block of page.ChangedBlocks ?? []) {
        const kind = block.FirstBlockToken ? (block.SecondBlockToken ? 'changed' : 'removed') : 'added';
        tally[kind]++;
        if (samples[kind].length < sampleSize && block.BlockIndex !== undefined)
          samples[kind].push(block.BlockIndex);
      }
    },
    { maxPages: MAX_BLOCK_PAGES, deadline },
  );
  return {
    ...tally,
    blockSize: blockSize || DEFAULT_BLOCK_SIZE,
    volumeSizeGiB,
    samples,
    truncated: read.stoppedBy !== undefined,
  };
}

/** The source id of a snapshot's volume, or null for a copy (placeholder volume). */
export function sourceOfSnapshot(snapshot: Snapshot, region: string): string | null {
  const volumeId = snapshot.VolumeId;
  return volumeId && volumeId !== PLACEHOLDER_VOLUME ? ebsSourceId(region, volumeId) : null;
}
