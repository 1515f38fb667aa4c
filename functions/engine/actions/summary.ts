/** The `summary` action, the run's last engine state: the run summary, the execution's output. */
import type { EngineContext } from '../engine-context';
import type { EngineEvent } from '../events';
import { inputValueProblem } from '../inputs';
import { withLocalModelFree } from '../local-model-cost';
import { resolvePin } from '../pins';
import type { LevelRecord, RunState } from '../records';
import { budgetOf } from '../run-budget';
import { type RunCompletion, runCompletion } from '../run-completion';
import { type RunSummary, summarizeRun } from '../summary';
import { ENGINE_PATHS, type RunKey, writeJson } from '../workspaces';

/** The engine's output for the `summary` action: the execution's output. */
export interface RunOutput extends RunState {
  readonly scenario: string;
  readonly runId: string;
  readonly tenant: string;
  readonly summary: RunSummary;
  /** What the `Run Completed` event publishes (lib/scenarios/run-events.ts). */
  readonly completion: RunCompletion;
  /**
   * Where `summary.json` is in the run's workspace, or why it is not there (the
   * workspace write failed: the summary is then only in this output).
   */
  readonly summaryFile: { readonly path: string } | { readonly notWritten: string };
  /** What became of the scenario's watermark; absent when the scenario keeps none. */
  readonly watermark?: WatermarkOutcome;
}

/** The watermark at the end of a run (docs/scenarios.md, "Watermark"). */
export interface WatermarkOutcome {
  /** The input the mark fills on the tenant's next run. */
  readonly input: string;
  /** Whether this run's mark is now the tenant's. */
  readonly advanced: boolean;
  /** This run's mark, when it has one. */
  readonly value?: string;
  /** Why it did not advance, in words. */
  readonly reason?: string;
}

/**
 * Codes of calls refused before any remote request (a model's bad or
 * unpinned arguments): they wrote nothing and would be refused again, so they do
 * not hold the watermark back.
 */
const REFUSED_BEFORE_CALL: ReadonlySet<string> = new Set([
  'invalid_args',
  'tool_not_allowed',
  'unknown_tool',
]);

/**
 * Why a summarized run may not advance its watermark, or undefined when it may:
 * a level without its result, or a write that failed (a read that failed, such
 * as an optional enrichment, loses nothing the next run would redo).
 */
function holdsMarkBack(ctx: EngineContext, result: RunSummary): string | undefined {
  if (result.outcome !== 'succeeded')
    return 'the run did not succeed (a level without its result): the mark is kept';
  const isWrite = (tool: string) => ctx.catalog.has(tool) && ctx.catalog.get(tool).sideEffects === 'write';
  const failed = result.levels
    .flatMap((level) => level.calls)
    .filter((call) => !call.ok && isWrite(call.tool) && !REFUSED_BEFORE_CALL.has(call.code ?? ''));
  return failed.length === 0
    ? undefined
    : `${failed.length} write(s) failed (${[...new Set(failed.map((c) => `${c.tool}: ${c.code}`))].join(', ')}): the mark is kept, so the next run reads this window again`;
}

/**
 * Advances the tenant's watermark to this run's mark, only when the run
 * succeeded (every level with its result, no write failed but those refused
 * before any request) and the mark is a value its input accepts. A records failure is said in the outcome, never fatal: the next run
 * then starts from the previous mark and reads this run's window again.
 */
async function advanceWatermark(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'summary' }>,
  run: RunKey,
  result: RunSummary,
): Promise<WatermarkOutcome | undefined> {
  const scenario = ctx.scenarioOf(event.scenario);
  const watermark = scenario.watermark;
  if (!watermark) return undefined;
  const input = watermark.input;
  const held = holdsMarkBack(ctx, result);
  if (held) return { input, advanced: false, reason: held };
  const resolved = await resolvePin(
    { value: watermark.value },
    {
      input: event.input,
      levels: event.levels as Record<string, LevelRecord>,
      run: { id: event.runId, tenant: event.tenant, scenario: scenario.name },
      workspace: ctx.workspaces(run),
    },
  );
  if (!('value' in resolved)) {
    return { input, advanced: false, reason: 'unavailable' in resolved ? resolved.unavailable : 'no value' };
  }
  const declared = scenario.inputs[input];
  const problem = declared ? inputValueProblem(declared, resolved.value) : undefined;
  if (problem) return { input, advanced: false, reason: `${watermark.value}: ${problem}` };
  const value = resolved.value as string;
  try {
    const advanced = await ctx.records.advanceWatermark(event.tenant, scenario.name, {
      value,
      runId: event.runId,
      updatedAt: ctx.now().toISOString(),
    });
    return advanced
      ? { input, advanced, value }
      : { input, advanced, value, reason: 'a later mark is already kept' };
  } catch (err) {
    ctx.logger.warn('watermark not stored', { ...run, err });
    return {
      input,
      advanced: false,
      value,
      reason: `the run records could not be written (${(err as Error).message ?? String(err)})`.slice(0, 500),
    };
  }
}

/**
 * Summarizes the run, writes `summary.json` and advances the scenario's
 * watermark; a failed write is said in the output, never fatal.
 */
export async function summary(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'summary' }>,
): Promise<RunOutput> {
  const scenario = ctx.scenarioOf(event.scenario);
  const levels = event.levels as Record<string, LevelRecord>;
  const run: RunKey = { tenant: event.tenant, scenario: scenario.name, runId: event.runId };
  const budgetUsd = budgetOf(event.input);
  const summarized = summarizeRun({
    scenario,
    runId: event.runId,
    tenant: event.tenant,
    levels,
    memory: ctx.config.functions,
    startedAt: event.startedAt,
    now: ctx.now(),
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
  });
  // One pricing decision for the file, the output and the Run Completed event alike.
  const result =
    ctx.localModelEndpoint === undefined
      ? summarized
      : withLocalModelFree(summarized, ctx.localModelEndpoint);
  let summaryFile: RunOutput['summaryFile'];
  try {
    await writeJson(ctx.workspaces(run), ENGINE_PATHS.summary(), result);
    summaryFile = { path: ENGINE_PATHS.summary() };
  } catch (err) {
    // The summary is the execution's output too; a workspace failure must not lose it.
    ctx.logger.warn('run summary not stored', { ...run, err });
    summaryFile = {
      notWritten:
        `summary.json could not be written to the run's workspace (${(err as Error).message ?? String(err)}): this output is the only copy`.slice(
          0,
          500,
        ),
    };
  }
  const watermark = await advanceWatermark(ctx, event, run, result);
  return {
    scenario: scenario.name,
    runId: event.runId,
    tenant: event.tenant,
    input: event.input,
    levels,
    summary: result,
    completion: runCompletion(result),
    summaryFile,
    ...(watermark ? { watermark } : {}),
  };
}
