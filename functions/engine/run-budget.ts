/**
 * The run budget (issue 20 item 7): `budget_usd`, per scenario and per run
 * (the run input wins), holds a run to an estimated cost in USD. The engine
 * keeps the run's estimate as it goes — the run summary's own estimate
 * ({@link spentUsd} is `summarizeRun(...).cost.totalUsd` over what has
 * finished) — and starts no call, model turn or account whose estimate would
 * take it past the budget: `spent + committed + estimate > budget` skips the
 * work (docs/scenarios.md, "Run budget"). Skipped work is recorded and the
 * summary lists it with the spent and remaining figures.
 *
 * Estimates use the prices of ./pricing.ts (the summary's) on what a piece of
 * work can use at most where the platform bounds it: a call's Lambda time at its
 * tool's timeout, a model turn's output at its output budget and its Lambda time
 * at its model-call timeout; its input tokens from the conversation's size. So a
 * run stays under its budget unless a call uses more Cost Explorer requests than
 * {@link COST_EXPLORER_REQUESTS_ESTIMATE} (each page is billed after it is read).
 */

import type { ToolSpec } from '../runtime/spec';
import { toolTimeoutSeconds } from '../runtime/spec';
import type { FunctionMemory } from './config';
import type { ScenarioDefinition } from './definition';
import { DISPATCHER_OVERHEAD_MS, ENGINE_UNTIMED_MS } from './level-use';
import {
  COST_EXPLORER_REQUEST_USD,
  LAMBDA_GB_SECOND_USD,
  LAMBDA_REQUEST_USD,
  modelPrice,
  STATE_TRANSITION_USD,
} from './pricing';
import type { LevelRecord } from './records';
import { summarizeRun } from './summary';

/** The run input (and scenario field) naming the budget, in USD. */
export const BUDGET_INPUT = 'budget_usd';

/** What the input accepts, in words, for error messages. */
export const BUDGET_ACCEPTS = 'a number of US dollars greater than 0 and at most 10000, such as 0.05';

/** Largest budget accepted, in USD: a typo (`500` for `5.00`) is caught by the ceiling rather than billed. */
export const MAX_BUDGET_USD = 10_000;

/**
 * Cost Explorer requests a call of a Cost Explorer tool (spec `service: 'ce'`)
 * is estimated at: one page of the period and one of the period it is compared
 * with. Each request is USD 0.01 ("AWS Cost Management pricing"); a call that
 * reads more pages is counted at what it reported once it has run.
 */
export const COST_EXPLORER_REQUESTS_ESTIMATE = 2;

/** Why `value` is not a budget, or undefined when it is one. */
export function budgetProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_BUDGET_USD) {
    // JSON reads 1e400 as Infinity, which JSON.stringify would write as null.
    const got =
      typeof value === 'number' && !Number.isFinite(value)
        ? `${value}, which is not a finite number`
        : JSON.stringify(value);
    return `expected ${BUDGET_ACCEPTS}, got ${got}`;
  }
  return undefined;
}

/** The run's budget in USD from its merged input (`$.input.budget_usd`), or undefined when it has none. */
export function budgetOf(input: Readonly<Record<string, unknown>>): number | undefined {
  const value = input[BUDGET_INPUT];
  return typeof value === 'number' && budgetProblem(value) === undefined ? value : undefined;
}

/** What a piece of work is expected to use, counted as the run summary counts (summary.ts, `RunCounts`). */
export interface WorkUse {
  readonly stateTransitions: number;
  readonly lambdaInvocations: number;
  readonly lambdaGbSeconds: number;
  readonly costExplorerRequests?: number;
  /** Model tokens and the model they are priced at (unpriced when ./pricing.ts does not know it). */
  readonly model?: { readonly id: string; readonly inputTokens: number; readonly outputTokens: number };
}

/** USD of `use` at the summary's prices (./pricing.ts). */
export function usdOf(use: WorkUse): number {
  const price = use.model ? modelPrice(use.model.id) : undefined;
  const modelUsd =
    use.model && price
      ? (use.model.inputTokens / 1000) * price.inputPer1k +
        (use.model.outputTokens / 1000) * price.outputPer1k
      : 0;
  return (
    use.stateTransitions * STATE_TRANSITION_USD +
    use.lambdaInvocations * LAMBDA_REQUEST_USD +
    use.lambdaGbSeconds * LAMBDA_GB_SECOND_USD +
    (use.costExplorerRequests ?? 0) * COST_EXPLORER_REQUEST_USD +
    modelUsd
  );
}

/**
 * What one dispatched call can use: its Task and the Catch Pass a failure goes
 * through (2 transitions), the dispatcher's and the tool function's invocations,
 * both held for the tool's timeout (its spec's `runtime.timeoutSeconds`), and
 * for a Cost Explorer tool {@link COST_EXPLORER_REQUESTS_ESTIMATE} requests. A
 * file tool runs in the dispatcher (one invocation).
 */
export function callUse(spec: ToolSpec, memory: FunctionMemory): WorkUse {
  const seconds = toolTimeoutSeconds(spec);
  const toolMb = memory.toolMb[spec.name];
  const dispatcherGbs = (memory.dispatcherMb / 1024) * (seconds + DISPATCHER_OVERHEAD_MS / 1000);
  return {
    stateTransitions: 2,
    lambdaInvocations: toolMb === undefined ? 1 : 2,
    lambdaGbSeconds: dispatcherGbs + (toolMb === undefined ? 0 : (toolMb / 1024) * seconds),
    ...(spec.service === 'ce' ? { costExplorerRequests: COST_EXPLORER_REQUESTS_ESTIMATE } : {}),
  };
}

/**
 * What one member account of a per-account level can use: each of the level's
 * calls ({@link callUse}), and around them the account's own states as the run
 * summary counts them (its child execution's start, the batch and account states,
 * `account_done`: 4 transitions) and its `account_done` engine invocation.
 */
export function accountUse(calls: readonly ToolSpec[], memory: FunctionMemory): WorkUse {
  const each = calls.map((spec) => callUse(spec, memory));
  return {
    stateTransitions: 4 + each.reduce((sum, use) => sum + use.stateTransitions, 0),
    lambdaInvocations: 1 + each.reduce((sum, use) => sum + use.lambdaInvocations, 0),
    lambdaGbSeconds:
      (memory.engineMb / 1024) * (ENGINE_UNTIMED_MS / 1000) +
      each.reduce((sum, use) => sum + use.lambdaGbSeconds, 0),
    costExplorerRequests: each.reduce((sum, use) => sum + (use.costExplorerRequests ?? 0), 0),
  };
}

/**
 * What one model turn can use: the engine's Task and the route Choice (2
 * transitions), one engine invocation held for the model call's timeout, the
 * conversation's input tokens and `maxTokens` output tokens.
 *
 * @param inputTokens - the request's input tokens as estimated (see {@link tokensOfBytes}).
 * @param timeoutMs - the model call's timeout, in ms.
 */
export function modelTurnUse(options: {
  readonly model: string;
  readonly inputTokens: number;
  readonly maxTokens: number;
  readonly timeoutMs: number;
  readonly memory: FunctionMemory;
}): WorkUse {
  const { memory } = options;
  return {
    stateTransitions: 2,
    lambdaInvocations: 1,
    lambdaGbSeconds: (memory.engineMb / 1024) * ((options.timeoutMs + ENGINE_UNTIMED_MS) / 1000),
    model: { id: options.model, inputTokens: options.inputTokens, outputTokens: options.maxTokens },
  };
}

/**
 * Bytes of JSON sent to a model as input tokens: 1 token per 3 bytes, a little
 * more than the ~4 characters per token the Bedrock model cards give for
 * English, so the estimate errs high.
 */
export function tokensOfBytes(bytes: number): number {
  return Math.ceil(bytes / 3);
}

/** What the run has spent so far: the run summary's estimate over the levels' records. */
export function spentUsd(
  scenario: ScenarioDefinition,
  levels: Readonly<Record<string, LevelRecord>>,
  memory: FunctionMemory,
): number {
  return summarizeRun({ scenario, runId: 'budget', tenant: 'budget', levels, memory }).cost.totalUsd;
}

/**
 * The admission rule over one run's budget: work is admitted while what is
 * spent, what admitted work may still cost and the work's own estimate stay
 * within the budget. Admit in the order the work would start; a skipped piece
 * does not stop a cheaper later one.
 *
 * @example
 * const budget = new RunBudget(0.05, spentUsd(scenario, levels, memory));
 * for (const call of calls) if (!budget.admit(usdOf(callUse(spec, memory)))) skipped.push(call);
 */
export class RunBudget {
  private committed = 0;

  /**
   * @param limitUsd - the budget, in USD.
   * @param spent - USD the run has used so far ({@link spentUsd}).
   */
  constructor(
    readonly limitUsd: number,
    readonly spent: number,
  ) {}

  /** Admits work estimated at `estimateUsd` (its cost is then committed), or refuses it. */
  admit(estimateUsd: number): boolean {
    if (this.spent + this.committed + estimateUsd > this.limitUsd) return false;
    this.committed += estimateUsd;
    return true;
  }

  /** USD admitted work may still cost. */
  get committedUsd(): number {
    return this.committed;
  }

  /** USD left for more work: the budget less what is spent and committed (never below 0). */
  get remainingUsd(): number {
    return Math.max(0, this.limitUsd - this.spent - this.committed);
  }
}

/**
 * A sentence for a skipped piece of work, as the model, the call's record and the
 * report read it.
 *
 * @example skipSentence('aws_cost_breakdown', 0.0214, 0.05, 0.0391)
 * // 'not started: its estimate ($0.0214) would take the run past its budget of $0.05 ($0.0391 spent or committed)'
 * @param counted - what `usedUsd` counts, in words (default "spent or committed").
 */
export function skipSentence(
  what: string,
  estimateUsd: number,
  limitUsd: number,
  usedUsd: number,
  counted = 'spent or committed',
): string {
  return `${what} not started: its estimate ($${estimateUsd.toFixed(4)}) would take the run past its budget of $${limitUsd} ($${usedUsd.toFixed(4)} ${counted})`;
}
