/**
 * The rules that read what the new and changed files of one step look like, by
 * name only: an extension ransomware appends, an extension suddenly common that
 * was rare, and files named like ransom notes.
 */
import { NO_EXTENSION, OTHER_EXTENSION } from '../index/extensions';
import { type FindingMaker, round } from './finding-maker';
import type { ChangeStep } from './history';
import type { SnapshotThresholds } from './thresholds';

/** Known ransomware extensions (`known`) and extension spikes among the step's new and changed files. */
export function extensionFindings(
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

/** Files named like ransom notes among the step's new and changed files. */
export function ransomNotes(maker: FindingMaker, step: ChangeStep, t: SnapshotThresholds): void {
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
