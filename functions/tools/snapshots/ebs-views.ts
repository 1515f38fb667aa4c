/**
 * The EBS side of `snapshot_stats` and `diff_snapshots`: block counts and
 * changed blocks of snapshots of one volume lineage, through the EBS direct
 * APIs' list calls only.
 */
import type { EBSClient } from '@aws-sdk/client-ebs';
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { Deadline } from '../../runtime/deadline';
import { InvalidArgsError } from '../../runtime/errors';
import {
  countSnapshotBlocks,
  describeSnapshot,
  listChangedBlocks,
  PLACEHOLDER_VOLUME,
  previousSnapshot,
  requireListable,
  sourceOfSnapshot,
} from './ebs';
import { type EbsSnapshotRef, ebsSnapshotId } from './ids';
import { inService } from './service';

/** Block indexes kept per sample. */
const BLOCK_SAMPLE_SIZE = 10;

/** Why an EBS snapshot has no file histogram, said in every EBS result. */
export const EBS_NO_FILES_NOTE =
  'An EBS snapshot is a set of blocks: listing its files would mean reading their content, which these tools never do, ' +
  'so files and file_type_histogram are null. Figures are written blocks × block size.';

/** What `snapshot_stats` returns for an EBS snapshot. */
export interface EbsStats {
  readonly id: string;
  readonly kind: 'ebs';
  readonly source: string | null;
  readonly time: string | null;
  readonly files: null;
  /** Written blocks × block size. */
  readonly bytes: number;
  /** Blocks new or changed since the previous snapshot of the volume × block size (all bytes for a first snapshot). */
  readonly new_bytes: number;
  readonly file_type_histogram: null;
  readonly blocks: number;
  readonly blockSize: number;
  readonly volumeSizeGiB: number | null;
  readonly changedBlocks: number | null;
  readonly baseline: { readonly id: string; readonly time: string | null } | null;
  readonly note: string;
}

/**
 * `snapshot_stats` of an EBS snapshot: ListSnapshotBlocks for its blocks,
 * ListChangedBlocks against the previous completed snapshot of its volume.
 *
 * @throws InvalidArgsError for a snapshot not completed or archived; the SDK's errors otherwise.
 */
export async function ebsStats(
  ec2: EC2Client,
  ebs: EBSClient,
  ref: EbsSnapshotRef,
  deadline: Deadline,
): Promise<{ readonly value: EbsStats; readonly truncated: boolean }> {
  const snapshot = await inService('ec2', () => describeSnapshot(ec2, ref.region, ref.snapshotId, deadline));
  requireListable(snapshot, ref.region);
  const blocks = await inService('ebs', () => countSnapshotBlocks(ebs, ref.snapshotId, deadline));
  const previous = await inService('ec2', () => previousSnapshot(ec2, snapshot, deadline));
  const first = previous?.SnapshotId;
  const changed = first
    ? await inService('ebs', () => listChangedBlocks(ebs, first, ref.snapshotId, deadline, 0))
    : undefined;
  const newBlocks = changed ? changed.changed + changed.added : blocks.blocks;
  return {
    value: {
      id: ebsSnapshotId(ref.region, ref.snapshotId),
      kind: 'ebs',
      source: sourceOfSnapshot(snapshot, ref.region),
      time: snapshot.StartTime?.toISOString() ?? null,
      files: null,
      bytes: blocks.blocks * blocks.blockSize,
      new_bytes: newBlocks * blocks.blockSize,
      file_type_histogram: null,
      blocks: blocks.blocks,
      blockSize: blocks.blockSize,
      volumeSizeGiB: blocks.volumeSizeGiB ?? snapshot.VolumeSize ?? null,
      changedBlocks: changed ? newBlocks : null,
      baseline: previous?.SnapshotId
        ? {
            id: ebsSnapshotId(ref.region, previous.SnapshotId),
            time: previous.StartTime?.toISOString() ?? null,
          }
        : null,
      note: previous
        ? EBS_NO_FILES_NOTE
        : `${EBS_NO_FILES_NOTE} No earlier completed snapshot of this volume: every block counts as new.`,
    },
    truncated: blocks.truncated || (changed?.truncated ?? false),
  };
}

/** What `diff_snapshots` returns for two EBS snapshots. */
export interface EbsDiff {
  readonly kind: 'ebs';
  readonly a: string;
  readonly b: string;
  readonly source: string | null;
  readonly blockSize: number;
  /** Blocks only in b / only in a / in both with other data; bytes = blocks × block size; sample block indexes. */
  readonly added: { readonly blocks: number; readonly bytes: number; readonly sampleBlockIndexes: number[] };
  readonly removed: {
    readonly blocks: number;
    readonly bytes: number;
    readonly sampleBlockIndexes: number[];
  };
  readonly changed: {
    readonly blocks: number;
    readonly bytes: number;
    readonly sampleBlockIndexes: number[];
  };
  readonly note: string;
}

/**
 * `diff_snapshots` of two EBS snapshots of one volume (ListChangedBlocks).
 *
 * @throws InvalidArgsError when they belong to different volumes, or one is not listable.
 */
export async function ebsDiff(
  ec2: EC2Client,
  ebs: EBSClient,
  a: EbsSnapshotRef,
  b: EbsSnapshotRef,
  deadline: Deadline,
): Promise<{ readonly value: EbsDiff; readonly truncated: boolean }> {
  const [first, second] = await inService('ec2', () =>
    Promise.all([
      describeSnapshot(ec2, a.region, a.snapshotId, deadline),
      describeSnapshot(ec2, b.region, b.snapshotId, deadline),
    ]),
  );
  requireListable(first, a.region);
  requireListable(second, b.region);
  const volumes = [first.VolumeId, second.VolumeId];
  // A copy names the placeholder volume: its lineage is unknown here, and ListChangedBlocks decides.
  if (!volumes.includes(PLACEHOLDER_VOLUME) && first.VolumeId !== second.VolumeId) {
    throw new InvalidArgsError(
      `diff_snapshots compares snapshots of one volume: ${ebsSnapshotId(a.region, a.snapshotId)} is of ${first.VolumeId} ` +
        `and ${ebsSnapshotId(b.region, b.snapshotId)} of ${second.VolumeId}`,
    );
  }
  const changed = await inService('ebs', () =>
    listChangedBlocks(ebs, a.snapshotId, b.snapshotId, deadline, BLOCK_SAMPLE_SIZE),
  );
  const part = (blocks: number, samples: number[]) => ({
    blocks,
    bytes: blocks * changed.blockSize,
    sampleBlockIndexes: samples,
  });
  return {
    value: {
      kind: 'ebs',
      a: ebsSnapshotId(a.region, a.snapshotId),
      b: ebsSnapshotId(b.region, b.snapshotId),
      source: sourceOfSnapshot(second, b.region) ?? sourceOfSnapshot(first, a.region),
      blockSize: changed.blockSize,
      added: part(changed.added, changed.samples.added),
      removed: part(changed.removed, changed.samples.removed),
      changed: part(changed.changed, changed.samples.changed),
      note: 'Blocks, not files: the EBS direct APIs list which blocks differ; what they hold is never read.',
    },
    truncated: changed.truncated,
  };
}
