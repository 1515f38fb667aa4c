/**
 * The run summary written at the end of every run (issue 7 item 9): per level
 * and call, ok or failed with its code and duration, the model's tokens, and
 * the run's estimated cost by part. Computed from the levels' compact records,
 * so it is the same deployed (the `Summary` state) and local.
 */
import type { ErrorCode } from '../runtime/errors';
import { roundTo as round } from '../runtime/text';
import { budgetSummary, type RunBudgetSummary } from './budget-summary';
import type { FunctionMemory } from './config';
import type { ScenarioDefinition } from './definition';
import { DISPATCHER_OVERHEAD_MS, ENGINE_UNTIMED_MS, levelUse } from './level-use';
import {
  COST_EXPLORER_REQUEST_USD,
  COST_EXPLORER_SOURCE,
  LAMBDA_GB_SECOND_USD,
  LAMBDA_REQUEST_USD,
  LAMBDA_SOURCE,
  modelPrice,
  STATE_TRANSITION_SOURCE,
  STATE_TRANSITION_USD,
} from './pricing';
import { type CallRecord, type LevelRecord, levelHasResult } from './records';

/** One call as the summary lists it. */
export interface CallSummary {
  readonly callId: string;
  readonly tool: string;
  readonly ok: boolean;
  readonly code?: ErrorCode;
  readonly durationMs: number;
  /** Not started: its estimate would have taken the run past its budget. */
  readonly skipped?: 'budget';
}

/** One level as the summary lists it. */
export interface LevelSummary {
  readonly name: string;
  readonly kind: 'plan' | 'agent';
  readonly outcome: string;
  /** Whether the level produced its result (a plan level: a call ok; an agent level: `finish`). */
  readonly hasResult: boolean;
  readonly summary: string;
  readonly calls: readonly CallSummary[];
  /**
   * A per-account level's calls over its accounts (its `calls` is empty: the calls are per
   * account, in the organization report): how many ran and how many failed.
   */
  readonly accountCalls?: { readonly calls: number; readonly failed: number };
  /** Agent levels: turns, tokens and the model. */
  readonly turns?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly model?: string;
}

/** One part of the estimated cost. */
export interface CostPart {
  readonly part: string;
  readonly quantity: number;
  readonly unit: string;
  readonly usd: number;
  readonly source: string;
}

/** What the run used, counted. */
export interface RunCounts {
  readonly stateTransitions: number;
  readonly lambdaInvocations: number;
  readonly lambdaGbSeconds: number;
  readonly modelInputTokens: number;
  readonly modelOutputTokens: number;
  readonly costExplorerRequests: number;
}

/** The run summary. */
export interface RunSummary {
  readonly scenario: string;
  readonly runId: string;
  readonly tenant: string;
  /** `incomplete` when a level ended without its result. */
  readonly outcome: 'succeeded' | 'incomplete';
  readonly startedAt?: string;
  readonly endedAt: string;
  readonly levels: readonly LevelSummary[];
  readonly counts: RunCounts;
  readonly cost: {
    readonly totalUsd: number;
    readonly excludingModelUsd: number;
    readonly parts: readonly CostPart[];
    /** What the estimate leaves out or assumes. */
    readonly notes: readonly string[];
  };
  /** With a run budget (`budget_usd`): the figures and what it did not start (docs/scenarios.md, "Run budget"). */
  readonly budget?: RunBudgetSummary;
}

function callSummary(call: CallRecord): CallSummary {
  // A level the engine could not close keeps its raw results (the error's code is inside `error`).
  const code = call.code ?? (call as { error?: { code?: CallRecord['code'] } }).error?.code;
  return {
    callId: call.callId,
    tool: call.tool,
    ok: call.ok,
    ...(code ? { code } : {}),
    durationMs: call.durationMs,
    ...(call.skipped ? { skipped: call.skipped } : {}),
  };
}

/**
 * The summary of a run from its levels' records.
 *
 * @param memory - the functions' memory (the engine's configuration), for GB-seconds.
 */
export function summarizeRun(options: {
  readonly scenario: ScenarioDefinition;
  readonly runId: string;
  readonly tenant: string;
  readonly levels: Readonly<Record<string, LevelRecord>>;
  readonly memory: FunctionMemory;
  readonly startedAt?: string;
  readonly now?: Date;
  /** The run's budget in USD (functions/engine/run-budget.ts, `budgetOf`), when it has one. */
  readonly budgetUsd?: number;
}): RunSummary {
  const { scenario, levels, memory } = options;
  const levelSummaries: LevelSummary[] = [];
  // Start and Summary: one state and one engine invocation each; then PublishRunCompleted
  // (the Run Completed event) and Done, which follow the summary (lib/scenarios/asl.ts).
  let transitions = 4;
  let engineInvocations = 2;
  let engineMs = 2 * ENGINE_UNTIMED_MS;
  let dispatcherInvocations = 0;
  let dispatcherMs = 0;
  let toolInvocations = 0;
  let toolGbSeconds = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let ceRequests = 0;
  const modelParts: CostPart[] = [];
  const notes: string[] = [
    `Lambda time: the calls' measured durations (dispatcher +${DISPATCHER_OVERHEAD_MS} ms each), the engine's own measured turns, ${ENGINE_UNTIMED_MS} ms for its untimed invocations; retried invocations are not counted.`,
  ];
  for (const level of scenario.levels) {
    const record = levels[level.name];
    if (!record) continue;
    const use = levelUse(
      record,
      level.kind === 'plan' ? level.for_each_account?.accounts_per_child : undefined,
    );
    transitions += use.transitions;
    engineInvocations += use.engine.invocations;
    engineMs += use.engine.ms;
    const known = use.dispatched;
    const averageMs =
      known.length > 0 ? known.reduce((sum, call) => sum + call.durationMs, 0) / known.length : 0;
    dispatcherInvocations += known.length + use.unrecorded;
    dispatcherMs += known.reduce((sum, call) => sum + call.durationMs, 0) + use.unrecorded * averageMs;
    dispatcherMs += (known.length + use.unrecorded) * DISPATCHER_OVERHEAD_MS;
    for (const call of known) {
      const toolMb = memory.toolMb[call.tool];
      if (toolMb === undefined) continue;
      toolInvocations++;
      toolGbSeconds += (toolMb / 1024) * (call.durationMs / 1000);
    }
    ceRequests += known.reduce((sum, call) => sum + (call.costExplorerRequests ?? 0), 0);
    for (const calls of use.accountCalls ?? []) {
      dispatcherInvocations += calls.count;
      dispatcherMs += calls.ms + calls.count * DISPATCHER_OVERHEAD_MS;
      const toolMb = memory.toolMb[calls.tool];
      if (toolMb === undefined) continue;
      toolInvocations += calls.count;
      toolGbSeconds += (toolMb / 1024) * (calls.ms / 1000);
    }
    ceRequests += use.accountCeRequests ?? 0;
    const base = {
      name: level.name,
      kind: record.kind,
      outcome: record.outcome,
      hasResult: levelHasResult(record),
      summary: record.summary,
      calls: record.calls.map(callSummary),
    };
    if (record.kind === 'plan') {
      const org = record.organization?.calls;
      levelSummaries.push(
        org
          ? {
              ...base,
              accountCalls: {
                calls: org.perCall.reduce((sum, call) => sum + call.count, 0),
                failed: org.failed ?? 0,
              },
            }
          : base,
      );
      continue;
    }
    levelSummaries.push({
      ...base,
      turns: record.turns,
      inputTokens: record.usage.inputTokens,
      outputTokens: record.usage.outputTokens,
      model: record.model,
    });
    inputTokens += record.usage.inputTokens;
    outputTokens += record.usage.outputTokens;
    if (record.usage.inputTokens + record.usage.outputTokens === 0) continue;
    const price = modelPrice(record.model);
    if (!price) {
      notes.push(`No published price is known for ${record.model}: its tokens are not priced.`);
      continue;
    }
    modelParts.push({
      part: `model tokens (${level.name}: ${record.model})`,
      quantity: record.usage.inputTokens + record.usage.outputTokens,
      unit: `tokens (${record.usage.inputTokens} in at $${price.inputPer1k}/1K, ${record.usage.outputTokens} out at $${price.outputPer1k}/1K)`,
      usd:
        (record.usage.inputTokens / 1000) * price.inputPer1k +
        (record.usage.outputTokens / 1000) * price.outputPer1k,
      source: price.source,
    });
  }
  const lambdaGbSeconds =
    toolGbSeconds +
    (memory.dispatcherMb / 1024) * (dispatcherMs / 1000) +
    (memory.engineMb / 1024) * (engineMs / 1000);
  const lambdaInvocations = engineInvocations + dispatcherInvocations + toolInvocations;
  const parts: CostPart[] = [
    {
      part: 'Step Functions state transitions',
      quantity: transitions,
      unit: 'transitions',
      usd: transitions * STATE_TRANSITION_USD,
      source: STATE_TRANSITION_SOURCE,
    },
    {
      part: 'Lambda compute',
      quantity: round(lambdaGbSeconds, 3),
      unit: 'GB-seconds',
      usd: lambdaGbSeconds * LAMBDA_GB_SECOND_USD,
      source: LAMBDA_SOURCE,
    },
    {
      part: 'Lambda requests',
      quantity: lambdaInvocations,
      unit: 'invocations',
      usd: lambdaInvocations * LAMBDA_REQUEST_USD,
      source: LAMBDA_SOURCE,
    },
    {
      part: 'Cost Explorer API',
      quantity: ceRequests,
      unit: 'requests',
      usd: ceRequests * COST_EXPLORER_REQUEST_USD,
      source: COST_EXPLORER_SOURCE,
    },
    ...modelParts,
  ];
  const modelUsd = modelParts.reduce((sum, part) => sum + part.usd, 0);
  const totalUsd = parts.reduce((sum, part) => sum + part.usd, 0);
  const budget =
    options.budgetUsd === undefined
      ? undefined
      : budgetSummary(options.budgetUsd, round(totalUsd, 6), scenario, levels);
  return {
    scenario: scenario.name,
    runId: options.runId,
    tenant: options.tenant,
    outcome: levelSummaries.every((level) => level.hasResult) ? 'succeeded' : 'incomplete',
    ...(options.startedAt ? { startedAt: options.startedAt } : {}),
    endedAt: (options.now ?? new Date()).toISOString(),
    levels: levelSummaries,
    counts: {
      stateTransitions: transitions,
      lambdaInvocations,
      lambdaGbSeconds: round(lambdaGbSeconds, 4),
      modelInputTokens: inputTokens,
      modelOutputTokens: outputTokens,
      costExplorerRequests: ceRequests,
    },
    cost: {
      totalUsd: round(totalUsd, 6),
      excludingModelUsd: round(totalUsd - modelUsd, 6),
      parts: parts.map((part) => ({ ...part, usd: round(part.usd, 6) })),
      notes,
    },
    ...(budget ? { budget } : {}),
  };
}
