import { toolTimeoutSeconds } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';
import type { Scenario } from './model';

/** Placeholder for the dispatcher's ARN; CDK fills it through `definitionSubstitutions`. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a Step Functions definition substitution, not a template literal
export const DISPATCHER_ARN_PLACEHOLDER = '${DispatcherArn}';

/** An Amazon States Language definition (states-language.net). */
export type AslDefinition = {
  readonly Comment: string;
  readonly StartAt: string;
  readonly TimeoutSeconds: number;
  readonly States: Record<string, Record<string, unknown>>;
};

/** A whole scenario run may take at most this long, in seconds. */
export const SCENARIO_TIMEOUT_SECONDS = 3600;

/**
 * Lambda service errors a Task retries (AWS docs, "Handling errors in Step
 * Functions: Lambda service exceptions"). Tool failures are not among them: the
 * dispatcher returns them as `ok: false` results.
 */
const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

/**
 * Seconds a Task state allows beyond its tool's own timeout, for the dispatcher
 * around the call: its cold start and the tool function's (the Lambda init phase,
 * at most 10 s each, is not counted in a function's timeout: AWS docs, "Lambda
 * execution environment lifecycle"), then its own work and the invoke round trip
 * (the 10 s the dispatcher's timeout adds over the slowest tool's, see
 * lib/external-tools-stack.ts). A tool that hits its own timeout is thus reported
 * by the dispatcher as a result; only a stuck call meets the Task's timeout.
 */
export const TASK_TIMEOUT_MARGIN_SECONDS = 30;

/**
 * A call's Task state `TimeoutSeconds`: the tool's timeout (its spec's
 * `runtime.timeoutSeconds`, default 60 s) plus {@link TASK_TIMEOUT_MARGIN_SECONDS}.
 * Set on every Task: without it Step Functions waits up to the execution's
 * timeout, and the local interpreter (aws-local-stepfunctions) cuts every Task
 * at 60 s.
 *
 * @throws UnknownToolError when `tool` is not registered.
 */
export function taskTimeoutSeconds(tool: string): number {
  return toolTimeoutSeconds(toolCatalog.get(tool)) + TASK_TIMEOUT_MARGIN_SECONDS;
}

/** Name of the Task state of a call, and the key of its result under `$.results`. */
export function callKey(level: string, index: number): string {
  return `${level}_${index}`;
}

/** The error a failure Pass state writes: a fixed message, or an intrinsic building it from `$.lastError`. */
type CaughtError =
  | { readonly code: string; readonly message: string; readonly retryable: boolean }
  | { readonly code: string; readonly messageFormat: string; readonly retryable: boolean };

/**
 * A Pass state writing an `ok: false` ToolResult where the Task's result would
 * go, so the run goes on. Only the caught error's name is used: a Cause may carry
 * more than a result should.
 */
function failureState(
  call: { readonly tool: string; readonly callId: string; readonly key: string },
  next: string,
  error: CaughtError,
): Record<string, unknown> {
  const message = 'message' in error ? { message: error.message } : { 'message.$': error.messageFormat };
  const summary =
    'message' in error
      ? { summary: `${error.code}: ${error.message}` }
      : { 'summary.$': error.messageFormat.replace("States.Format('", `States.Format('${error.code}: `) };
  return {
    Type: 'Pass',
    Parameters: {
      ok: false,
      tool: call.tool,
      callId: call.callId,
      durationMs: 0,
      ...summary,
      error: { code: error.code, ...message, retryable: error.retryable },
    },
    ResultPath: `$.results.${call.key}`,
    Next: next,
  };
}

/**
 * The state machine of a scenario: a `Inputs` Pass state merging the execution
 * input over the declared defaults into `$.input`; one Task state per call, in
 * level order, invoking the dispatcher with the native envelope and storing its
 * ToolResult at `$.results.<level>_<index>`, bounded by {@link taskTimeoutSeconds}; Catches
 * that turn a Task timeout into a `timeout` result and a dispatcher crash into an
 * `internal_error` result, so the run goes on; a final `Done` state
 * whose output is `{ scenario, input, results }`.
 *
 * @param dispatcherArn - the dispatcher's ARN, or {@link DISPATCHER_ARN_PLACEHOLDER} for CDK.
 */
export function scenarioToAsl(
  scenario: Scenario,
  dispatcherArn: string = DISPATCHER_ARN_PLACEHOLDER,
): AslDefinition {
  const defaults = Object.fromEntries(
    Object.entries(scenario.inputs)
      .filter(([, input]) => input.default !== undefined)
      .map(([key, input]) => [key, input.default]),
  );
  const calls = scenario.levels.flatMap((level) =>
    level.calls.map((call, index) => ({
      level: level.name,
      tool: call.tool,
      args: call.args,
      key: callKey(level.name, index),
      index,
    })),
  );
  const states: Record<string, Record<string, unknown>> = {
    Defaults: { Type: 'Pass', Result: defaults, ResultPath: '$.defaults', Next: 'Inputs' },
    Inputs: {
      Type: 'Pass',
      Parameters: { 'input.$': 'States.JsonMerge($.defaults, $$.Execution.Input, false)', results: {} },
      Next: calls[0]?.key ?? 'Done',
    },
  };
  calls.forEach((call, position) => {
    const next = calls[position + 1]?.key ?? 'Done';
    const failed = `${call.key}_failed`;
    const timedOut = `${call.key}_timed_out`;
    states[call.key] = {
      Type: 'Task',
      Comment: `${call.level}: ${call.tool}`,
      Resource: dispatcherArn,
      Parameters: {
        'tenant.$': '$.input.tenant',
        scenario: scenario.name,
        level: call.level,
        tool: call.tool,
        args: call.args,
        'runId.$': '$$.Execution.Name',
        callId: `${call.level}/${call.index}`,
      },
      ResultPath: `$.results.${call.key}`,
      TimeoutSeconds: taskTimeoutSeconds(call.tool),
      Retry: [
        {
          ErrorEquals: LAMBDA_SERVICE_ERRORS,
          IntervalSeconds: 2,
          MaxAttempts: 3,
          BackoffRate: 2,
          JitterStrategy: 'FULL',
        },
      ],
      Catch: [
        { ErrorEquals: ['States.Timeout'], ResultPath: '$.lastError', Next: timedOut },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.lastError', Next: failed },
      ],
      Next: next,
    };
    const callId = `${call.level}/${call.index}`;
    const timeout = taskTimeoutSeconds(call.tool);
    states[timedOut] = failureState({ tool: call.tool, callId, key: call.key }, next, {
      code: 'timeout',
      message: `The call did not finish within its Task timeout (${timeout} s)`,
      retryable: true,
    });
    states[failed] = failureState({ tool: call.tool, callId, key: call.key }, next, {
      code: 'internal_error',
      messageFormat: "States.Format('The dispatcher failed ({})', $.lastError.Error)",
      retryable: false,
    });
  });
  states.Done = {
    Type: 'Pass',
    Parameters: { scenario: scenario.name, 'input.$': '$.input', 'results.$': '$.results' },
    End: true,
  };
  return {
    Comment: `${scenario.name}: ${scenario.description}`,
    StartAt: 'Defaults',
    TimeoutSeconds: SCENARIO_TIMEOUT_SECONDS,
    States: states,
  };
}
