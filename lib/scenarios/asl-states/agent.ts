/**
 * An agent level's states: `L_model` (the engine's turn) → `L_route` →
 * `L_tools` (a Map of the model's calls, each carrying the level's pins) →
 * `L_model` … until the engine says `done`; `ask_user` through `L_ask_tools` →
 * `L_ask_post` → `L_ask_wait`; `L_wrapup` and `L_failed` when a turn fails for
 * good; `L_done` moves the level's record to `$.levels.L`.
 */
import { type AgentLevel, ASK_USER_LEVEL } from '../../../functions/engine/definition';
import { AGENT_TOOL_CONCURRENCY } from '../../../functions/engine/limits';
import { NO_USAGE } from '../../../functions/engine/records';
import { toolCatalog } from '../../../functions/tools/catalog';
import { templateEntry } from './args';
import {
  type AslBuild,
  dispatchMap,
  engineTask,
  LAMBDA_RETRY,
  MODEL_RETRY,
  runIdentity,
  stateNames,
  taskTimeoutSeconds,
  WAIT_FOR_TASK_TOKEN_RESOURCE,
} from './tasks';

export function agentStates(build: AslBuild, level: AgentLevel, index: number, next: string): void {
  const names = stateNames(level.name);
  const tools = [...level.intra_tools, ...toolCatalog.fileToolNames()];
  const timeoutSeconds = Math.max(...tools.map(taskTimeoutSeconds));
  const state = { 'input.$': '$.input', 'levels.$': '$.levels', 'turn.$': '$.turn' };
  build.states[names.level] = {
    Type: 'Pass',
    Comment: `${level.name}: ${level.model}, at most ${level.max_turns} turns`,
    Result: { level: level.name, n: 0, status: 'start' },
    ResultPath: '$.turn',
    Next: names.model,
  };
  build.states[names.model] = engineTask(
    build,
    { action: 'turn', ...runIdentity(build), level: level.name, ...state },
    '$.turn',
    { Next: names.route },
    { retry: [MODEL_RETRY], catchTo: names.wrapup, catchPath: '$.turn.failure' },
  );
  build.states[names.route] = {
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
  build.states[names.tools] = dispatchMap(build, level.name, '$.turn.calls', names.tool, {
    ...map,
    next: names.model,
  });
  if (level.ask_user) askStates(build, level, index, names);
  build.states[names.wrapup] = engineTask(
    build,
    { action: 'wrapup', ...runIdentity(build), level: level.name, ...state },
    '$.turn',
    { Next: names.done },
    { catchTo: names.failed, catchPath: '$.lastError' },
  );
  build.states[names.failed] = {
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
  build.states[names.done] = {
    Type: 'Pass',
    InputPath: '$.turn.record',
    ResultPath: `$.levels.${level.name}`,
    Next: next,
  };
}

function askStates(
  build: AslBuild,
  level: AgentLevel,
  index: number,
  names: ReturnType<typeof stateNames>,
): void {
  if (!level.ask_user) return;
  const { timeout_seconds: timeout, slack_channel: channel } = level.ask_user;
  const timeoutSeconds = Math.max(
    ...[...level.intra_tools, ...toolCatalog.fileToolNames()].map(taskTimeoutSeconds),
  );
  build.states[names.askTools] = dispatchMap(build, level.name, '$.turn.calls', names.askTool, {
    concurrency: AGENT_TOOL_CONCURRENCY,
    timeoutSeconds,
    resultPath: '$.turn.results',
    next: channel ? names.askPost : names.askWait,
    pins: level.pin !== undefined,
  });
  if (channel) {
    const [channelKey, channelValue] = templateEntry('channel', channel, build.scenario, index);
    build.states[names.askPost] = {
      Type: 'Task',
      Comment:
        'Posts the question to the tenant’s Slack; a failure (no Slack secret) only means it was not posted.',
      Resource: build.dispatcherArn,
      Parameters: {
        'tenant.$': '$.input.tenant',
        scenario: build.scenario.name,
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
    build.states[names.askPostFailed] = {
      Type: 'Pass',
      Result: { ok: false },
      ResultPath: '$.turn.askPost',
      Next: names.askWait,
    };
  }
  build.states[names.askWait] = {
    Type: 'Task',
    Comment: `Waits up to ${timeout} s for etp run answer (SendTaskSuccess); then goes on with "no answer".`,
    Resource: WAIT_FOR_TASK_TOKEN_RESOURCE,
    Parameters: {
      FunctionName: build.engineArn,
      Payload: {
        action: 'ask',
        ...runIdentity(build),
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
  build.states[names.noAnswer] = {
    Type: 'Pass',
    Result: { answered: false, reason: 'timeout' },
    ResultPath: '$.turn.answer',
    Next: names.model,
  };
  build.states[names.askFailed] = {
    Type: 'Pass',
    Result: { answered: false, reason: 'error' },
    ResultPath: '$.turn.answer',
    Next: names.model,
  };
}
