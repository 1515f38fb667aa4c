/**
 * The snapshot findings and the document a scan writes to the run's workspace.
 * A finding is computed once per run, before the model sees anything, and is
 * then read back as written (`inspect_finding`).
 */
import type { WorkspaceScope } from '../../../runtime/workspace';
import type { Severity } from '../../aws/shared/findings';
import type { AthenaRouteHead } from '../athena/settings';
import type { SnapshotThresholds } from './thresholds';

/** The checks, one per heuristic (docs/snapshot-tools.md, "Findings"). */
export const SNAPSHOT_CHECKS = [
  'change_spike',
  'deletion_spike',
  'extension_spike',
  'ransomware_extension',
  'ransom_note_names',
  'public_snapshot',
  'unencrypted_snapshot',
  'snapshots_stopped',
] as const;

/** One check. */
export type SnapshotCheck = (typeof SNAPSHOT_CHECKS)[number];

/** One finding. */
export interface SnapshotFinding {
  /** Stable: `<check>:<16 hex>` of check, source, snapshot and (for extensions) the extension. Same inputs, same id. */
  readonly id: string;
  readonly check: SnapshotCheck;
  readonly severity: Severity;
  /** The source id (`ebs:<region>:vol-…`, `s3_inventory:<bucket>/<configuration>`). */
  readonly source: string;
  /** The snapshot it fired on; null for a finding about the source (snapshots stopped, unencrypted lineage). */
  readonly snapshot: string | null;
  /** One sentence. */
  readonly title: string;
  /** Figures, the baseline they were compared with, the threshold, sample keys or block indexes. */
  readonly evidence: Record<string, unknown>;
  /** How to verify it by hand: console steps or AWS CLI commands that read metadata only. */
  readonly verify: readonly string[];
}

/** How one source's scan went. */
export interface SourceScanReport {
  readonly source: string;
  readonly ok: boolean;
  /** Snapshots examined (taken since `since`) and read for their baseline. */
  readonly snapshotsExamined: number;
  readonly snapshotsRead: number;
  readonly findings: number;
  /** Why a check could not run (no baseline yet, a report without a manifest…). */
  readonly notes: readonly string[];
  /** The normalized error when the source could not be scanned. */
  readonly error?: { readonly code: string; readonly message: string };
  /** How Athena answered when the source took the Athena route (athena/scan-route.ts). */
  readonly athena?: AthenaRouteHead;
}

/**
 * The run key of a findings document: the run's workspace scope (no `scenario`
 * for a call made outside one, as `etp tools invoke`).
 */
export type RunKey = WorkspaceScope;

/** Where a run's findings document lives, relative to the run's workspace root. */
export const FINDINGS_PATH = 'snapshots/findings.json';

/** Format version of {@link FindingsDocument}. */
export const FINDINGS_DOCUMENT_VERSION = 1;

/** What a scan writes, once per run. */
export interface FindingsDocument {
  readonly version: typeof FINDINGS_DOCUMENT_VERSION;
  readonly run: RunKey;
  /** When the scan ran, ISO-8601. */
  readonly createdAt: string;
  /** The call that wrote it (`scan/0`). */
  readonly callId: string;
  /** What was scanned. */
  readonly scope: {
    readonly since: string;
    readonly sources: readonly string[];
    readonly truncated: boolean;
  };
  readonly thresholds: SnapshotThresholds;
  readonly sources: readonly SourceScanReport[];
  /** Every finding, most severe first. */
  readonly findings: readonly SnapshotFinding[];
}
