import type { ToolContext } from '../../runtime/context';
import { PlatformError } from '../../runtime/errors';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { findingsStoreFromEnvironment, runKeyOf } from './findings/environment';
import type { FindingsStore } from './findings/store';
import { inspectFindingSpec } from './inspect-finding.meta';

/** Finding ids named in a "not found" message at most. */
const KNOWN_IDS_LISTED = 50;

/**
 * `inspect_finding` with an injectable store. Returns the stored finding
 * object itself: what the scan wrote is what the model gets.
 *
 * @throws PlatformError (`not_found`) when the run has no findings yet, or none has the id (listing the run's ids).
 */
export function createInspectFindingTool(
  deps: { readonly findingsStore: (ctx: ToolContext) => FindingsStore } = {
    findingsStore: (ctx) => findingsStoreFromEnvironment(process.env, ctx.runData),
  },
) {
  return defineTool(inspectFindingSpec, async (ctx, args) => {
    const run = runKeyOf(ctx);
    const document = await deps.findingsStore(ctx).get(run, ctx.deadline.signal);
    if (!document) {
      throw new PlatformError(
        'not_found',
        `No findings have been computed for run ${run.runId}${run.scenario === undefined ? '' : ` of scenario ${run.scenario}`}: ` +
          'scan_snapshots computes them once per run',
      );
    }
    const finding = document.findings.find((f) => f.id === args.id);
    if (!finding) {
      const known = document.findings.map((f) => f.id);
      throw new PlatformError(
        'not_found',
        `Run ${run.runId} has no finding ${args.id}. Its ${known.length} finding id(s)` +
          (known.length > 0
            ? `: ${known.slice(0, KNOWN_IDS_LISTED).join(', ')}${known.length > KNOWN_IDS_LISTED ? ', …' : ''}`
            : ''),
        { details: { findings: known.length } },
      );
    }
    return { value: finding, summary: `${finding.severity} ${finding.check}: ${finding.title}` };
  });
}

/** `inspect_finding`. */
export const inspectFindingTool = createInspectFindingTool();

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(inspectFindingTool);
