/** The `summary` action, the run's last engine state: the run summary, the execution's output. */
import type { EngineContext } from '../engine-context';
import type { EngineEvent } from '../events';
import { withLocalModelFree } from '../local-model-cost';
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
}

/** Summarizes the run and writes `summary.json`; a failed write is said in the output, never fatal. */
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
  return {
    scenario: scenario.name,
    runId: event.runId,
    tenant: event.tenant,
    input: event.input,
    levels,
    summary: result,
    completion: runCompletion(result),
    summaryFile,
  };
}
