/**
 * The rules that compare a change with the source's own baseline (the median of
 * its earlier changes): a change spike (bytes new or changed) and a deletion
 * spike (objects gone), each examined step against the steps before it.
 */
import type { Severity } from '../../aws/shared/findings';
import { bytesText, type FindingMaker, round } from './finding-maker';
import { type ChangeStep, median } from './history';
import type { SnapshotThresholds } from './thresholds';

function baselineOf(steps: readonly ChangeStep[], index: number, size: number): ChangeStep[] {
  return steps.slice(Math.max(0, index - size), index);
}

/** A change spike at step `i`, or the note that its baseline is too short to check it. */
export function changeSpike(
  maker: FindingMaker,
  steps: readonly ChangeStep[],
  i: number,
  t: SnapshotThresholds,
): string | undefined {
  const step = steps[i] as ChangeStep;
  const baseline = baselineOf(steps, i, t.baselineSnapshots);
  if (baseline.length < t.minBaselineSnapshots) {
    return `${step.snapshot}: change and deletion spikes not checked, ${baseline.length} earlier change(s) < minBaselineSnapshots ${t.minBaselineSnapshots}`;
  }
  const usual = median(baseline.map((s) => s.newBytes));
  const threshold = t.changeSpikeFactor * usual;
  const bigEnough =
    step.newBytes >= t.changeSpikeMinBytes ||
    (step.totalBytes !== null &&
      step.totalBytes > 0 &&
      step.newBytes >= t.changeSpikeMinShare * step.totalBytes);
  if (step.newBytes <= 0 || step.newBytes < threshold || !bigEnough) return undefined;
  const share = step.totalBytes ? step.newBytes / step.totalBytes : null;
  const severity: Severity = share !== null && share >= 0.5 ? 'critical' : 'high';
  const factor = usual > 0 ? round(step.newBytes / usual, 1) : null;
  maker.add(
    'change_spike',
    severity,
    { id: step.snapshot, name: step.snapshotName, previousName: step.previousName },
    `${bytesText(step.newBytes)} new or changed in ${step.snapshot}${factor !== null ? `, ${factor}× its usual ${bytesText(usual)}` : ` where it usually changes nothing`}`,
    {
      newBytes: step.newBytes,
      [step.unit === 'blocks' ? 'newOrChangedBlocks' : 'newOrChangedObjects']: step.newUnits,
      totalBytes: step.totalBytes,
      shareOfTotal: share === null ? null : round(share),
      baseline: {
        medianNewBytes: usual,
        snapshots: baseline.map((s) => ({ snapshot: s.snapshot, newBytes: s.newBytes })),
      },
      threshold: {
        factor: t.changeSpikeFactor,
        bytes: threshold,
        minBytes: t.changeSpikeMinBytes,
        minShare: t.changeSpikeMinShare,
      },
      previous: step.previous,
      [step.unit === 'blocks' ? 'sampleBlockIndexes' : 'sampleKeys']: step.samples.new,
    },
    step.unit === 'objects' && step.samples.new[0] ? { sampleKey: step.samples.new[0] } : {},
  );
  return undefined;
}

/** A deletion spike at step `i` (S3 only: EBS steps count no removed objects). */
export function deletionSpike(
  maker: FindingMaker,
  steps: readonly ChangeStep[],
  i: number,
  t: SnapshotThresholds,
): void {
  const step = steps[i] as ChangeStep;
  if (step.removedObjects === null || step.previousObjects === null) return;
  const baseline = baselineOf(steps, i, t.baselineSnapshots);
  if (baseline.length < t.minBaselineSnapshots) return;
  const usual = median(baseline.map((s) => s.removedObjects ?? 0));
  const threshold = t.deletionSpikeFactor * usual;
  const removed = step.removedObjects;
  const share = step.previousObjects > 0 ? removed / step.previousObjects : 0;
  if (
    removed < threshold ||
    removed < t.deletionSpikeMinObjects ||
    share < t.deletionSpikeMinShare ||
    removed === 0
  )
    return;
  maker.add(
    'deletion_spike',
    share >= 0.25 ? 'critical' : 'high',
    { id: step.snapshot, name: step.snapshotName, previousName: step.previousName },
    `${removed} objects (${round(share * 100, 1)}% of ${step.previousObjects}) gone in ${step.snapshot}, usually ${usual}`,
    {
      removedObjects: removed,
      removedBytes: step.removedBytes,
      previousObjects: step.previousObjects,
      shareOfPrevious: round(share),
      baseline: {
        medianRemovedObjects: usual,
        snapshots: baseline.map((s) => ({ snapshot: s.snapshot, removedObjects: s.removedObjects })),
      },
      threshold: {
        factor: t.deletionSpikeFactor,
        objects: threshold,
        minObjects: t.deletionSpikeMinObjects,
        minShare: t.deletionSpikeMinShare,
      },
      previous: step.previous,
      sampleKeys: step.samples.removed,
    },
    step.samples.removed[0] ? { sampleKey: step.samples.removed[0] } : {},
  );
}
