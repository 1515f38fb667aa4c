/**
 * The deployed console's runs: started with StartExecution on the scenario's own
 * state machine (the input checked as `etp scenario start` checks it), and shown
 * live from the execution's history (GetExecutionHistory), through the API routes.
 */
import {
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import type { ConsoleBackend } from '../../../functions/console/backend';
import { consoleCatalog } from '../../../functions/console/catalog-view';
import {
  eventsFromHistory,
  executionArnOf,
  executionHistoryFeed,
} from '../../../functions/console/execution-history';
import { handleConsoleRequest } from '../../../functions/console/routes';
import { scenarioStateMachines, stepFunctionsRunStarter } from '../../../functions/console/run-starter';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import type { Workspace } from '../../../functions/runtime/workspace';
import { toolCatalog } from '../../../functions/tools/catalog';
import { loadScenarios, SCENARIOS_DIR } from '../../../lib/scenarios/loader';

const sfnMock = mockClient(SFNClient);
const catalog = consoleCatalog(toolCatalog, loadScenarios(toolCatalog, SCENARIOS_DIR));
const ARN = 'arn:aws:states:eu-west-1:111122223333:stateMachine:ExternalToolsPlatform-aws_pulse';
const stateMachines = { aws_pulse: ARN };
const TASK_TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAfake-task-token-never-sent';
const SLACK_TOKEN = `xoxb-${'1234567890'}-${'1234567890123'}-${'AbCdEfGhIjKlMnOpQrStUvWx'}`;

const user = { name: 'ana', tenants: ['acme'] };
const workspaceReads: string[] = [];

function backend(): ConsoleBackend {
  const client = new SFNClient({ region: 'eu-west-1' });
  return {
    mode: 'deployed',
    catalog,
    references: new InMemorySecretReferenceStore(),
    secretTags: async () => ({ status: 'tagged' }),
    runs: { scenarios: async () => [], runIds: async () => [] },
    workspaces: () =>
      ({
        list: async () => {
          workspaceReads.push('list');
          return [];
        },
        read: async () => {
          throw new Error('no file');
        },
      }) as unknown as Workspace,
    questions: { open: async () => [], answer: async () => {} },
    starter: stepFunctionsRunStarter({
      catalog,
      stateMachines,
      client,
      now: () => new Date('2026-12-01T10:20:30Z'),
    }),
    history: executionHistoryFeed({ scenarios: catalog.scenarios, stateMachines, client }),
    knownTenants: async () => [],
  };
}

const request = (method: string, path: string, body?: unknown, query = {}) =>
  handleConsoleRequest({ method, path, query, body, user }, backend());

/** A history as Step Functions records it ("HistoryEvent"), ids in order, each after the one before. */
function history(...events: Omit<HistoryEvent, 'id' | 'previousEventId' | 'timestamp'>[]): HistoryEvent[] {
  return events.map((event, index) => ({
    ...event,
    id: index + 1,
    previousEventId: index,
    timestamp: new Date(Date.UTC(2026, 11, 1, 10, 0, index)),
  })) as HistoryEvent[];
}

const envelope = (level: string, tool: string, callId: string) =>
  JSON.stringify({ tenant: 'acme', scenario: 'aws_pulse', level, tool, callId, runId: 'run-1', args: {} });

const RUN_HISTORY = history(
  {
    type: 'ExecutionStarted',
    executionStartedEventDetails: { input: JSON.stringify({ tenant: 'acme', regions: 'all' }) },
  },
  { type: 'TaskStateEntered', stateEnteredEventDetails: { name: 'collect' } },
  {
    type: 'LambdaFunctionScheduled',
    lambdaFunctionScheduledEventDetails: {
      resource: 'arn:aws:lambda:eu-west-1:111122223333:function:dispatcher',
      input: envelope('collect', 'aws_eips_audit', 'collect/0'),
    },
  },
  { type: 'LambdaFunctionStarted' },
  {
    type: 'LambdaFunctionSucceeded',
    lambdaFunctionSucceededEventDetails: {
      output: JSON.stringify({
        ok: true,
        tool: 'aws_eips_audit',
        callId: 'collect/0',
        summary: '2 unattached Elastic IPs',
        durationMs: 412,
        value: {},
      }),
    },
  },
  {
    type: 'LambdaFunctionScheduled',
    lambdaFunctionScheduledEventDetails: {
      resource: 'arn:aws:lambda:eu-west-1:111122223333:function:dispatcher',
      input: envelope('collect', 'aws_ec2_inventory', 'collect/1'),
    },
  },
  { type: 'LambdaFunctionStarted' },
  {
    type: 'LambdaFunctionSucceeded',
    lambdaFunctionSucceededEventDetails: {
      output: JSON.stringify({
        ok: false,
        tool: 'aws_ec2_inventory',
        callId: 'collect/1',
        summary: `access_denied: token ${SLACK_TOKEN} refused`,
        durationMs: 80,
        error: { code: 'access_denied', message: 'denied' },
      }),
    },
  },
  {
    type: 'TaskStateExited',
    stateExitedEventDetails: {
      name: 'collect_done',
      output: JSON.stringify({
        levels: { collect: { kind: 'plan', outcome: 'partial', summary: '2 calls: 1 ok' } },
      }),
    },
  },
  { type: 'TaskStateEntered', stateEnteredEventDetails: { name: 'analyze' } },
  {
    type: 'LambdaFunctionScheduled',
    lambdaFunctionScheduledEventDetails: {
      resource: 'arn:aws:lambda:eu-west-1:111122223333:function:engine',
      input: JSON.stringify({ action: 'turn', scenario: 'aws_pulse', level: 'analyze', turn: {} }),
    },
  },
  { type: 'LambdaFunctionStarted' },
  {
    type: 'LambdaFunctionSucceeded',
    lambdaFunctionSucceededEventDetails: {
      output: JSON.stringify({
        n: 1,
        status: 'ask',
        conversation: {
          inline: {
            messages: [
              { role: 'user', content: [{ text: 'Rank the findings' }] },
              {
                role: 'assistant',
                content: [
                  { text: 'One question first.' },
                  { toolUse: { toolUseId: 't1', name: 'ask_user', input: { question: 'Which region?' } } },
                ],
              },
            ],
          },
        },
      }),
    },
  },
  {
    type: 'LambdaFunctionScheduled',
    lambdaFunctionScheduledEventDetails: {
      resource: 'arn:aws:lambda:eu-west-1:111122223333:function:dispatcher',
      input: envelope('ask_user', 'slack_post_message', 'analyze/ask/1'),
    },
  },
  { type: 'LambdaFunctionStarted' },
  {
    type: 'LambdaFunctionSucceeded',
    lambdaFunctionSucceededEventDetails: {
      output: JSON.stringify({
        ok: true,
        tool: 'slack_post_message',
        callId: 'analyze/ask/1',
        summary: 'posted',
      }),
    },
  },
  {
    type: 'TaskScheduled',
    taskScheduledEventDetails: {
      resourceType: 'lambda',
      resource: 'invoke.waitForTaskToken',
      region: 'eu-west-1',
      parameters: JSON.stringify({
        FunctionName: 'arn:aws:lambda:eu-west-1:111122223333:function:engine',
        Payload: {
          action: 'ask',
          level: 'analyze',
          turn: 1,
          question: 'Which region?',
          taskToken: TASK_TOKEN,
        },
      }),
    },
  },
  {
    type: 'TaskStarted',
    taskStartedEventDetails: { resourceType: 'lambda', resource: 'invoke.waitForTaskToken' },
  },
  {
    type: 'TaskSucceeded',
    taskSucceededEventDetails: {
      resourceType: 'lambda',
      resource: 'invoke.waitForTaskToken',
      output: JSON.stringify({ answered: true, text: 'eu-west-1' }),
    },
  },
  {
    type: 'TaskStateExited',
    stateExitedEventDetails: {
      name: 'analyze_done',
      output: JSON.stringify({
        levels: { analyze: { kind: 'agent', outcome: 'finished', summary: 'Ranked.' } },
      }),
    },
  },
  {
    type: 'ExecutionSucceeded',
    executionSucceededEventDetails: {
      output: JSON.stringify({
        summary: { outcome: 'succeeded', levels: [], cost: { totalUsd: 0.01, parts: [], notes: [] } },
      }),
    },
  },
);

beforeEach(() => {
  sfnMock.reset();
  workspaceReads.length = 0;
});

describe('the run starter', () => {
  it('starts the scenario state machine with a run id and the input merged over its defaults, for the page tenant', async () => {
    // Prepare
    sfnMock.on(StartExecutionCommand).resolves({ executionArn: 'arn:x', startDate: new Date() });

    // Act
    const response = await request('POST', '/api/tenants/acme/runs', {
      scenario: 'aws_pulse',
      input: { regions: ['eu-west-1'], tenant: 'globex' },
    });

    // Assess
    expect(response.status).toBe(202);
    const [call] = sfnMock.commandCalls(StartExecutionCommand);
    const runId = (response.body as { runId: string }).runId;
    expect(runId).toMatch(/^run-20261201T102030Z-[0-9a-f]{6}$/);
    expect(response.body).toEqual({ tenant: 'acme', scenario: 'aws_pulse', runId });
    expect(call?.args[0].input).toEqual({
      stateMachineArn: ARN,
      name: runId,
      input: JSON.stringify({ tenant: 'acme', regions: ['eu-west-1'], slack_channel: '#aws-pulse' }),
    });
  });

  it('refuses an input the scenario refuses with 400 and what it accepts, before any StartExecution', async () => {
    // Act
    const response = await request('POST', '/api/tenants/acme/runs', {
      scenario: 'aws_pulse',
      input: { regions: 5, colour: 'red' },
    });

    // Assess
    expect(response).toEqual({
      status: 400,
      body: {
        error: {
          code: 'invalid_args',
          message:
            'Invalid input for aws_pulse: colour: not declared by aws_pulse. Declared inputs: tenant, budget_usd, regions, slack_channel; ' +
            'regions: expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"], got number 5',
        },
      },
    });
    expect(sfnMock.calls()).toHaveLength(0);
  });

  it('says which scenarios can start when a scenario has no state machine here', async () => {
    // Act
    const other = catalog.scenarios.find((scenario) => scenario.name !== 'aws_pulse')?.name ?? '';
    const response = await request('POST', '/api/tenants/acme/runs', { scenario: other });

    // Assess
    expect(response).toEqual({
      status: 404,
      body: {
        error: {
          code: 'unknown_scenario',
          message: `Scenario ${other} has no state machine in this stack. Scenarios: aws_pulse`,
        },
      },
    });
    expect(sfnMock.calls()).toHaveLength(0);
  });

  it('reads its state machines from the JSON the construct sets, and refuses anything else', () => {
    expect(scenarioStateMachines(JSON.stringify(stateMachines))).toEqual(stateMachines);
    for (const bad of [undefined, '', '[]', '{"a":1}', '{"a":"not-an-arn"}']) {
      expect(() => scenarioStateMachines(bad)).toThrow(
        'SCENARIO_STATE_MACHINES must be a JSON object of state machine ARNs by scenario',
      );
    }
  });
});

describe('live events from the execution history', () => {
  it('maps the history to calls, turns, the question and its answer, level ends and the summary, redacted', () => {
    // Act
    const pulse = catalog.scenarios.find((scenario) => scenario.name === 'aws_pulse');
    if (!pulse) throw new Error('aws_pulse is not shipped');
    const events = eventsFromHistory(pulse, RUN_HISTORY);

    // Assess
    expect(events).toEqual([
      { type: 'level_started', level: 'collect', kind: 'plan' },
      {
        type: 'call',
        level: 'collect',
        callId: 'collect/0',
        tool: 'aws_eips_audit',
        ok: true,
        summary: '2 unattached Elastic IPs',
        durationMs: 412,
      },
      {
        type: 'call',
        level: 'collect',
        callId: 'collect/1',
        tool: 'aws_ec2_inventory',
        ok: false,
        code: 'access_denied',
        summary: 'access_denied: token <redacted> refused',
        durationMs: 80,
      },
      { type: 'level_ended', level: 'collect', outcome: 'partial', summary: '2 calls: 1 ok' },
      { type: 'level_started', level: 'analyze', kind: 'agent' },
      {
        type: 'turn',
        level: 'analyze',
        turn: 1,
        text: 'One question first.',
        toolUses: [{ name: 'ask_user', input: { question: 'Which region?' } }],
      },
      { type: 'question', level: 'analyze', question: 'Which region?' },
      { type: 'answer', level: 'analyze', answered: true },
      { type: 'level_ended', level: 'analyze', outcome: 'finished', summary: 'Ranked.' },
      {
        type: 'summary',
        summary: { outcome: 'succeeded', levels: [], cost: { totalUsd: 0.01, parts: [], notes: [] } },
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(TASK_TOKEN);
    expect(JSON.stringify(events)).not.toContain(SLACK_TOKEN);
  });

  it('reads every page of the history through the events route, after the n-th event', async () => {
    // Prepare: two pages
    sfnMock
      .on(GetExecutionHistoryCommand, { nextToken: undefined })
      .resolves({ events: RUN_HISTORY.slice(0, 10), nextToken: 'page-2' })
      .on(GetExecutionHistoryCommand, { nextToken: 'page-2' })
      .resolves({ events: RUN_HISTORY.slice(10) });

    // Act
    const response = await request('GET', '/api/tenants/acme/runs/aws_pulse/run-1/events', undefined, {
      after: '8',
    });

    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      events: [{ type: 'level_ended', level: 'analyze' }, { type: 'summary' }],
      next: 10,
    });
    // Two requests (the paginator reuses one input object, so only the last one's token can be read).
    const calls = sfnMock.commandCalls(GetExecutionHistoryCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args[0].input).toEqual({
      executionArn: executionArnOf(ARN, 'run-1'),
      includeExecutionData: true,
      maxResults: 1000,
      nextToken: 'page-2',
    });
    expect(executionArnOf(ARN, 'run-1')).toBe(
      'arn:aws:states:eu-west-1:111122223333:execution:ExternalToolsPlatform-aws_pulse:run-1',
    );
    expect(workspaceReads).toEqual([]);
  });

  it("answers 404 for another tenant's execution under this tenant's path, as for one that does not exist", async () => {
    // Prepare: the execution exists, but it is globex's
    const globex = history({
      type: 'ExecutionStarted',
      executionStartedEventDetails: { input: JSON.stringify({ tenant: 'globex' }) },
    });
    sfnMock
      .on(GetExecutionHistoryCommand, { executionArn: executionArnOf(ARN, 'run-globex') })
      .resolves({ events: globex })
      .on(GetExecutionHistoryCommand, { executionArn: executionArnOf(ARN, 'run-none') })
      .rejects(new ExecutionDoesNotExist({ message: 'Execution Does Not Exist', $metadata: {} }));

    // Act
    const theirs = await request('GET', '/api/tenants/acme/runs/aws_pulse/run-globex/events');
    const none = await request('GET', '/api/tenants/acme/runs/aws_pulse/run-none/events');

    // Assess
    expect(theirs).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: 'Tenant acme has no aws_pulse run run-globex' } },
    });
    expect(none).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: 'Tenant acme has no aws_pulse run run-none' } },
    });
  });

  it('reads the workspace for a scenario without a state machine here', async () => {
    // Act
    const other = catalog.scenarios.find((scenario) => scenario.name !== 'aws_pulse')?.name ?? '';
    const response = await request('GET', `/api/tenants/acme/runs/${other}/run-1/events`);

    // Assess
    expect(response).toEqual({ status: 200, body: { events: [], next: 0 } });
    expect(sfnMock.calls()).toHaveLength(0);
    expect(workspaceReads).toEqual(['list']);
  });
});
