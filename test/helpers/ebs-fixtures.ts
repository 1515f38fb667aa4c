/**
 * EC2 and EBS direct API responses shaped as AWS documents them, for the
 * snapshot tools' unit tests (SDK v3 shapes: timestamps as Date).
 *
 * - DescribeSnapshots: the AWS CLI example "To describe a snapshot" (EC2 API
 *   reference / AWS CLI reference, `describe-snapshots`), fields and values kept.
 * - ListSnapshotBlocks / ListChangedBlocks: the examples of the EBS User Guide,
 *   "Use EBS direct APIs to read snapshots" (`aws ebs list-snapshot-blocks`,
 *   `aws ebs list-changed-blocks`): BlockSize 524288, VolumeSize 32, block
 *   tokens of that form, pages with NextToken.
 */
import type {
  ChangedBlock,
  ListChangedBlocksCommandOutput,
  ListSnapshotBlocksCommandOutput,
} from '@aws-sdk/client-ebs';
import type { Snapshot } from '@aws-sdk/client-ec2';

/** The documented DescribeSnapshots example snapshot. */
export const DOCUMENTED_SNAPSHOT: Snapshot = {
  Description: 'This is my snapshot',
  Encrypted: false,
  VolumeId: 'vol-049df61146c4d7901',
  State: 'completed',
  VolumeSize: 8,
  StartTime: new Date('2019-02-28T21:28:32.000Z'),
  Progress: '100%',
  OwnerId: '012345678910',
  SnapshotId: 'snap-01234567890abcdef',
  Tags: [{ Key: 'Stack', Value: 'test' }],
};

/** The block tokens of the documented examples: capabilities for GetSnapshotBlock that must never leave a tool. */
export const DOCUMENTED_BLOCK_TOKENS = [
  'AAABAV3/PNhXOynVdMYHUpPsetaSvjLB1dtIGfbJv5OJ0sX855EzGTWos4a4',
  'AAABATGQIgwr0WwIuqIMjCA/Sy7e/YoQFZsHejzGNvjKauzNgzeI13YHBfQB',
  'AAABAZ9CTuQtUvp/dXqRWw4d07eOgTZ3jvn6hiW30W9duM8MiMw6yQayzF2c',
  'AAABAQdzxhw0rVV6PNmsfo/YRIxo9JPR85XxPf1BLjg0Hec6pygYr6laE1p0',
  'AAABAZA0HdnIx/WTuNqY3VMEJ4iOE0gVgjd6hGIUyTkdqmCdwhCj74fhQnOo',
];

/** The documented next-page token form. */
export const DOCUMENTED_NEXT_TOKEN =
  'AAADARqElNng/sV98CYk/bJDCXeLJmLJHnNSkHvLzVaO0zsPH/QM3Bi3zF//O6Mdi/BbJarBnp8h';

const METADATA = {
  $metadata: {
    httpStatusCode: 200,
    requestId: 'c1d2e3f4-0000-4000-8000-00000000abcd',
    attempts: 1,
    totalRetryDelay: 0,
  },
};

/** A snapshot of the documented shape with another id, volume and time. */
export function snapshotOf(
  id: string,
  volumeId: string,
  startTime: string,
  overrides: Partial<Snapshot> = {},
): Snapshot {
  return {
    ...DOCUMENTED_SNAPSHOT,
    SnapshotId: id,
    VolumeId: volumeId,
    StartTime: new Date(startTime),
    ...overrides,
  };
}

/** A ListSnapshotBlocks page of `count` blocks from `first`, as documented. */
export function snapshotBlocksPage(
  first: number,
  count: number,
  nextToken?: string,
): ListSnapshotBlocksCommandOutput {
  return {
    ...METADATA,
    Blocks: Array.from({ length: count }, (_, i) => ({
      BlockIndex: first + i,
      BlockToken: DOCUMENTED_BLOCK_TOKENS[i % DOCUMENTED_BLOCK_TOKENS.length],
    })),
    VolumeSize: 32,
    BlockSize: 524_288,
    ExpiryTime: new Date(1_576_287_332_806),
    ...(nextToken ? { NextToken: nextToken } : {}),
  };
}

/** A ListChangedBlocks page: `changed` blocks in both snapshots, `added` only in the second, `removed` only in the first. */
export function changedBlocksPage(
  counts: {
    readonly changed?: number;
    readonly added?: number;
    readonly removed?: number;
    readonly first?: number;
  },
  nextToken?: string,
): ListChangedBlocksCommandOutput {
  const blocks: ChangedBlock[] = [];
  let index = counts.first ?? 0;
  const token = (i: number) => DOCUMENTED_BLOCK_TOKENS[i % DOCUMENTED_BLOCK_TOKENS.length] as string;
  for (let i = 0; i < (counts.changed ?? 0); i++) {
    blocks.push({ BlockIndex: index++, FirstBlockToken: token(i), SecondBlockToken: token(i + 1) });
  }
  for (let i = 0; i < (counts.added ?? 0); i++)
    blocks.push({ BlockIndex: index++, SecondBlockToken: token(i) });
  for (let i = 0; i < (counts.removed ?? 0); i++)
    blocks.push({ BlockIndex: index++, FirstBlockToken: token(i) });
  return {
    ...METADATA,
    BlockSize: 524_288,
    ChangedBlocks: blocks,
    ExpiryTime: new Date(1_576_308_931_973),
    VolumeSize: 32,
    ...(nextToken ? { NextToken: nextToken } : {}),
  };
}
