/**
 * A source's snapshot history as the findings' rules read it: what changed from
 * each snapshot to the next, and facts about each snapshot. The scan builds it
 * (scan/inventory-history.ts from S3 Inventory reports, scan/ebs-history.ts
 * from EBS direct APIs); the rules (heuristics.ts) only read it.
 */
import type { SnapshotKind } from '../ids';
import type { SnapshotFinding } from './model';

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

/** The median of `values` (0 for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
