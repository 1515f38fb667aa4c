/**
 * One change step of an S3 Inventory history (report n against report n-1) as
 * the findings' heuristics take it (findings/history.ts, `ChangeStep`), from
 * either route: the single function's index (`DiffFigures`) or the Athena
 * route's query (`QueryFigures`, athena/inventory-sql.ts). Both give the same
 * figures; only the index has sample keys (the Athena step's are empty).
 */
import type { QueryFigures } from '../athena/query-figures';
import type { ChangeStep, ExtensionFigure } from '../findings/history';
import { reportTimeToIso } from '../ids';
import type { DiffContext, DiffFigures, ReportTotals } from '../index/diff-engine';
import type { ExtensionCounts, ExtensionTable } from '../index/extensions';
import type { OpenedReport } from '../inventory/report';

/** Keys kept per sample in findings' evidence. */
export const EVIDENCE_SAMPLES = 10;
/** Leading extensions of new and changed files kept per step (known ransomware extensions are kept besides). */
const TOP_EXTENSIONS = 5;

/** What a step is made of, whichever route computed it. */
export interface StepFigures {
  readonly older: ReportTotals;
  readonly newer: ReportTotals;
  readonly added: { readonly count: number; readonly bytes: number; readonly byExtension: ExtensionCounts };
  readonly changed: { readonly count: number; readonly bytes: number; readonly byExtension: ExtensionCounts };
  readonly removed: { readonly count: number; readonly bytes: number };
  readonly deleteMarkersAdded: number;
  /** Files of the older report by extension (the baseline of an extension spike). */
  readonly olderByExtension: ExtensionCounts;
  /** The names of the extension ids of every `ExtensionCounts` above. */
  readonly extensions: ExtensionTable;
  readonly ransomNotes: { readonly count: number; readonly folders: number };
  /** Sample keys: new or changed, removed (delete markers included), ransom-note-like, by extension id. */
  readonly samples: {
    readonly new: readonly string[];
    readonly removed: readonly string[];
    readonly ransomNotes: readonly string[];
    readonly ofExtension: (id: number) => readonly string[];
  };
}

/** A step from the single function's comparison. */
export function indexStep(figures: DiffFigures, context: DiffContext): StepFigures {
  return {
    older: figures.older,
    newer: figures.newer,
    added: figures.added,
    changed: figures.changed,
    removed: figures.removed,
    deleteMarkersAdded: figures.deleteMarkersAdded.count,
    olderByExtension: figures.olderByExtension,
    extensions: context.extensions,
    ransomNotes: figures.ransomNotes,
    samples: {
      new: [...figures.added.sample.objects(), ...figures.changed.sample.objects()].map((o) => o.key),
      removed: [...figures.removed.samples, ...figures.deleteMarkersAdded.samples].map((o) => o.key),
      ransomNotes: figures.ransomNotes.samples.map((o) => o.key),
      ofExtension: (id) => (figures.samplesByExtension.get(id) ?? []).map((o) => o.key),
    },
  };
}

/** A step from the Athena route's query: the same figures, no sample keys. */
export function queryStep(figures: QueryFigures): StepFigures {
  const { table, added, changed, older } = figures.byExtension;
  return {
    older: figures.older,
    newer: figures.newer,
    added: { count: figures.added.count, bytes: figures.added.bytes, byExtension: added },
    changed: { count: figures.changed.count, bytes: figures.changed.bytes, byExtension: changed },
    removed: figures.removed,
    deleteMarkersAdded: figures.deleteMarkersAdded,
    olderByExtension: older,
    extensions: table,
    ransomNotes: figures.ransomNotes,
    samples: { new: [], removed: [], ransomNotes: [], ofExtension: () => [] },
  };
}

function extensionFigures(step: StepFigures, known: ReadonlySet<string>): ExtensionFigure[] {
  const table = step.extensions;
  const files = (id: number) => step.added.byExtension.filesOf(id) + step.changed.byExtension.filesOf(id);
  const ids: number[] = [];
  for (let id = 0; id < table.size; id++) if (files(id) > 0) ids.push(id);
  ids.sort((a, b) => files(b) - files(a) || table.name(a).localeCompare(table.name(b)));
  const chosen = [
    ...ids.slice(0, TOP_EXTENSIONS),
    ...ids.slice(TOP_EXTENSIONS).filter((id) => known.has(table.name(id))),
  ];
  return chosen.map((id) => {
    const previousFiles = step.olderByExtension.filesOf(id);
    return {
      extension: table.name(id),
      files: files(id),
      bytes: step.added.byExtension.bytesOf(id) + step.changed.byExtension.bytesOf(id),
      previousFiles,
      previousShare: step.older.objects > 0 ? previousFiles / step.older.objects : 0,
      samples: [...step.samples.ofExtension(id)],
    };
  });
}

/** The heuristics' step of `newer` against `older`; `known` holds the ransomware extensions kept beyond the top. */
export function changeStep(
  older: OpenedReport,
  newer: OpenedReport,
  step: StepFigures,
  known: ReadonlySet<string>,
): ChangeStep {
  return {
    snapshot: newer.id,
    snapshotName: newer.reportTime,
    previous: older.id,
    previousName: older.reportTime,
    timeMs: Date.parse(reportTimeToIso(newer.reportTime)),
    totalBytes: step.newer.bytes,
    newBytes: step.added.bytes + step.changed.bytes,
    newUnits: step.added.count + step.changed.count,
    unit: 'objects',
    previousObjects: step.older.objects,
    removedObjects: step.removed.count + step.deleteMarkersAdded,
    removedBytes: step.removed.bytes,
    extensions: extensionFigures(step, known),
    ransomNotes: {
      count: step.ransomNotes.count,
      folders: step.ransomNotes.folders,
      samples: [...step.samples.ransomNotes],
    },
    samples: {
      new: step.samples.new.slice(0, EVIDENCE_SAMPLES),
      removed: step.samples.removed.slice(0, EVIDENCE_SAMPLES),
    },
  };
}
