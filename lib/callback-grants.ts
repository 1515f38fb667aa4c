import { Duration } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { Scenario } from './scenarios/model';

/**
 * How long a tool's queued asynchronous event may wait before Lambda drops it:
 * 60 s, the least Lambda accepts (Lambda developer guide, "Configuring error
 * handling for asynchronous invocation": 60 s to 6 hours). A plan call's Task
 * waits its tool's timeout plus 30 s (lib/scenarios/asl-states/tasks.ts); an
 * event dropped unstarted ends there as `timeout`, and one that starts late
 * still runs once.
 */
export const TOOL_EVENT_MAX_AGE_SECONDS = 60;

/**
 * A tool function's asynchronous invocations (a plan call's hand-off,
 * functions/dispatcher/callback.ts): no retry — Lambda would otherwise run a
 * failed call up to twice more (the default, "Configuring error handling for
 * asynchronous invocation") — and events kept {@link TOOL_EVENT_MAX_AGE_SECONDS} at most.
 */
export function configureToolAsyncInvoke(fn: IFunction): void {
  fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.seconds(TOOL_EVENT_MAX_AGE_SECONDS) });
}

/** The tools a scenario's plan levels call: their functions answer those calls' task tokens. */
export function planCallTools(scenario: Scenario): Set<string> {
  return new Set(
    scenario.levels.flatMap((level) => (level.kind === 'plan' ? level.calls.map((call) => call.tool) : [])),
  );
}

/** What {@link grantTaskAnswers} grants to. */
export interface TaskAnswerGrants {
  readonly scenarios: readonly Scenario[];
  /** The state machine's name of a scenario (known at synth: no reference, so no dependency cycle). */
  readonly stateMachineName: (scenario: string) => string;
  /** The tool functions' roles, by tool name. */
  readonly toolRoles: Readonly<Record<string, IGrantable>>;
  /** The dispatcher: it answers a plan call that ends in it (refused, a file tool, a failed hand-off). */
  readonly dispatcher: IGrantable;
}

/**
 * `states:SendTaskSuccess`, `SendTaskFailure` and `SendTaskHeartbeat` (CDK's
 * `grantTaskResponse`) on the state machine of each scenario with plan levels,
 * to the dispatcher and to the functions of the tools those plan levels call —
 * on those state machines' ARNs only, never `"*"` (docs/architecture.md, "Who may
 * answer a task token"). A tool no plan level calls gets none.
 */
export function grantTaskAnswers(scope: Construct, grants: TaskAnswerGrants): void {
  for (const scenario of grants.scenarios) {
    const tools = planCallTools(scenario);
    if (tools.size === 0) continue;
    const machine = StateMachine.fromStateMachineName(
      scope,
      `TaskAnswers${scenario.name}`,
      grants.stateMachineName(scenario.name),
    );
    machine.grantTaskResponse(grants.dispatcher);
    for (const tool of tools) {
      const role = grants.toolRoles[tool];
      // A file tool runs in the dispatcher: it has no function.
      if (role) machine.grantTaskResponse(role);
    }
  }
}
