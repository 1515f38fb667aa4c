/**
 * The rules on the snapshots themselves rather than a change: snapshots anyone
 * can restore, reports in a public bucket, unencrypted snapshots, and snapshots
 * that stopped coming (a disabled configuration, or the newest one too old).
 */
import { type FindingMaker, round } from './finding-maker';
import type { SourceHistory } from './history';
import type { SnapshotThresholds } from './thresholds';

const HOUR_MS = 3_600_000;

/** Public and unencrypted snapshots, and reports kept in a public bucket. */
export function exposure(maker: FindingMaker, history: SourceHistory): void {
  for (const snapshot of history.snapshots) {
    if (snapshot.public !== true) continue;
    maker.add(
      'public_snapshot',
      'critical',
      { id: snapshot.id, name: snapshot.name },
      `EBS snapshot ${snapshot.id} can be restored by any AWS account`,
      {
        snapshot: snapshot.id,
        takenAt: new Date(snapshot.timeMs).toISOString(),
      },
    );
  }
  if (history.publicDestination) {
    maker.add(
      'public_snapshot',
      'critical',
      null,
      `The inventory reports of ${history.source} are in bucket ${history.publicDestination}, which is public: they list every key`,
      { destinationBucket: history.publicDestination },
    );
  }
  const unencrypted = history.snapshots.filter((s) => s.encrypted === false);
  const latest = unencrypted.at(-1);
  if (latest) {
    maker.add(
      'unencrypted_snapshot',
      'medium',
      null,
      `${unencrypted.length} of ${history.snapshots.length} snapshots of ${history.source} are not encrypted (latest ${latest.id})`,
      {
        unencryptedSnapshots: unencrypted.length,
        snapshots: history.snapshots.length,
        latest: latest.id,
        samples: unencrypted.slice(-5).map((s) => s.id),
      },
    );
  }
}

/** Snapshots that stopped: the configuration disabled, or the newest older than the usual interval allows. */
export function stopped(
  maker: FindingMaker,
  history: SourceHistory,
  t: SnapshotThresholds,
  nowMs: number,
  notes: string[],
): void {
  const newest = history.snapshots.at(-1);
  if (history.disabled) {
    maker.add(
      'snapshots_stopped',
      'high',
      null,
      `Inventory configuration ${history.source} is disabled: no new reports will be written`,
      {
        disabled: true,
        newestSnapshot: newest?.id ?? null,
        newestAt: newest ? new Date(newest.timeMs).toISOString() : null,
      },
    );
    return;
  }
  if (!newest) return;
  if (history.expectedIntervalHours === null) {
    notes.push(
      `${history.source}: snapshots-stopped not checked, the usual interval is unknown (fewer than 2 snapshots)`,
    );
    return;
  }
  const ageHours = (nowMs - newest.timeMs) / HOUR_MS;
  const limit = Math.max(t.staleFactor * history.expectedIntervalHours, t.staleMinHours);
  if (ageHours <= limit) return;
  maker.add(
    'snapshots_stopped',
    'high',
    null,
    `The newest snapshot of ${history.source} is ${round(ageHours / 24, 1)} days old; one is expected every ${round(history.expectedIntervalHours, 1)} hours`,
    {
      newestSnapshot: newest.id,
      newestAt: new Date(newest.timeMs).toISOString(),
      ageHours: round(ageHours, 1),
      expectedIntervalHours: round(history.expectedIntervalHours, 2),
      threshold: { staleFactor: t.staleFactor, staleMinHours: t.staleMinHours, hours: round(limit, 2) },
    },
  );
}
