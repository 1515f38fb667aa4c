/**
 * The findings' rules, as pure functions of a source's history: what changed
 * from each snapshot to the next, and facts about each snapshot. The scan
 * builds the history (reading inventory reports or listing EBS blocks); this
 * module only decides, so tests pin each rule on generated histories.
 */
import { findingId, SEVERITIES, type Severity } from '../../aws/shared/findings';
import type { SnapshotKind } from '../ids';
import { NO_EXTENSION, OTHER_EXTENSION } from '../index/extensions';
import type { SnapshotCheck, SnapshotFinding } from './model';
import { KNOWN_RANSOMWARE_EXTENSIONS } from './ransomware';
import type { SnapshotThresholds } from './thresholds';
import { type VerifyTarget, verificationSteps } from './verification';

/** One extension among a step's new and changed files. */
export interface ExtensionFigure {
  readonly extension: string;
  readonly files: number;
  readonly bytes: number;
  /** Files with this extension in the older snapshot. */
  readonly previousFiles: number;
  /** Their share of the older snapshot's files (0-1). */
  readonly previousShare: number;
  /** A few keys, as evidence. */
  readonly samples: readonly string[];
}

/** What changed from one snapshot of a source to the next. */
export interface ChangeStep {
  /** The newer snapshot's id, and its AWS id or report time for the verification steps. */
  readonly snapshot: string;
  readonly snapshotName: string;
  readonly previous: string;
  readonly previousName: string;
  readonly timeMs: number;
  /** The newer snapshot's bytes (S3: objects; EBS: written blocks), when known. */
  readonly totalBytes: number | null;
  /** Bytes new or changed since the older snapshot. */
  readonly newBytes: number;
  /** S3: objects new or changed; EBS: blocks new or changed. */
  readonly newUnits: number;
  /** `objects` (S3) or `blocks` (EBS). */
  readonly unit: 'objects' | 'blocks';
  /** S3 only: the older report's objects, and those gone since (removed, or hidden by a new delete marker). */
  readonly previousObjects: number | null;
  readonly removedObjects: number | null;
  readonly removedBytes: number | null;
  /** S3 only: the leading extensions of new and changed files, and every known ransomware extension among them. */
  readonly extensions: readonly ExtensionFigure[];
  /** S3 only. */
  readonly ransomNotes: {
    readonly count: number;
    readonly folders: number;
    readonly samples: readonly string[];
  } | null;
  /** Sample keys (S3) or block indexes (EBS). */
  readonly samples: { readonly new: readonly string[]; readonly removed: readonly string[] };
}

/** Facts of one snapshot. */
export interface SnapshotFacts {
  readonly id: string;
  /** The AWS snapshot id or the report time. */
  readonly name: string;
  readonly timeMs: number;
  readonly encrypted: boolean | null;
  readonly public: boolean | null;
}

/** A source's history as the rules read it. */
export interface SourceHistory {
  readonly source: string;
  readonly kind: SnapshotKind;
  readonly region: string | null;
  /** EBS: the volume id; S3: the source bucket. */
  readonly resource: string;
  readonly configurationId?: string;
  /** Every snapshot known, oldest first. */
  readonly snapshots: readonly SnapshotFacts[];
  /** Changes between consecutive snapshots read, oldest first. */
  readonly steps: readonly ChangeStep[];
  /** Steps whose newer snapshot is at least this recent are examined; earlier ones are baseline only. */
  readonly examinedFromMs: number;
  /** How often snapshots are expected, in hours (S3: the schedule; EBS: the median gap); null when unknown. */
  readonly expectedIntervalHours: number | null;
  /** S3: the inventory configuration is disabled. */
  readonly disabled: boolean;
  /** S3: the destination bucket that holds the reports is public. */
  readonly publicDestination: string | null;
}

/** Findings of a source, and why checks could not run. */
export interface SourceFindings {
  readonly findings: SnapshotFinding[];
  readonly notes: string[];
}

const HOUR_MS = 3_600_000;

/** The median of `values` (0 for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function round(value: number, digits = 4): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

class FindingMaker {
  readonly findings: SnapshotFinding[] = [];
  constructor(private readonly history: SourceHistory) {}

  add(
    check: SnapshotCheck,
    severity: Severity,
    snapshot: { id: string; name: string; previousName?: string } | null,
    title: string,
    evidence: Record<string, unknown>,
    extra: { readonly extension?: string; readonly sampleKey?: string } = {},
  ): void {
    const h = this.history;
    const target: VerifyTarget = {
      kind: h.kind,
      region: h.region,
      resource: h.resource,
      ...(h.configurationId !== undefined ? { configurationId: h.configurationId } : {}),
      ...(snapshot ? { snapshot: snapshot.name } : {}),
      ...(snapshot?.previousName ? { previous: snapshot.previousName } : {}),
      ...extra,
    };
    this.findings.push({
      id: findingId(check, h.region ?? '', `${h.source}|${snapshot?.id ?? ''}|${extra.extension ?? ''}`),
      check,
      severity,
      source: h.source,
      snapshot: snapshot?.id ?? null,
      title,
      evidence,
      verify: verificationSteps(check, target),
    });
  }
}

function bytesText(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function baselineOf(steps: readonly ChangeStep[], index: number, size: number): ChangeStep[] {
  return steps.slice(Math.max(0, index - size), index);
}

function changeSpike(
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

function deletionSpike(
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

function extensionFindings(
  maker: FindingMaker,
  step: ChangeStep,
  t: SnapshotThresholds,
  known: ReadonlySet<string>,
): void {
  const snapshot = { id: step.snapshot, name: step.snapshotName, previousName: step.previousName };
  for (const figure of step.extensions) {
    const share = step.newUnits > 0 ? figure.files / step.newUnits : 0;
    const facts = {
      extension: figure.extension,
      files: figure.files,
      bytes: figure.bytes,
      shareOfNewOrChanged: round(share),
      newOrChangedFiles: step.newUnits,
      previousFiles: figure.previousFiles,
      previousShare: round(figure.previousShare, 6),
      sampleKeys: figure.samples,
      previous: step.previous,
    };
    const extra = {
      extension: figure.extension,
      ...(figure.samples[0] ? { sampleKey: figure.samples[0] } : {}),
    };
    if (known.has(figure.extension)) {
      if (figure.files < t.knownExtensionMinFiles) continue;
      maker.add(
        'ransomware_extension',
        'critical',
        snapshot,
        `${figure.files} new or changed files end in .${figure.extension}, an extension ransomware appends, in ${step.snapshot}`,
        { ...facts, threshold: { minFiles: t.knownExtensionMinFiles } },
        extra,
      );
      continue;
    }
    if (figure.extension === OTHER_EXTENSION) continue;
    if (
      share < t.extensionSpikeMinShare ||
      figure.files < t.extensionSpikeMinFiles ||
      figure.previousShare > t.extensionRareShare
    )
      continue;
    const label =
      figure.extension === NO_EXTENSION ? 'files without an extension' : `.${figure.extension} files`;
    maker.add(
      'extension_spike',
      'high',
      snapshot,
      `${label} are ${round(share * 100, 1)}% of the ${step.newUnits} new or changed files in ${step.snapshot}, ${round(figure.previousShare * 100, 2)}% before`,
      {
        ...facts,
        threshold: {
          minShare: t.extensionSpikeMinShare,
          minFiles: t.extensionSpikeMinFiles,
          rareShare: t.extensionRareShare,
        },
      },
      extra,
    );
  }
}

function ransomNotes(maker: FindingMaker, step: ChangeStep, t: SnapshotThresholds): void {
  const notes = step.ransomNotes;
  if (!notes || notes.count < t.ransomNoteMinFiles) return;
  maker.add(
    'ransom_note_names',
    notes.folders >= 10 || notes.count >= 100 ? 'critical' : 'high',
    { id: step.snapshot, name: step.snapshotName, previousName: step.previousName },
    `${notes.count} new or changed files in ${notes.folders} folder(s) are named like ransom notes in ${step.snapshot}`,
    {
      files: notes.count,
      folders: notes.folders,
      sampleKeys: notes.samples,
      threshold: { minFiles: t.ransomNoteMinFiles },
      note: 'matched by file name only; no file was opened',
    },
    notes.samples[0] ? { sampleKey: notes.samples[0] } : {},
  );
}

function exposure(maker: FindingMaker, history: SourceHistory): void {
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

function stopped(
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
