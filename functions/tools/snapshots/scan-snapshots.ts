import type { ToolContext } from '../../runtime/context';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { SEVERITIES, type Severity } from '../aws/shared/findings';
import { athenaRouteSettings } from './athena/settings';
import { defaultSnapshotClients, type SnapshotClients } from './clients';
import { findingsStoreFromEnvironment, runKeyOf } from './findings/environment';
import { FINDINGS_DOCUMENT_VERSION, type FindingsDocument, type SnapshotFinding } from './findings/model';
import type { FindingsStore } from './findings/store';
import { resolveThresholds } from './findings/thresholds';
import { parseSourceId } from './ids';
import { scanSources } from './scan/scan';
import { scanSnapshotsSpec } from './scan-snapshots.meta';
import { sinceMs } from './schemas';

/** What the scan and `inspect_finding` depend on; tests replace each. */
export interface FindingsToolDeps {
  readonly clients: SnapshotClients;
  /** The store of the call's run. */
  readonly findingsStore: (ctx: ToolContext) => FindingsStore;
  /** Now, in ms. */
  readonly now: () => number;
}

/** The deployed dependencies: AWS's endpoints, the store the environment names, the clock. */
export const defaultFindingsToolDeps: FindingsToolDeps = {
  clients: defaultSnapshotClients,
  findingsStore: (ctx) => findingsStoreFromEnvironment(process.env, ctx.runData),
  now: () => Date.now(),
};

/** How far back a scan looks by default: three days, so a weekend's daily snapshots are examined on Monday. */
export const DEFAULT_SCAN_WINDOW_HOURS = 72;
/** Findings listed in the scan's result; every one is in the document and `inspect_finding`. */
const TOP_FINDINGS = 25;

/** A finding's line in the scan's result. */
export interface FindingLine {
  readonly id: string;
  readonly check: string;
  readonly severity: Severity;
  readonly title: string;
  readonly source: string;
  readonly snapshot: string | null;
}

/** The scan's result: the document in brief. */
export function scanView(document: FindingsDocument, reused: boolean) {
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  const byCheck: Record<string, number> = {};
  for (const finding of document.findings) {
    bySeverity[finding.severity]++;
    byCheck[finding.check] = (byCheck[finding.check] ?? 0) + 1;
  }
  const line = (f: SnapshotFinding): FindingLine => ({
    id: f.id,
    check: f.check,
    severity: f.severity,
    title: f.title,
    source: f.source,
    snapshot: f.snapshot,
  });
  return {
    reused,
    createdAt: document.createdAt,
    scope: document.scope,
    findings: {
      total: document.findings.length,
      bySeverity,
      byCheck,
      top: document.findings.slice(0, TOP_FINDINGS).map(line),
      truncated: document.findings.length > TOP_FINDINGS,
    },
    sources: document.sources.map((s) => ({
      source: s.source,
      ok: s.ok,
      findings: s.findings,
      snapshotsExamined: s.snapshotsExamined,
      ...(s.error ? { error: s.error } : {}),
      ...(s.notes.length > 0 ? { notes: s.notes.slice(0, 3) } : {}),
      ...(s.athena ? { athena: s.athena } : {}),
    })),
    thresholds: document.thresholds,
  };
}

/**
 * `scan_snapshots` with injectable dependencies.
 *
 * An S3 Inventory source whose reports are past one function's reach (their
 * data-file bytes, the index's cap) or in ORC is compared on Athena in the
 * tenant's account (athena/scan-route.ts; settings: athena/settings.ts), its
 * source report saying so (`athena`: queries, bytes scanned, USD).
 *
 * Idempotent per run: the document is written create-only, and a call that
 * finds one (a retry, a second call) returns it without any AWS call.
 */
export function createScanSnapshotsTool(deps: FindingsToolDeps = defaultFindingsToolDeps) {
  return defineTool(scanSnapshotsSpec, async (ctx, args) => {
    // Malformed ids and a bad Athena setting fail before the store or AWS is asked anything.
    for (const source of args.sources ?? []) parseSourceId(source);
    const athena = athenaRouteSettings();
    const run = runKeyOf(ctx);
    const store = deps.findingsStore(ctx);
    const existing = await store.get(run, ctx.deadline.signal);
    if (existing) {
      return {
        value: scanView(existing, true),
        summary: `Findings of this run already computed at ${existing.createdAt}: ${existing.findings.length} (reused)`,
      };
    }
    const nowMs = deps.now();
    const from =
      args.since === undefined ? nowMs - DEFAULT_SCAN_WINDOW_HOURS * 3_600_000 : sinceMs(args.since);
    const thresholds = resolveThresholds(args.thresholds);
    const outcome = await scanSources(ctx, deps.clients, {
      ...(args.sources ? { sources: args.sources } : {}),
      ...(args.regions ? { regions: args.regions } : {}),
      sinceMs: from,
      thresholds,
      nowMs,
      athena,
    });
    const document: FindingsDocument = {
      version: FINDINGS_DOCUMENT_VERSION,
      run,
      createdAt: new Date(nowMs).toISOString(),
      callId: ctx.callId,
      scope: {
        since: new Date(from).toISOString(),
        sources: outcome.sources.map((s) => s.source),
        truncated: outcome.truncated,
      },
      thresholds,
      sources: outcome.sources,
      findings: outcome.findings,
    };
    const stored = await store.put(run, document, ctx.deadline.signal);
    const view = scanView(stored.document, !stored.created);
    const failed = stored.document.sources.filter((s) => !s.ok).length;
    return {
      value: view,
      truncated: stored.document.scope.truncated,
      summary:
        `${view.findings.total} findings (${view.findings.bySeverity.critical} critical, ${view.findings.bySeverity.high} high) ` +
        `over ${stored.document.sources.length} sources` +
        (failed > 0 ? `, ${failed} not scanned` : '') +
        (stored.created ? '' : ' (reused)'),
    };
  });
}

/** `scan_snapshots`. */
export const scanSnapshotsTool = createScanSnapshotsTool();

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(scanSnapshotsTool);
