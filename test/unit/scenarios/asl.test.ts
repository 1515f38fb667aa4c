import { toolTimeoutSeconds } from '../../../functions/runtime/spec';
import { toolCatalog } from '../../../functions/tools/catalog';
import {
  argsTemplate,
  DISPATCHER_ARN_PLACEHOLDER,
  ENGINE_ARN_PLACEHOLDER,
  executionTimeoutSeconds,
  SCENARIO_TIMEOUT_SECONDS,
  scenarioToAsl,
  TASK_TIMEOUT_MARGIN_SECONDS,
  taskTimeoutSeconds,
  WAIT_FOR_TASK_TOKEN_RESOURCE,
} from '../../../lib/scenarios/asl';
import { loadScenarios } from '../../../lib/scenarios/loader';
import { scenarioOf } from '../../helpers/scenarios';

const scenario = scenarioOf({
  name: 'layout',
  description: 'A plan, an asking agent, a plan.',
  inputs: {
    tenant: { type: 'string', description: 'Tenant.', default: 'default' },
    regions: { type: 'regions', description: 'Regions.', default: 'all' },
    channel: { type: 'string', description: 'Channel.', default: 'C0123ABCD' },
  },
  levels: [
    {
      name: 'collect',
      intra_tools: ['aws_ec2_inventory', 'aws_iam_audit'],
      concurrency: 2,
      calls: [
        { tool: 'aws_ec2_inventory', args: { regions: '{{input.regions}}', topN: 5 } },
        { tool: 'aws_iam_audit', args: {} },
      ],
    },
    {
      name: 'analyze',
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      prompt: 'Go.',
      intra_tools: ['aws_ec2_inventory'],
      ask_user: { timeout_seconds: 600, slack_channel: '#{{input.channel}}' },
    },
    {
      name: 'report',
      intra_tools: ['slack_post_message'],
      calls: [
        {
          tool: 'slack_post_message',
          args: {
            channel: '{{input.channel}}',
            text: "It's {run.id} {{run.id}} for {{run.scenario}}: {{levels.analyze.summary}}",
          },
        },
      ],
    },
  ],
});

const asl = scenarioToAsl(scenario);

describe('taskTimeoutSeconds', () => {
  it("gives each tool's Task its spec timeout plus 30 s for the dispatcher", () => {
    // Act
    const timeouts = toolCatalog.names().map((name) => taskTimeoutSeconds(name));

    // Assess
    expect(timeouts).toEqual(
      toolCatalog.list().map((spec) => toolTimeoutSeconds(spec) + TASK_TIMEOUT_MARGIN_SECONDS),
    );
  });
});

describe('argsTemplate', () => {
  it('keeps a sole reference’s JSON type, formats text, writes in synth-time values and escapes literals', () => {
    // Act
    const report = scenario.levels[2];
    const args = report?.kind === 'plan' ? argsTemplate(report.calls[0]?.args ?? {}, scenario, 2) : {};

    // Assess
    expect(args).toEqual({
      'channel.$': '$.input.channel',
      'text.$':
        "States.Format('It\\'s \\{run.id\\} {} for layout: {}', $$.Execution.Name, $.levels.analyze.summary)",
    });
  });

  it('follows nested objects', () => {
    // Act
    const args = argsTemplate({ outer: { tenant: '{{run.tenant}}', n: 1 } }, scenario, 1);

    // Assess
    expect(args).toEqual({ outer: { 'tenant.$': '$.input.tenant', n: 1 } });
  });
});

describe('scenarioToAsl', () => {
  it('starts with the engine checking the input, fails the execution when it is refused, and ends with the summary', () => {
    // Assess
    expect(asl.StartAt).toBe('Start');
    expect(asl.States.Start).toMatchObject({
      Type: 'Task',
      Resource: ENGINE_ARN_PLACEHOLDER,
      Parameters: {
        action: 'start',
        scenario: 'layout',
        'runId.$': '$$.Execution.Name',
        'input.$': '$$.Execution.Input',
      },
      Catch: [{ ErrorEquals: ['States.ALL'], Next: 'StartFailed' }],
      Next: 'collect',
    });
    // ResultPath "$" is left out (the default): the local interpreter mishandles it.
    expect(asl.States.Start).not.toHaveProperty('ResultPath');
    expect(asl.States.StartFailed).toEqual({
      Type: 'Fail',
      Comment: expect.any(String),
      ErrorPath: '$.Error',
      CausePath: '$.Cause',
    });
    expect(asl.States.Summary).toMatchObject({
      Resource: ENGINE_ARN_PLACEHOLDER,
      Parameters: { action: 'summary' },
      Next: 'PublishRunCompleted',
    });
    expect(asl.States.Done).toEqual({ Type: 'Succeed', Comment: expect.any(String) });
  });

  it('runs a plan level as a bounded Map of dispatcher calls, results replacing args, then the engine', () => {
    // Assess
    expect(asl.States.collect).toMatchObject({
      Type: 'Pass',
      Parameters: {
        calls: [
          {
            tool: 'aws_ec2_inventory',
            callId: 'collect/0',
            args: { 'regions.$': '$.input.regions', topN: 5 },
          },
          { tool: 'aws_iam_audit', callId: 'collect/1', args: {} },
        ],
      },
      ResultPath: '$.pending',
      Next: 'collect_budget',
    });
    // A run with a budget goes through the engine's gate, which keeps the calls that fit.
    expect(asl.States.collect_budget).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.input.budget_usd', IsPresent: true, Next: 'collect_gate' }],
      Default: 'collect_calls',
    });
    expect(asl.States.collect_gate).toMatchObject({
      Type: 'Task',
      Resource: ENGINE_ARN_PLACEHOLDER,
      Parameters: { action: 'plan_gate', level: 'collect', 'pending.$': '$.pending' },
      ResultPath: '$.pending',
      Next: 'collect_calls',
    });
    expect(asl.States.collect_calls).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.pending.calls',
      MaxConcurrency: 2,
      ItemSelector: {
        'tenant.$': '$.input.tenant',
        scenario: 'layout',
        level: 'collect',
        'tool.$': '$$.Map.Item.Value.tool',
        'args.$': '$$.Map.Item.Value.args',
        'runId.$': '$$.Execution.Name',
        'callId.$': '$$.Map.Item.Value.callId',
      },
      ResultPath: '$.pending',
      Next: 'collect_done',
    });
    const iteration = (asl.States.collect_calls as { ItemProcessor: { States: Record<string, unknown> } })
      .ItemProcessor.States;
    expect(Object.keys(iteration)).toEqual(['collect_call', 'collect_call_timed_out', 'collect_call_failed']);
    // One function per call in flight: the Task waits for its token, answered by the tool's function.
    expect(iteration.collect_call).toMatchObject({
      Resource: WAIT_FOR_TASK_TOKEN_RESOURCE,
      Parameters: {
        FunctionName: DISPATCHER_ARN_PLACEHOLDER,
        Payload: {
          'tenant.$': '$.tenant',
          'scenario.$': '$.scenario',
          'level.$': '$.level',
          'tool.$': '$.tool',
          'args.$': '$.args',
          'runId.$': '$.runId',
          'callId.$': '$.callId',
          'taskToken.$': '$$.Task.Token',
        },
      },
      TimeoutSeconds: Math.max(taskTimeoutSeconds('aws_ec2_inventory'), taskTimeoutSeconds('aws_iam_audit')),
    });
    expect(iteration.collect_call_failed).toMatchObject({
      Parameters: { ok: false, caught: true, 'tool.$': '$.tool', 'callId.$': '$.callId' },
    });
    expect(asl.States.collect_done).toMatchObject({
      Parameters: { action: 'plan_done', level: 'collect', 'results.$': '$.pending' },
      Next: 'analyze',
    });
  });

  it('loops an agent level: the model turn, the route, the tool calls, and the question states', () => {
    // Assess
    expect(asl.States.analyze).toMatchObject({
      Type: 'Pass',
      Result: { level: 'analyze', n: 0, status: 'start' },
      ResultPath: '$.turn',
    });
    expect(asl.States.analyze_model).toMatchObject({
      Resource: ENGINE_ARN_PLACEHOLDER,
      Parameters: { action: 'turn', level: 'analyze', 'turn.$': '$.turn' },
      ResultPath: '$.turn',
      Retry: [
        expect.anything(),
        expect.objectContaining({ ErrorEquals: ['ModelRetryable'], BackoffRate: 2 }),
      ],
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.turn.failure', Next: 'analyze_wrapup' }],
      Next: 'analyze_route',
    });
    expect(asl.States.analyze_route).toEqual({
      Type: 'Choice',
      Choices: [
        { Variable: '$.turn.status', StringEquals: 'tool_use', Next: 'analyze_tools' },
        { Variable: '$.turn.status', StringEquals: 'ask', Next: 'analyze_ask_tools' },
      ],
      Default: 'analyze_done',
    });
    expect(asl.States.analyze_tools).toMatchObject({
      ItemsPath: '$.turn.calls',
      ResultPath: '$.turn.results',
      Next: 'analyze_model',
    });
    // An agent level's calls keep the synchronous dispatcher: the envelope in, the result out.
    const agentCall = (
      asl.States.analyze_tools as { ItemProcessor: { States: Record<string, Record<string, unknown>> } }
    ).ItemProcessor.States.analyze_tool;
    expect(agentCall).toMatchObject({ Type: 'Task', Resource: DISPATCHER_ARN_PLACEHOLDER });
    expect(agentCall).not.toHaveProperty('Parameters');
    expect(asl.States.analyze_ask_post).toMatchObject({
      Parameters: {
        level: 'ask_user',
        tool: 'slack_post_message',
        args: { 'channel.$': "States.Format('#{}', $.input.channel)", 'text.$': '$.turn.questionText' },
      },
      Next: 'analyze_ask_wait',
    });
    expect(asl.States.analyze_ask_wait).toMatchObject({
      Resource: WAIT_FOR_TASK_TOKEN_RESOURCE,
      Parameters: {
        FunctionName: ENGINE_ARN_PLACEHOLDER,
        Payload: {
          action: 'ask',
          'taskToken.$': '$$.Task.Token',
          timeoutSeconds: 600,
          'posted.$': '$.turn.askPost.ok',
        },
      },
      TimeoutSeconds: 600,
      Catch: [
        { ErrorEquals: ['States.Timeout'], ResultPath: '$.turn.askError', Next: 'analyze_no_answer' },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.turn.askError', Next: 'analyze_ask_failed' },
      ],
      Next: 'analyze_model',
    });
    expect(asl.States.analyze_done).toEqual({
      Type: 'Pass',
      InputPath: '$.turn.record',
      ResultPath: '$.levels.analyze',
      Next: 'report',
    });
  });

  it('gives a level that may not ask no question states, and the execution time for every wait', () => {
    // Prepare
    const [pulse] = loadScenarios(toolCatalog);
    if (!pulse) throw new Error('aws_pulse');

    // Act
    const states = Object.keys(scenarioToAsl(pulse).States);

    // Assess
    expect(states.filter((name) => name.includes('ask'))).toEqual([]);
    expect(executionTimeoutSeconds(pulse.levels)).toBe(SCENARIO_TIMEOUT_SECONDS);
    expect(asl.TimeoutSeconds).toBe(SCENARIO_TIMEOUT_SECONDS + 3 * 600);
  });

  it('names every state once, Map iterations included, so the local runner can route each Task by name', () => {
    // Act
    const names: string[] = [];
    const collect = (states: Record<string, Record<string, unknown>>) => {
      for (const [name, state] of Object.entries(states)) {
        names.push(name);
        const processor = state.ItemProcessor as
          | { States: Record<string, Record<string, unknown>> }
          | undefined;
        if (processor) collect(processor.States);
      }
    };
    collect(asl.States);

    // Assess
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('pinned arguments in the definition', () => {
  it("sends a pinning level's resolved pins with every call of its Maps, and no pins from other levels", () => {
    // Prepare
    const pinned = scenarioOf({
      name: 'pinned',
      description: 'An agent level that pins its Slack channel.',
      inputs: { tenant: { type: 'string', description: 'Tenant.', default: 'default' } },
      levels: [
        {
          name: 'act',
          model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
          prompt: 'Go.',
          intra_tools: ['slack_post_message'],
          ask_user: true,
          pin: { slack_post_message: { channel: 'C0123ABCD' } },
        },
      ],
    });

    // Act
    const states = scenarioToAsl(pinned).States;

    // Assess
    for (const map of ['act_tools', 'act_ask_tools']) {
      expect((states[map] as { ItemSelector: Record<string, unknown> }).ItemSelector).toMatchObject({
        'args.$': '$$.Map.Item.Value.args',
        'pins.$': '$.turn.pins',
      });
    }
    expect(
      (asl.States.analyze_tools as { ItemSelector: Record<string, unknown> }).ItemSelector['pins.$'],
    ).toBeUndefined();
  });
});
