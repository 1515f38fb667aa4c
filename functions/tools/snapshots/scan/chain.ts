/**
 * Which snapshots of a source a scan reads: those taken since `since`
 * (examined) and, before them, enough for the baseline of the first examined
 * one — `baselineSnapshots` changes, so one snapshot more.
 */
import type { AthenaRouteHead } from '../athena/settings';
import type { SnapshotFacts, SourceHistory } from '../findings/history';

/** Examined snapshots per source at most: a month of daily snapshots. The oldest are left out beyond. */
export const MAX_EXAMINED = 31;

/** What building a source's history gives the scan. */
export interface HistoryResult {
  readonly history: SourceHistory;
  /** Why a check or a snapshot was skipped. */
  readonly notes: string[];
  readonly snapshotsRead: number;
  readonly snapshotsExamined: number;
  /** How Athena answered, when the source took the Athena route (S3 Inventory). */
  readonly athena?: AthenaRouteHead;
}

/**
 * The snapshots to read, oldest first.
 *
 * @param snapshots - every snapshot of the source, oldest first.
 * @param notes - receives a note when {@link MAX_EXAMINED} leaves snapshots out.
 * @example chainOf(daily30, Date.parse('2026-03-28'), 7, notes) // 7 + 1 before the 28th, then the 28th on
 */
export function chainOf(
  snapshots: readonly SnapshotFacts[],
  sinceMs: number,
  baselineSnapshots: number,
  notes: string[],
): SnapshotFacts[] {
  let first = snapshots.findIndex((s) => s.timeMs >= sinceMs);
  if (first === -1) return [];
  if (snapshots.length - first > MAX_EXAMINED) {
    notes.push(
      `${snapshots.length - first} snapshots since the given time; the newest ${MAX_EXAMINED} are examined`,
    );
    first = snapshots.length - MAX_EXAMINED;
  }
  return snapshots.slice(Math.max(0, first - baselineSnapshots - 1));
}
