/**
 * A plan level's states: a Pass building the calls' args (`$.pending`), the
 * Choice `L_budget` sending a run with a budget through `L_gate` (the engine's
 * `plan_gate`: only the calls that fit), a Map `L_calls` sending each to the dispatcher, then `L_done` (the engine's
 * `plan_done`), or `L_done_failed` keeping the results as returned.
 */
import type { PlanLevel } from '../../../functions/engine/definition';
import { BUDGET_INPUT } from '../../../functions/engine/run-budget';
import { argsTemplate } from './args';
import { type AslBuild, dispatchMap, engineTask, runIdentity, stateNames, taskTimeoutSeconds } from './tasks';

/** The longest task timeout of a plan level's calls, in seconds: its call Map's task timeout. */
export function levelTimeoutSeconds(level: PlanLevel): number {
  return Math.max(...level.calls.map((call) => taskTimeoutSeconds(call.tool)));
}

/** The Pass state's `Parameters` building a plan level's calls: tool, call id `<level>/<position>`, args. */
export function levelCallsParameters(
  build: AslBuild,
  level: PlanLevel,
  index: number,
): Record<string, unknown> {
  return {
    calls: level.calls.map((call, position) => ({
      tool: call.tool,
      callId: `${level.name}/${position}`,
      args: argsTemplate(call.args, build.scenario, index),
    })),
  };
}

export function planStates(build: AslBuild, level: PlanLevel, index: number, next: string): void {
  const names = stateNames(level.name);
  const timeoutSeconds = levelTimeoutSeconds(level);
  build.states[names.level] = {
    Type: 'Pass',
    Comment: `${level.name}: ${level.calls.map((call) => call.tool).join(', ')}`,
    Parameters: levelCallsParameters(build, level, index),
    ResultPath: '$.pending',
    Next: names.budget,
  };
  // Under a run budget the engine keeps the calls whose estimates fit (functions/engine/run-budget.ts).
  build.states[names.budget] = {
    Type: 'Choice',
    Choices: [{ Variable: `$.input.${BUDGET_INPUT}`, IsPresent: true, Next: names.gate }],
    Default: names.calls,
  };
  build.states[names.gate] = engineTask(
    build,
    {
      action: 'plan_gate',
      ...runIdentity(build),
      level: level.name,
      'input.$': '$.input',
      'levels.$': '$.levels',
      'pending.$': '$.pending',
    },
    '$.pending',
    { Next: names.calls },
  );
  // The results replace the args: the state never holds both.
  build.states[names.calls] = dispatchMap(build, level.name, '$.pending.calls', names.call, {
    concurrency: level.concurrency,
    timeoutSeconds,
    resultPath: '$.pending',
    next: names.done,
    // One function per call in flight: the tool's function answers the Task's token.
    callback: true,
  });
  build.states[names.done] = engineTask(
    build,
    {
      action: 'plan_done',
      ...runIdentity(build),
      level: level.name,
      'input.$': '$.input',
      'levels.$': '$.levels',
      'results.$': '$.pending',
    },
    '$',
    { Next: next },
    { catchTo: names.doneFailed, catchPath: '$.lastError' },
  );
  build.states[names.doneFailed] = {
    Type: 'Pass',
    Comment: 'The engine could not close the level: keep the results as the dispatcher returned them.',
    Parameters: {
      kind: 'plan',
      outcome: 'partial',
      'summary.$': `States.Format('The ${level.name} level could not be recorded ({}); its results are kept as returned', $.lastError.Error)`,
      'calls.$': '$.pending',
      ...(level.track_findings
        ? {
            findings: {
              total: 0,
              new: 0,
              unchanged: 0,
              resolved: 0,
              unknown: 0,
              bySeverity: {},
              estimatedMonthlyCostUsd: 0,
            },
          }
        : {}),
    },
    ResultPath: `$.levels.${level.name}`,
    Next: next,
  };
}
