/**
 * The findings' rules, as pure functions of a source's history (history.ts):
 * the change rules (change-rules.ts), the content rules (content-rules.ts) on
 * each examined step, then the state rules (state-rules.ts) on the snapshots.
 * The scan builds the history; these modules only decide, so tests pin each
 * rule on generated histories.
 */
import { SEVERITIES } from '../../aws/shared/findings';
import { changeSpike, deletionSpike } from './change-rules';
import { extensionFindings, ransomNotes } from './content-rules';
import { FindingMaker } from './finding-maker';
import type { SourceFindings, SourceHistory } from './history';
import type { SnapshotFinding } from './model';
import { KNOWN_RANSOMWARE_EXTENSIONS } from './ransomware';
import { exposure, stopped } from './state-rules';
import type { SnapshotThresholds } from './thresholds';

/**
 * The findings of one source's history.
 *
 * @param nowMs - the scan's time, for "snapshots stopped".
 * @example computeFindings(history, DEFAULT_THRESHOLDS, Date.now()).findings.map((f) => f.check)
 */
export function computeFindings(
  history: SourceHistory,
  thresholds: SnapshotThresholds,
  nowMs: number,
): SourceFindings {
  const maker = new FindingMaker(history);
  const notes: string[] = [];
  const known = new Set([...KNOWN_RANSOMWARE_EXTENSIONS, ...thresholds.extraRansomwareExtensions]);
  history.steps.forEach((step, i) => {
    if (step.timeMs < history.examinedFromMs) return;
    const note = changeSpike(maker, history.steps, i, thresholds);
    if (note) notes.push(note);
    deletionSpike(maker, history.steps, i, thresholds);
    extensionFindings(maker, step, thresholds, known);
    ransomNotes(maker, step, thresholds);
  });
  exposure(maker, history);
  stopped(maker, history, thresholds, nowMs, notes);
  return { findings: maker.findings, notes };
}

/** Orders findings: severity, then source, snapshot and id. Returns a new array. */
export function rankSnapshotFindings(findings: readonly SnapshotFinding[]): SnapshotFinding[] {
  return [...findings].sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      a.source.localeCompare(b.source) ||
      (a.snapshot ?? '').localeCompare(b.snapshot ?? '') ||
      a.id.localeCompare(b.id),
  );
}
