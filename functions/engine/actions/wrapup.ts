/**
 * The `wrapup` action: closes an agent level whose `turn` Task failed for good
 * (the state machine's Catch), with a report in plain words and the last
 * model error as the retries left it.
 */
import type { ToolErrorInfo } from '../../runtime/result';
import type { EngineContext } from '../engine-context';
import { type EngineEvent, type TurnState, turnStateSchema } from '../events';
import { modelRetryableCause } from '../model-client';
import { type CallRecord, type LevelRecord, type ModelUsage, NO_USAGE } from '../records';
import { agentRecord, doneState } from './level-end';

/** The level's `done` state, outcome `failed`. */
export async function wrapup(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'wrapup' }>,
): Promise<TurnState> {
  const scenario = ctx.scenarioOf(event.scenario);
  const level = ctx.levelOf(scenario, event.level, 'agent');
  const parsed = turnStateSchema().safeParse(event.turn);
  const state = parsed.success ? parsed.data : undefined;
  const failure = state?.failure?.Error;
  // The last model error, as the retries left it: connection refused is not throttling.
  const last = failure === 'ModelRetryable' ? modelRetryableCause(state?.failure?.Cause) : undefined;
  const error: ToolErrorInfo = {
    code: failure === 'ModelRetryable' ? (last?.code ?? 'throttled') : 'internal_error',
    message:
      failure === 'ModelRetryable'
        ? `Model ${level.model} kept failing with a retryable error after every retry${last ? `; the last: ${last.message}` : ''}`
        : `The ${level.name} level's turn failed (${failure ?? 'an error inside the platform'})`,
    retryable: false,
  };
  const usage = { ...NO_USAGE, ...((state?.usage ?? {}) as Partial<ModelUsage>) };
  const record = agentRecord(
    scenario,
    level,
    event.levels as Record<string, LevelRecord>,
    { outcome: 'failed', error },
    {
      turns: state?.n ?? 0,
      callCount: state?.callCount ?? 0,
      records: (state?.records ?? []) as unknown as CallRecord[],
      usage,
    },
  );
  ctx.logger.info('agent level failed', {
    scenario: scenario.name,
    runId: event.runId,
    scenarioLevel: level.name,
  });
  return doneState(level.name, record, { n: state?.n ?? 0 });
}
