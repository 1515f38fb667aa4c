/**
 * The `ask` action, invoked with `.waitForTaskToken`: records an `ask_user`
 * question and the token that resumes the run (never logged).
 */
import type { EngineContext } from '../engine-context';
import type { EngineEvent } from '../events';

/** Records the question; the state machine then waits for `etp run answer` or the timeout. */
export async function ask(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'ask' }>,
): Promise<{ recorded: true }> {
  const asked = ctx.now();
  await ctx.records.putQuestion({
    tenant: event.tenant,
    runId: event.runId,
    scenario: event.scenario,
    level: event.level,
    turn: event.turn,
    question: event.question,
    askedAt: asked.toISOString(),
    expiresAt: new Date(asked.getTime() + event.timeoutSeconds * 1000).toISOString(),
    posted: event.posted === true,
    taskToken: event.taskToken,
  });
  // Never the token: it resumes the run.
  ctx.logger.info('question recorded', {
    tenant: event.tenant,
    runId: event.runId,
    scenarioLevel: event.level,
    turn: event.turn,
  });
  return { recorded: true };
}
