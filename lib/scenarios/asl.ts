/**
 * Scenario → Amazon States Language (states-language.net): one STANDARD state
 * machine per scenario, the same definition deployed and run locally. Layout
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
 * - `Summary`: the run summary, the execution's output; then `PublishRunCompleted`
 *   puts the `Run Completed` event (lib/scenarios/run-events.ts) and `Done` ends the run.
 *
 * State names are stable (`<level>_<role>`, unique across the definition,
 * Map iterations included): the local runner routes Task states by name
 * (aws-local-stepfunctions `taskResourceLocalHandlers`).
 */
import {
  type AgentLevel,
  ASK_USER_LEVEL,
  type PlanLevel,
  type ScenarioLevel,
} from '../../functions/engine/definition';
import {
  AGENT_TOOL_CONCURRENCY,
  MAX_QUESTIONS_PER_LEVEL,
  MODEL_RETRY_ATTEMPTS,
} from '../../functions/engine/limits';
import { NO_USAGE } from '../../functions/engine/records';
import { parseTemplate, soleRef } from '../../functions/engine/template';
import { toolTimeoutSeconds } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';
import type { Scenario } from './model';
import { resolveRef } from './references';
import { PUBLISH_RUN_COMPLETED_STATE, runCompletedEventState } from './run-events';

/** Placeholder for the dispatcher's ARN; CDK fills it through `definitionSubstitutions`. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a Step Functions definition substitution, not a template literal
export const DISPATCHER_ARN_PLACEHOLDER = '${DispatcherArn}';

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

const LAMBDA_RETRY = {
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
const MODEL_RETRY = {
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
    call: `${level}_call`,
    done: `${level}_done`,
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

/** Escapes literal text for a `States.Format` template: `'`, `{`, `}` and `\` take a backslash. */
function formatLiteral(text: string): string {
  return text.replace(/[\\'{}]/g, (char) => `\\${char}`);
}

/**
 * A string with `{{…}}` references as a payload-template entry: a sole reference
 * keeps its JSON type (`key.$: <path>`), text with references becomes
 * `States.Format`, a synth-time value (`run.scenario`) is written in.
 */
function templateEntry(key: string, text: string, scenario: Scenario, levelIndex: number): [string, unknown] {
  const resolve = (expression: { expression: string; path: readonly string[] }) => {
    const resolution = resolveRef(expression, { scenario, levelIndex, use: 'args' });
    if ('problem' in resolution) throw new Error(`${scenario.name}: ${resolution.problem}`);
    return resolution.target;
  };
  const sole = soleRef(text);
  if (sole) {
    const target = resolve(sole);
    if (target.kind === 'path') return [`${key}.$`, target.path];
    if (target.kind === 'static') return [key, target.value];
  }
  const parts = parseTemplate(text);
  if (parts.every((part) => typeof part === 'string')) return [key, text];
  let format = '';
  const args: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      format += formatLiteral(part);
      continue;
    }
    const target = resolve(part);
    if (target.kind === 'static') format += formatLiteral(target.value);
    else if (target.kind === 'path') {
      format += '{}';
      args.push(target.path);
    }
  }
  return [`${key}.$`, `States.Format('${format}'${args.map((arg) => `, ${arg}`).join('')})`];
}

/** Call args as a payload template (nested objects followed; lists are literal: the loader forbids references in them). */
export function argsTemplate(
  args: Readonly<Record<string, unknown>>,
  scenario: Scenario,
  levelIndex: number,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      if (typeof value === 'string') return templateEntry(key, value, scenario, levelIndex);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        return [key, argsTemplate(value as Record<string, unknown>, scenario, levelIndex)];
      }
      return [key, value];
    }),
  );
}

/** Builds one scenario's definition. */
class AslBuilder {
  readonly states: Record<string, Record<string, unknown>> = {};

  constructor(
    private readonly scenario: Scenario,
    private readonly dispatcherArn: string,
    private readonly engineArn: string,
  ) {}

  /** The run's identity, as every engine event carries it. */
  private run(): Record<string, unknown> {
    return { scenario: this.scenario.name, 'tenant.$': '$.input.tenant', 'runId.$': '$$.Execution.Name' };
  }

  private engineTask(
    parameters: Record<string, unknown>,
    resultPath: string,
    next: Record<string, unknown>,
    extra: { retry?: unknown[]; catchTo?: string; catchPath?: string } = {},
  ): Record<string, unknown> {
    return {
      Type: 'Task',
      Resource: this.engineArn,
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
   * The states of one dispatched call inside a Map iteration: the Task (its input
   * is the envelope), and the Catch Pass states writing an `ok: false` result
   * (`caught: true`) when it times out or the dispatcher fails, so the run goes on.
   */
  private callStates(name: string, timeoutSeconds: number): Record<string, Record<string, unknown>> {
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
              'summary.$': (message['message.$'] ?? '').replace(
                "States.Format('",
                `States.Format('${code}: `,
              ),
            }),
        error: { code, ...message, retryable },
      },
      End: true,
    });
    return {
      [name]: {
        Type: 'Task',
        Resource: this.dispatcherArn,
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
        { 'message.$': "States.Format('The dispatcher failed ({})', $.lastError.Error)" },
        false,
      ),
    };
  }

  /** A Map sending each item (`{ tool, callId, args }`) to the dispatcher as the native envelope. */
  private dispatchMap(
    level: string,
    itemsPath: string,
    iteration: string,
    options: {
      concurrency: number;
      timeoutSeconds: number;
      resultPath: string;
      next: string;
      pins?: boolean;
    },
  ): Record<string, unknown> {
    return {
      Type: 'Map',
      ItemsPath: itemsPath,
      MaxConcurrency: options.concurrency,
      ItemSelector: {
        'tenant.$': '$.input.tenant',
        scenario: this.scenario.name,
        level,
        'tool.$': '$$.Map.Item.Value.tool',
        'args.$': '$$.Map.Item.Value.args',
        'runId.$': '$$.Execution.Name',
        'callId.$': '$$.Map.Item.Value.callId',
        // The level's pins as the engine resolved them (never the model's args): the dispatcher enforces them.
        ...(options.pins ? { 'pins.$': '$.turn.pins' } : {}),
      },
      ItemProcessor: {
        ProcessorConfig: { Mode: 'INLINE' },
        StartAt: iteration,
        States: this.callStates(iteration, options.timeoutSeconds),
      },
      ResultPath: options.resultPath,
      Next: options.next,
    };
  }

  plan(level: PlanLevel, index: number, next: string): void {
    const names = stateNames(level.name);
    const timeoutSeconds = Math.max(...level.calls.map((call) => taskTimeoutSeconds(call.tool)));
    this.states[names.level] = {
      Type: 'Pass',
      Comment: `${level.name}: ${level.calls.map((call) => call.tool).join(', ')}`,
      Parameters: {
        calls: level.calls.map((call, position) => ({
          tool: call.tool,
          callId: `${level.name}/${position}`,
          args: argsTemplate(call.args, this.scenario, index),
        })),
      },
      ResultPath: '$.pending',
      Next: names.calls,
    };
    // The results replace the args: the state never holds both.
    this.states[names.calls] = this.dispatchMap(level.name, '$.pending.calls', names.call, {
      concurrency: level.concurrency,
      timeoutSeconds,
      resultPath: '$.pending',
      next: names.done,
    });
    this.states[names.done] = this.engineTask(
      {
        action: 'plan_done',
        ...this.run(),
        level: level.name,
        'input.$': '$.input',
        'levels.$': '$.levels',
        'results.$': '$.pending',
      },
      '$',
      { Next: next },
      { catchTo: names.doneFailed, catchPath: '$.lastError' },
    );
    this.states[names.doneFailed] = {
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

  agent(level: AgentLevel, index: number, next: string): void {
    const names = stateNames(level.name);
    const tools = [...level.intra_tools, ...toolCatalog.fileToolNames()];
    const timeoutSeconds = Math.max(...tools.map(taskTimeoutSeconds));
    const state = { 'input.$': '$.input', 'levels.$': '$.levels', 'turn.$': '$.turn' };
    this.states[names.level] = {
      Type: 'Pass',
      Comment: `${level.name}: ${level.model}, at most ${level.max_turns} turns`,
      Result: { level: level.name, n: 0, status: 'start' },
      ResultPath: '$.turn',
      Next: names.model,
    };
    this.states[names.model] = this.engineTask(
      { action: 'turn', ...this.run(), level: level.name, ...state },
      '$.turn',
      { Next: names.route },
      { retry: [MODEL_RETRY], catchTo: names.wrapup, catchPath: '$.turn.failure' },
    );
    this.states[names.route] = {
      Type: 'Choice',
      Choices: [
        { Variable: '$.turn.status', StringEquals: 'tool_use', Next: names.tools },
        ...(level.ask_user ? [{ Variable: '$.turn.status', StringEquals: 'ask', Next: names.askTools }] : []),
      ],
      Default: names.done,
    };
    const map = {
      concurrency: AGENT_TOOL_CONCURRENCY,
      timeoutSeconds,
      resultPath: '$.turn.results',
      pins: level.pin !== undefined,
    };
    this.states[names.tools] = this.dispatchMap(level.name, '$.turn.calls', names.tool, {
      ...map,
      next: names.model,
    });
    if (level.ask_user) this.ask(level, index, names);
    this.states[names.wrapup] = this.engineTask(
      { action: 'wrapup', ...this.run(), level: level.name, ...state },
      '$.turn',
      { Next: names.done },
      { catchTo: names.failed, catchPath: '$.lastError' },
    );
    this.states[names.failed] = {
      Type: 'Pass',
      Parameters: {
        kind: 'agent',
        outcome: 'failed',
        summary: `The ${level.name} step failed inside the platform: no report could be written.`,
        data: {},
        model: level.model,
        turns: 0,
        callCount: 0,
        calls: [],
        usage: NO_USAGE,
      },
      ResultPath: `$.levels.${level.name}`,
      Next: next,
    };
    this.states[names.done] = {
      Type: 'Pass',
      InputPath: '$.turn.record',
      ResultPath: `$.levels.${level.name}`,
      Next: next,
    };
  }

  private ask(level: AgentLevel, index: number, names: ReturnType<typeof stateNames>): void {
    if (!level.ask_user) return;
    const { timeout_seconds: timeout, slack_channel: channel } = level.ask_user;
    const timeoutSeconds = Math.max(
      ...[...level.intra_tools, ...toolCatalog.fileToolNames()].map(taskTimeoutSeconds),
    );
    this.states[names.askTools] = this.dispatchMap(level.name, '$.turn.calls', names.askTool, {
      concurrency: AGENT_TOOL_CONCURRENCY,
      timeoutSeconds,
      resultPath: '$.turn.results',
      next: channel ? names.askPost : names.askWait,
      pins: level.pin !== undefined,
    });
    if (channel) {
      const [channelKey, channelValue] = templateEntry('channel', channel, this.scenario, index);
      this.states[names.askPost] = {
        Type: 'Task',
        Comment:
          'Posts the question to the tenant’s Slack; a failure (no Slack secret) only means it was not posted.',
        Resource: this.dispatcherArn,
        Parameters: {
          'tenant.$': '$.input.tenant',
          scenario: this.scenario.name,
          level: ASK_USER_LEVEL,
          tool: 'slack_post_message',
          args: { [channelKey]: channelValue, 'text.$': '$.turn.questionText' },
          'runId.$': '$$.Execution.Name',
          'callId.$': '$.turn.askCallId',
        },
        ResultPath: '$.turn.askPost',
        TimeoutSeconds: taskTimeoutSeconds('slack_post_message'),
        Retry: [LAMBDA_RETRY],
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.turn.askPost', Next: names.askPostFailed }],
        Next: names.askWait,
      };
      this.states[names.askPostFailed] = {
        Type: 'Pass',
        Result: { ok: false },
        ResultPath: '$.turn.askPost',
        Next: names.askWait,
      };
    }
    this.states[names.askWait] = {
      Type: 'Task',
      Comment: `Waits up to ${timeout} s for etp run answer (SendTaskSuccess); then goes on with "no answer".`,
      Resource: WAIT_FOR_TASK_TOKEN_RESOURCE,
      Parameters: {
        FunctionName: this.engineArn,
        Payload: {
          action: 'ask',
          ...this.run(),
          level: level.name,
          'turn.$': '$.turn.n',
          'question.$': '$.turn.question',
          'taskToken.$': '$$.Task.Token',
          timeoutSeconds: timeout,
          ...(channel ? { 'posted.$': '$.turn.askPost.ok' } : { posted: false }),
        },
      },
      TimeoutSeconds: timeout,
      ResultPath: '$.turn.answer',
      Retry: [LAMBDA_RETRY],
      Catch: [
        { ErrorEquals: ['States.Timeout'], ResultPath: '$.turn.askError', Next: names.noAnswer },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.turn.askError', Next: names.askFailed },
      ],
      Next: names.model,
    };
    this.states[names.noAnswer] = {
      Type: 'Pass',
      Result: { answered: false, reason: 'timeout' },
      ResultPath: '$.turn.answer',
      Next: names.model,
    };
    this.states[names.askFailed] = {
      Type: 'Pass',
      Result: { answered: false, reason: 'error' },
      ResultPath: '$.turn.answer',
      Next: names.model,
    };
  }

  start(first: string): void {
    this.states.Start = this.engineTask(
      {
        action: 'start',
        scenario: this.scenario.name,
        'runId.$': '$$.Execution.Name',
        'input.$': '$$.Execution.Input',
      },
      '$',
      { Next: first },
      { catchTo: 'StartFailed' },
    );
    this.states.StartFailed = {
      Type: 'Fail',
      Comment:
        'The input was rejected (the Cause says why and what is accepted), or the engine could not start.',
      ErrorPath: '$.Error',
      CausePath: '$.Cause',
    };
  }

  summary(): void {
    this.states.Summary = this.engineTask(
      {
        action: 'summary',
        ...this.run(),
        'startedAt.$': '$$.Execution.StartTime',
        'input.$': '$.input',
        'levels.$': '$.levels',
      },
      '$',
      { Next: PUBLISH_RUN_COMPLETED_STATE },
      { catchTo: 'SummaryFailed', catchPath: '$.summaryError' },
    );
    // Every finished run tells the platform's bus (docs/entry-points.md, "Run Completed").
    this.states[PUBLISH_RUN_COMPLETED_STATE] = runCompletedEventState(
      {
        scenario: this.scenario.name,
        tenant: { path: '$.tenant' },
        status: { path: '$.completion.status' },
        summary: { path: '$.completion.summary' },
        cost: { path: '$.completion.cost' },
      },
      'Done',
    );
    this.states.SummaryFailed = { Type: 'Pass', Next: 'PublishRunFailed' };
    this.states.PublishRunFailed = runCompletedEventState(
      {
        scenario: this.scenario.name,
        status: { value: 'FAILED' },
        summary: {
          value: `${this.scenario.name}: the run summary could not be computed (see the execution)`,
        },
        cost: { value: null },
      },
      'Done',
    );
    this.states.Done = { Type: 'Succeed', Comment: 'The run is over; its output is the run summary' };
  }
}

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

/** Where the definition's Task states point. */
export interface AslTargets {
  /** @default DISPATCHER_ARN_PLACEHOLDER (CDK substitutes it) */
  readonly dispatcherArn?: string;
  /** @default ENGINE_ARN_PLACEHOLDER (CDK substitutes it) */
  readonly engineArn?: string;
}

/**
 * The state machine definition of a scenario (layout: this module's header).
 *
 * @throws Error for a `{{…}}` reference the loader would have refused (scenarios come from the loader).
 */
export function scenarioToAsl(scenario: Scenario, targets: AslTargets = {}): AslDefinition {
  const builder = new AslBuilder(
    scenario,
    targets.dispatcherArn ?? DISPATCHER_ARN_PLACEHOLDER,
    targets.engineArn ?? ENGINE_ARN_PLACEHOLDER,
  );
  const firstStates = scenario.levels.map((level) => level.name);
  builder.start(firstStates[0] ?? 'Summary');
  scenario.levels.forEach((level, index) => {
    const next = firstStates[index + 1] ?? 'Summary';
    if (level.kind === 'plan') builder.plan(level, index, next);
    else builder.agent(level, index, next);
  });
  builder.summary();
  return {
    Comment: `${scenario.name}: ${scenario.description}`,
    StartAt: 'Start',
    TimeoutSeconds: executionTimeoutSeconds(scenario.levels),
    States: builder.states,
  };
}
