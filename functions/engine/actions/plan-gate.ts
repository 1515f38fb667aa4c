/**
 * The `plan_gate` action, before a plan level's Map when the run has a budget
 * (`$.input.budget_usd`): the calls whose estimates fit what is left of the
 * budget, in the level's order; the others are not started. `plan_done`
 * computes the same admission from the same records to record what was skipped,
 * so nothing more travels in the state.
 */
import type { FunctionMemory } from '../config';
import type { PlanLevel, ScenarioDefinition } from '../definition';
import type { EngineContext } from '../engine-context';
import type { EngineEvent } from '../events';
import type { LevelRecord } from '../records';
import { budgetOf, callUse, RunBudget, skipSentence, spentUsd, usdOf } from '../run-budget';

/** Which of a level's calls start (by position), and the estimates of those that do not. */
export interface PlanAdmission {
  readonly admitted: readonly number[];
  readonly skipped: readonly {
    readonly index: number;
    readonly estimateUsd: number;
    readonly sentence: string;
  }[];
}

/**
 * The admission of a plan level's calls under the run's budget, or undefined
 * when the run has none. Deterministic: the same scenario, records and input
 * give the same admission (the gate and `plan_done` both compute it).
 */
export function planAdmission(
  ctx: Pick<EngineContext, 'catalog'> & { readonly config: { readonly functions: FunctionMemory } },
  scenario: ScenarioDefinition,
  level: PlanLevel,
  levels: Readonly<Record<string, LevelRecord>>,
  input: Readonly<Record<string, unknown>>,
): PlanAdmission | undefined {
  const limit = budgetOf(input);
  if (limit === undefined) return undefined;
  const memory = ctx.config.functions;
  const budget = new RunBudget(limit, spentUsd(scenario, levels, memory));
  const admitted: number[] = [];
  const skipped: PlanAdmission['skipped'][number][] = [];
  level.calls.forEach((call, index) => {
    const estimateUsd = usdOf(callUse(ctx.catalog.get(call.tool), memory));
    const used = budget.spent + budget.committedUsd;
    if (budget.admit(estimateUsd)) admitted.push(index);
    else
      skipped.push({
        index,
        estimateUsd,
        sentence: skipSentence(`${call.tool} (${level.name}/${index})`, estimateUsd, limit, used),
      });
  });
  return { admitted, skipped };
}

/** The calls the level's Map starts: `{ calls }` (`$.pending`), the admitted ones of `event.pending.calls`. */
export function planGate(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'plan_gate' }>,
): { calls: unknown[] } {
  const scenario = ctx.scenarioOf(event.scenario);
  const level = ctx.levelOf(scenario, event.level, 'plan');
  const levels = event.levels as Record<string, LevelRecord>;
  const admission = planAdmission(ctx, scenario, level, levels, event.input);
  const calls = event.pending.calls;
  if (!admission) return { calls };
  if (admission.skipped.length > 0) {
    ctx.logger.info('calls not started: run budget', {
      tenant: event.tenant,
      runId: event.runId,
      scenarioLevel: level.name,
      skipped: admission.skipped.map((skip) => skip.sentence),
    });
  }
  return { calls: admission.admitted.map((index) => calls[index]) };
}
