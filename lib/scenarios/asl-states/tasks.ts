/**
 * The parts every state of a scenario's definition is built from: the Task
 * targets and their placeholders, retry policies and timeouts, the stable state
 * names, the engine Task, and the dispatcher calls of a Map iteration.
 */
import { MODEL_RETRY_ATTEMPTS } from '../../../functions/engine/limits';
import { toolTimeoutSeconds } from '../../../functions/runtime/spec';
import { TASK_TOKEN_FIELD } from '../../../functions/runtime/task-callback';
import { toolCatalog } from '../../../functions/tools/catalog';
import type { Scenario } from '../model';

/** The definition being built: the scenario, where its Tasks point, and the states so far. */
export interface AslBuild {
  readonly scenario: Scenario;
  readonly dispatcherArn: string;
  readonly engineArn: string;
  /** The platform's Lambda concurrency a run may keep busy (lib/scenarios/concurrency-budget.ts). */
  readonly lambdaConcurrency: number;
  readonly states: Record<string, Record<string, unknown>>;
}

/** Placeholder for the dispatcher's ARN; CDK fills it through `definitionSubstitutions`. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a Step Functions definition substitution, not a template literal
export const DISPATCHER_ARN_PLACEHOLDER = '${DispatcherArn}';

/** Placeholder for the run-workspace bucket's name (Distributed Map `ItemReader` and `ResultWriter`). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a Step Functions definition substitution, not a template literal
export const WORKSPACE_BUCKET_PLACEHOLDER = '${WorkspaceBucket}';

/** Placeholder for the engine function's ARN. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a Step Functions definition substitution, not a template literal
export const ENGINE_ARN_PLACEHOLDER = '${EngineArn}';

/** The Lambda integration that waits for a task token (Step Functions developer guide, "Wait for a Callback with Task Token"). */
export const WAIT_FOR_TASK_TOKEN_RESOURCE = 'arn:aws:states:::lambda:invoke.waitForTaskToken';

/** An Amazon States Language definition. */
export type AslDefinition = {
  readonly Comment: string;
  readonly StartAt: string;
  readonly TimeoutSeconds: number;
  readonly States: Record<string, Record<string, unknown>>;
};

/** Seconds a run may take besides waiting for answers: one hour. */
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

export const LAMBDA_RETRY = {
  ErrorEquals: LAMBDA_SERVICE_ERRORS,
  IntervalSeconds: 2,
  MaxAttempts: 3,
  BackoffRate: 2,
  JitterStrategy: 'FULL',
};

/**
 * A model kept throttling or timing out past the SDK's own retries: wait 5, 10,
 * 20, 40 s (jittered) in Step Functions, not in a billed Lambda.
 */
export const MODEL_RETRY = {
  ErrorEquals: ['ModelRetryable'],
  IntervalSeconds: 5,
  MaxAttempts: MODEL_RETRY_ATTEMPTS,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: 'FULL',
};

/**
 * Seconds a dispatcher Task state allows beyond its tool's own timeout: the
 * dispatcher's and the tool function's cold starts (at most 10 s each: AWS docs,
 * "Lambda execution environment lifecycle") and the dispatcher's own margin.
 */
export const TASK_TIMEOUT_MARGIN_SECONDS = 30;

/** The engine function's Lambda timeout, in seconds: a long model answer takes minutes. */
export const ENGINE_TIMEOUT_SECONDS = 300;

/** An engine Task state's `TimeoutSeconds`: the function's timeout plus the cold-start margin. */
export const ENGINE_TASK_TIMEOUT_SECONDS = ENGINE_TIMEOUT_SECONDS + TASK_TIMEOUT_MARGIN_SECONDS;

/**
 * A call's Task state `TimeoutSeconds`: the tool's timeout (its spec's
 * `runtime.timeoutSeconds`, default 60 s) plus {@link TASK_TIMEOUT_MARGIN_SECONDS}.
 *
 * @throws UnknownToolError when `tool` is not registered.
 */
export function taskTimeoutSeconds(tool: string): number {
  return toolTimeoutSeconds(toolCatalog.get(tool)) + TASK_TIMEOUT_MARGIN_SECONDS;
}

/** The stable state names of a level. */
export function stateNames(level: string) {
  return {
    level,
    calls: `${level}_calls`,
    budget: `${level}_budget`,
    gate: `${level}_gate`,
    call: `${level}_call`,
    done: `${level}_done`,
    accountsRoute: `${level}_accounts_route`,
    accounts: `${level}_accounts`,
    accountsInline: `${level}_accounts_inline`,
    accountBatch: `${level}_account_batch`,
    account: `${level}_account`,
    accountCalls: `${level}_account_calls`,
    accountCall: `${level}_account_call`,
    accountDone: `${level}_account_done`,
    accountFailed: `${level}_account_failed`,
    doneFailed: `${level}_done_failed`,
    model: `${level}_model`,
    route: `${level}_route`,
    tools: `${level}_tools`,
    tool: `${level}_tool`,
    askTools: `${level}_ask_tools`,
    askTool: `${level}_ask_tool`,
    askPost: `${level}_ask_post`,
    askPostFailed: `${level}_ask_post_failed`,
    askWait: `${level}_ask_wait`,
    noAnswer: `${level}_no_answer`,
    askFailed: `${level}_ask_failed`,
    wrapup: `${level}_wrapup`,
    failed: `${level}_failed`,
  };
}

/** The run's identity, as every engine event carries it. */
export function runIdentity(build: AslBuild): Record<string, unknown> {
  return { scenario: build.scenario.name, 'tenant.$': '$.input.tenant', 'runId.$': '$$.Execution.Name' };
}

export function engineTask(
  build: AslBuild,
  parameters: Record<string, unknown>,
  resultPath: string,
  next: Record<string, unknown>,
  extra: { retry?: unknown[]; catchTo?: string; catchPath?: string } = {},
): Record<string, unknown> {
  return {
    Type: 'Task',
    Resource: build.engineArn,
    Parameters: parameters,
    // "$" is ResultPath's default; left out, as aws-local-stepfunctions sets a key named "$" instead.
    ...(resultPath === '$' ? {} : { ResultPath: resultPath }),
    TimeoutSeconds: ENGINE_TASK_TIMEOUT_SECONDS,
    Retry: [LAMBDA_RETRY, ...(extra.retry ?? [])],
    ...(extra.catchTo
      ? {
          Catch: [
            {
              ErrorEquals: ['States.ALL'],
              ...(extra.catchPath ? { ResultPath: extra.catchPath } : {}),
              Next: extra.catchTo,
            },
          ],
        }
      : {}),
    ...next,
  };
}

/**
 * How a call's Task reaches the dispatcher. `sync`: the envelope is the
 * dispatcher's input and its return the result (agent levels, `ask_user`).
 * `callback`: a plan level's call (docs/architecture.md, "Functions a call keeps
 * busy") — `lambda:invoke.waitForTaskToken` on the dispatcher with the envelope's
 * `fields` and `$$.Task.Token` as its payload; the dispatcher checks the call and
 * hands it to the tool's function, which answers the token with the result.
 */
export type CallMode =
  | { readonly kind: 'sync' }
  | { readonly kind: 'callback'; readonly fields: readonly string[] };

/**
 * The states of one dispatched call inside a Map iteration: the Task (its input
 * is the envelope), and the Catch Pass states writing an `ok: false` result
 * (`caught: true`) when it times out or the dispatcher (or, with a task token,
 * the tool's function) fails, so the run goes on. A callback Task's timeout is
 * the same as a synchronous one's: the backstop when no one answers its token.
 */
export function callStates(
  build: AslBuild,
  name: string,
  timeoutSeconds: number,
  mode: CallMode = { kind: 'sync' },
): Record<string, Record<string, unknown>> {
  const failure = (code: string, message: Record<string, string>, retryable: boolean) => ({
    Type: 'Pass',
    Parameters: {
      ok: false,
      'tool.$': '$.tool',
      'callId.$': '$.callId',
      durationMs: 0,
      caught: true,
      ...('message' in message
        ? { summary: `${code}: ${message.message}` }
        : {
            'summary.$': (message['message.$'] ?? '').replace("States.Format('", `States.Format('${code}: `),
          }),
      error: { code, ...message, retryable },
    },
    End: true,
  });
  const target =
    mode.kind === 'sync'
      ? { Resource: build.dispatcherArn }
      : {
          Resource: WAIT_FOR_TASK_TOKEN_RESOURCE,
          Parameters: {
            FunctionName: build.dispatcherArn,
            Payload: {
              ...Object.fromEntries(mode.fields.map((field) => [`${field}.$`, `$.${field}`])),
              [`${TASK_TOKEN_FIELD}.$`]: '$$.Task.Token',
            },
          },
        };
  return {
    [name]: {
      Type: 'Task',
      ...target,
      TimeoutSeconds: timeoutSeconds,
      Retry: [LAMBDA_RETRY],
      Catch: [
        { ErrorEquals: ['States.Timeout'], ResultPath: '$.lastError', Next: `${name}_timed_out` },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.lastError', Next: `${name}_failed` },
      ],
      End: true,
    },
    [`${name}_timed_out`]: failure(
      'timeout',
      { message: `The call did not finish within its Task timeout (${timeoutSeconds} s)` },
      true,
    ),
    [`${name}_failed`]: failure(
      'internal_error',
      {
        'message.$':
          mode.kind === 'sync'
            ? "States.Format('The dispatcher failed ({})', $.lastError.Error)"
            : "States.Format('The dispatcher or the tool function failed ({})', $.lastError.Error)",
      },
      false,
    ),
  };
}

/** A Map sending each item (`{ tool, callId, args }`) to the dispatcher as the native envelope. */
export function dispatchMap(
  build: AslBuild,
  level: string,
  itemsPath: string,
  iteration: string,
  options: {
    concurrency: number;
    timeoutSeconds: number;
    resultPath: string;
    next: string;
    pins?: boolean;
    /**
     * Plan levels: each call's Task waits for its task token, answered by the tool's
     * function ({@link CallMode} `callback`). @default false (the dispatcher answers)
     */
    callback?: boolean;
    /**
     * Where the call's identity is read: a per-account child holds the parent's run id
     * and the member account beside the input. @default the run's own (`$.input.tenant`, `$$.Execution.Name`)
     */
    identity?: { readonly runId: string; readonly account: string };
  },
): Record<string, unknown> {
  const selector: Record<string, unknown> = {
    'tenant.$': '$.input.tenant',
    scenario: build.scenario.name,
    level,
    'tool.$': '$$.Map.Item.Value.tool',
    'args.$': '$$.Map.Item.Value.args',
    'runId.$': options.identity?.runId ?? '$$.Execution.Name',
    'callId.$': '$$.Map.Item.Value.callId',
    // The member account the call reads (docs/organizations-runs.md, "The envelope").
    ...(options.identity ? { 'account.$': options.identity.account } : {}),
    // The level's pins as the engine resolved them (never the model's args): the dispatcher enforces them.
    ...(options.pins ? { 'pins.$': '$.turn.pins' } : {}),
  };
  // A callback Task passes on exactly the envelope the selector built.
  const mode: CallMode = options.callback
    ? { kind: 'callback', fields: Object.keys(selector).map((key) => key.replace(/\.\$$/, '')) }
    : { kind: 'sync' };
  return {
    Type: 'Map',
    ItemsPath: itemsPath,
    MaxConcurrency: options.concurrency,
    ItemSelector: selector,
    ItemProcessor: {
      ProcessorConfig: { Mode: 'INLINE' },
      StartAt: iteration,
      States: callStates(build, iteration, options.timeoutSeconds, mode),
    },
    ResultPath: options.resultPath,
    Next: options.next,
  };
}
