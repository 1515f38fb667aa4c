/**
 * Scenario → Amazon States Language (states-language.net): one STANDARD state
 * machine per scenario, the same definition deployed and run locally, built by
 * the modules of `asl-states/` along the states they build (`run.ts`: Start and
 * Summary; `plan.ts` and `agent.ts`: the levels; `tasks.ts`: Tasks, retries,
 * timeouts, names; `args.ts`: references as JSONPath). Layout
 * (docs/scenarios.md, "The states of a run"):
 *
 * - `Start`: the engine checks the execution input and merges it over the
 *   defaults (`$.input`); a bad input fails the execution (`StartFailed`).
 * - a plan level `L`: a Pass building the calls' args (`$.pending`), a Map
 *   `L_calls` sending each to the dispatcher (bounded concurrency, a Catch per
 *   call so a crash or a timeout is a result), then `L_done`: the engine stores
 *   the results in the run's workspace, tracks findings, and keeps a compact
 *   record at `$.levels.L` (the whole state becomes `{ input, levels }`).
 * - an agent level `L`: `L_model` (the engine: a Converse turn) → `L_route` →
 *   `L_tools` (a Map sending every toolUse to the dispatcher) → `L_model` … until
 *   the engine says `done`; `ask_user` goes through `L_ask_tools` → `L_ask_post`
 *   (Slack, through the dispatcher) → `L_ask_wait` (`.waitForTaskToken`, with its
 *   timeout) → `L_model`; `L_done` moves the level's record to `$.levels.L`.
 * - a per-account plan level `L` (`for_each_account`): `L` (the accounts
 *   to the workspace) → a Distributed Map of child executions, one batch of
 *   accounts each, results written to the workspace → `L_done` (the organization
 *   report); asl-states/org.ts.
 * - `Summary`: the run summary, the execution's output; then `PublishRunCompleted`
 *   puts the `Run Completed` event (lib/scenarios/run-events.ts) and `Done` ends the run.
 *
 * State names are stable (`<level>_<role>`, unique across the definition,
 * Map iterations included): the local runner routes Task states by name
 * (aws-local-stepfunctions `taskResourceLocalHandlers`).
 */
import type { ScenarioLevel } from '../../functions/engine/definition';
import { MAX_QUESTIONS_PER_LEVEL } from '../../functions/engine/limits';
import { IDEMPOTENCY_RECORD_SECONDS } from '../../functions/runtime/call-key';
import { agentStates } from './asl-states/agent';
import { orgStates } from './asl-states/org';
import { planStates } from './asl-states/plan';
import { startStates, summaryStates } from './asl-states/run';
import {
  type AslBuild,
  type AslDefinition,
  DISPATCHER_ARN_PLACEHOLDER,
  ENGINE_ARN_PLACEHOLDER,
  SCENARIO_TIMEOUT_SECONDS,
} from './asl-states/tasks';
import { DEFAULT_LAMBDA_CONCURRENCY } from './concurrency-budget';
import type { Scenario } from './model';

export { argsTemplate } from './asl-states/args';
export {
  type AslDefinition,
  DISPATCHER_ARN_PLACEHOLDER,
  ENGINE_ARN_PLACEHOLDER,
  ENGINE_TASK_TIMEOUT_SECONDS,
  ENGINE_TIMEOUT_SECONDS,
  SCENARIO_TIMEOUT_SECONDS,
  stateNames,
  TASK_TIMEOUT_MARGIN_SECONDS,
  taskTimeoutSeconds,
  WAIT_FOR_TASK_TOKEN_RESOURCE,
  WORKSPACE_BUCKET_PLACEHOLDER,
} from './asl-states/tasks';

/** Seconds an execution may run: an hour of work plus every question's wait. */
export function executionTimeoutSeconds(levels: readonly ScenarioLevel[]): number {
  return levels.reduce(
    (total, level) =>
      total +
      (level.kind === 'agent' && level.ask_user
        ? level.ask_user.timeout_seconds * MAX_QUESTIONS_PER_LEVEL
        : 0),
    SCENARIO_TIMEOUT_SECONDS,
  );
}

/**
 * Seconds (14 days) within which Step Functions may redrive an ended execution, under its own
 * name (AWS Step Functions developer guide, "Redriving state machines in Step
 * Functions": 14 days after the execution stopped).
 */
export const REDRIVE_WINDOW_SECONDS = 14 * 86_400;

/**
 * How long a write tool's exactly-once records are kept, in seconds (handed to its
 * function as `IDEMPOTENCY_RECORD_SECONDS`, functions/runtime/idempotency.ts): the
 * longest execution of any of `scenarios` ({@link executionTimeoutSeconds}) plus
 * {@link REDRIVE_WINDOW_SECONDS}, and never less than the runtime's 24 hours. A run
 * waiting days on `ask_user` answers outlived the old fixed 24 hours, after which a
 * call of the same run (a target written once per run, a redriven Task) wrote again.
 */
export function recordLifetimeSeconds(
  scenarios: readonly { readonly levels: readonly ScenarioLevel[] }[],
): number {
  const longestRun = Math.max(0, ...scenarios.map((scenario) => executionTimeoutSeconds(scenario.levels)));
  return Math.max(IDEMPOTENCY_RECORD_SECONDS, longestRun + REDRIVE_WINDOW_SECONDS);
}

/** Where the definition's Task states point. */
export interface AslTargets {
  /** @default DISPATCHER_ARN_PLACEHOLDER (CDK substitutes it) */
  readonly dispatcherArn?: string;
  /** @default ENGINE_ARN_PLACEHOLDER (CDK substitutes it) */
  readonly engineArn?: string;
  /**
   * Lambda concurrency a run may keep busy: per-account levels' `MaxConcurrency`
   * is computed from it (lib/scenarios/concurrency-budget.ts).
   * @default DEFAULT_LAMBDA_CONCURRENCY (1,000)
   */
  readonly lambdaConcurrency?: number;
}

/**
 * The state machine definition of a scenario (layout: this module's header).
 *
 * @throws Error for a `{{…}}` reference the loader would have refused (scenarios come from the loader).
 */
export function scenarioToAsl(scenario: Scenario, targets: AslTargets = {}): AslDefinition {
  const build: AslBuild = {
    scenario,
    dispatcherArn: targets.dispatcherArn ?? DISPATCHER_ARN_PLACEHOLDER,
    engineArn: targets.engineArn ?? ENGINE_ARN_PLACEHOLDER,
    lambdaConcurrency: targets.lambdaConcurrency ?? DEFAULT_LAMBDA_CONCURRENCY,
    states: {},
  };
  const firstStates = scenario.levels.map((level) => level.name);
  startStates(build, firstStates[0] ?? 'Summary');
  scenario.levels.forEach((level, index) => {
    const next = firstStates[index + 1] ?? 'Summary';
    if (level.kind === 'plan' && level.for_each_account) orgStates(build, level, index, next);
    else if (level.kind === 'plan') planStates(build, level, index, next);
    else agentStates(build, level, index, next);
  });
  summaryStates(build);
  return {
    Comment: `${scenario.name}: ${scenario.description}`,
    StartAt: 'Start',
    TimeoutSeconds: executionTimeoutSeconds(scenario.levels),
    States: build.states,
  };
}
