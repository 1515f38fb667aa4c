/**
 * An EBS volume's recent history for the scan: the blocks that changed
 * between consecutive completed snapshots (ListChangedBlocks), plus every
 * snapshot's encryption and public flag.
 */
import type { EBSClient } from '@aws-sdk/client-ebs';
import type { Snapshot } from '@aws-sdk/client-ec2';
import type { Deadline } from '../../../runtime/deadline';
import { listChangedBlocks } from '../ebs';
import type { ChangeStep, SnapshotFacts, SourceHistory } from '../findings/history';
import { median } from '../findings/history';
import type { SnapshotThresholds } from '../findings/thresholds';
import { ebsSnapshotId, ebsSourceId } from '../ids';
import { inService } from '../service';
import { chainOf, type HistoryResult } from './chain';

/** Block indexes kept per step as evidence. */
const BLOCK_SAMPLES = 10;
/** Gaps between snapshots the usual interval is the median of. */
const INTERVAL_GAPS = 10;
const HOUR_MS = 3_600_000;
const GIB = 1024 ** 3;

function factsOf(snapshot: Snapshot, region: string, publicIds: ReadonlySet<string>): SnapshotFacts {
  const id = snapshot.SnapshotId ?? 'unknown';
  return {
    id: ebsSnapshotId(region, id),
    name: id,
    timeMs: snapshot.StartTime?.getTime() ?? 0,
    encrypted: snapshot.Encrypted ?? null,
    public: publicIds.has(id),
  };
}

/** The median gap between the last {@link INTERVAL_GAPS} + 1 snapshots, in hours; null with fewer than 2. */
function usualIntervalHours(facts: readonly SnapshotFacts[]): number | null {
  const recent = facts.slice(-(INTERVAL_GAPS + 1));
  if (recent.length < 2) return null;
  const gaps = recent.slice(1).map((s, i) => (s.timeMs - (recent[i] as SnapshotFacts).timeMs) / HOUR_MS);
  return median(gaps);
}

/**
 * Reads a volume's history from its snapshots (all of them, any order).
 *
 * @throws the EBS direct APIs' errors (the scan records them on the source).
 */
export async function ebsHistory(
  ebs: EBSClient,
  region: string,
  volumeId: string,
  snapshots: readonly Snapshot[],
  publicIds: ReadonlySet<string>,
  options: { readonly sinceMs: number; readonly thresholds: SnapshotThresholds; readonly deadline: Deadline },
): Promise<HistoryResult> {
  const notes: string[] = [];
  const all = [...snapshots].sort((a, b) => (a.StartTime?.getTime() ?? 0) - (b.StartTime?.getTime() ?? 0));
  const facts = all.map((s) => factsOf(s, region, publicIds));
  const listable = all.filter((s) => s.State === 'completed' && s.StorageTier !== 'archive');
  const listableFacts = listable.map((s) => factsOf(s, region, publicIds));
  const chain = chainOf(listableFacts, options.sinceMs, options.thresholds.baselineSnapshots, notes);
  const steps: ChangeStep[] = [];
  for (let i = 1; i < chain.length; i++) {
    const older = chain[i - 1] as SnapshotFacts;
    const newer = chain[i] as SnapshotFacts;
    const blocks = await inService('ebs', () =>
      listChangedBlocks(ebs, older.name, newer.name, options.deadline, BLOCK_SAMPLES),
    );
    if (blocks.truncated)
      notes.push(`${newer.id}: changed blocks listing cut short; its figures are lower bounds`);
    const units = blocks.changed + blocks.added;
    steps.push({
      snapshot: newer.id,
      snapshotName: newer.name,
      previous: older.id,
      previousName: older.name,
      timeMs: newer.timeMs,
      totalBytes: blocks.volumeSizeGiB === null ? null : blocks.volumeSizeGiB * GIB,
      newBytes: units * blocks.blockSize,
      newUnits: units,
      unit: 'blocks',
      previousObjects: null,
      removedObjects: null,
      removedBytes: null,
      extensions: [],
      ransomNotes: null,
      samples: {
        new: [...blocks.samples.added, ...blocks.samples.changed]
          .sort((a, b) => a - b)
          .slice(0, BLOCK_SAMPLES)
          .map(String),
        removed: blocks.samples.removed.map(String),
      },
    });
  }
  const history: SourceHistory = {
    source: ebsSourceId(region, volumeId),
    kind: 'ebs',
    region,
    resource: volumeId,
    snapshots: facts,
    steps,
    examinedFromMs: options.sinceMs,
    expectedIntervalHours: usualIntervalHours(listableFacts),
    disabled: false,
    publicDestination: null,
  };
  return {
    history,
    notes,
    snapshotsRead: chain.length,
    snapshotsExamined: steps.filter((s) => s.timeMs >= options.sinceMs).length,
  };
}
