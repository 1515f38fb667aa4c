/**
 * A model turn under a run budget (docs/scenarios.md, "Run budget"): what the run has spent with
 * the level's turns so far, and which of a turn's calls fit what is left.
 */
import { type AgentLevel, ASK_USER_TOOL, type ScenarioDefinition } from '../definition';
import type { EngineContext } from '../engine-context';
import type { CallRecord, LevelRecord, ModelUsage } from '../records';
import { sumUsage } from '../records';
import { callUse, RunBudget, skipSentence, spentUsd, usdOf } from '../run-budget';
import type { TurnCalls } from './turn-calls';

/** The level's progress so far, as the turn holds it. */
export interface LevelProgress {
  readonly turns: number;
  readonly callCount: number;
  readonly records: readonly CallRecord[];
  readonly usage: ModelUsage;
  /** When this invocation started (`performance.now()`, ms): its engine time is counted too. */
  readonly startedMs: number;
}

/** What the run has spent (USD, the summary's estimate), `level`'s turns so far included. */
export function spentWithLevel(
  ctx: EngineContext,
  scenario: ScenarioDefinition,
  levels: Readonly<Record<string, LevelRecord>>,
  level: AgentLevel,
  progress: LevelProgress,
): number {
  return spentUsd(
    scenario,
    {
      ...levels,
      [level.name]: {
        kind: 'agent',
        outcome: 'finished',
        summary: '',
        data: {},
        model: level.model,
        turns: progress.turns,
        callCount: progress.callCount,
        calls: [...progress.records],
        usage: sumUsage(progress.usage, {
          engineInvocations: 1,
          engineMs: Math.round(performance.now() - progress.startedMs),
        }),
      },
    },
    ctx.config.functions,
  );
}

/**
 * Under a budget of `budgetUsd`, the turn's calls whose estimates fit what is left after `spent()`,
 * in order; the others are answered by the engine with `limit_exceeded`, naming the budget (the
 * model may then finish). Without a budget, or with nothing to dispatch, `sorted` as it is.
 */
export function admittedCalls(
  ctx: EngineContext,
  level: AgentLevel,
  sorted: TurnCalls,
  budgetUsd: number | undefined,
  spent: () => number,
): TurnCalls {
  const channel = level.ask_user ? level.ask_user.slack_channel : undefined;
  const posts = sorted.question && channel ? 1 : 0;
  if (budgetUsd === undefined || sorted.calls.length + posts === 0) return sorted;
  const budget = new RunBudget(budgetUsd, spent());
  const calls: TurnCalls['calls'] = [];
  const rejected = [...sorted.rejected];
  /** Whether `tool`'s call fits; when it does not, the toolUse is answered with why. */
  const fits = (tool: string, toolUseId: string, what: string) => {
    const estimateUsd = usdOf(callUse(ctx.catalog.get(tool), ctx.config.functions));
    const used = budget.spent + budget.committedUsd;
    if (budget.admit(estimateUsd)) return true;
    rejected.push({
      toolUseId,
      tool: what,
      code: 'limit_exceeded',
      message: `${skipSentence('This call was', estimateUsd, budgetUsd, used)}. Call finish with what you have.`,
      budgetUsd: Math.round(estimateUsd * 1e6) / 1e6,
    });
    return false;
  };
  for (const call of sorted.calls) if (fits(call.tool, call.toolUseId, call.tool)) calls.push(call);
  // The question's Slack post is a dispatched call too: a question that cannot be posted is not asked.
  const question =
    sorted.question && posts > 0 && !fits('slack_post_message', sorted.question.toolUseId, ASK_USER_TOOL)
      ? undefined
      : sorted.question;
  return { calls, rejected, ...(question ? { question } : {}) };
}
