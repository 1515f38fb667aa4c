import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileRunRecords } from '../../../bin/local/local-run-records';
import { localWorkspaceProvider } from '../../../bin/local/local-workspace';
import { createEngine, type Engine } from '../../../functions/engine/engine';
import type { TurnState } from '../../../functions/engine/events';
import { MODEL_RETRY_ATTEMPTS } from '../../../functions/engine/limits';
import type { ConverseRequest, ConverseResponse, ModelClient } from '../../../functions/engine/model-client';
import type { AgentLevelRecord, PlanLevelRecord } from '../../../functions/engine/records';
import { callUse, modelTurnUse, spentUsd, usdOf } from '../../../functions/engine/run-budget';
import { workspacesOf } from '../../../functions/engine/workspaces';
import { logger } from '../../../functions/runtime/logger';
import { failureResult, type ToolResult } from '../../../functions/runtime/result';
import { toolCatalog } from '../../../functions/tools/catalog';
import { engineConfig, functionMemory } from '../../../lib/scenarios/engine-config';
import { scenarioOf } from '../../helpers/scenarios';

const scenario = scenarioOf({
  name: 'unit',
  description: 'Engine unit tests.',
  inputs: { tenant: { type: 'string', description: 'Tenant.', default: 'default' } },
  levels: [
    {
      name: 'collect',
      intra_tools: ['aws_ec2_inventory'],
      track_findings: true,
      calls: [{ tool: 'aws_ec2_inventory' }],
    },
    {
      name: 'analyze',
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      prompt: 'Tenant {{run.tenant}}.\n{{levels.collect.results}}\n{{findings.collect}}',
      intra_tools: ['aws_ec2_inventory'],
      max_turns: 5,
      ask_user: true,
    },
  ],
});

/** A model answering from a list, recording every request. */
function scriptedModel(
  responses: (Partial<ConverseResponse> | Error)[],
): ModelClient & { requests: ConverseRequest[] } {
  const requests: ConverseRequest[] = [];
  return {
    requests,
    async converse(request) {
      requests.push(structuredClone(request));
      const next = responses.shift();
      if (!next) throw new Error('no response left');
      if (next instanceof Error) throw next;
      return {
        message: { role: 'assistant', content: [] },
        stopReason: 'end_turn',
        inputTokens: 10,
        outputTokens: 5,
        latencyMs: 100,
        ...next,
      };
    },
  };
}

const uses = (...calls: [string, unknown][]) => ({
  message: {
    role: 'assistant' as const,
    content: calls.map(([name, input], index) => ({ toolUse: { toolUseId: `t${index}`, name, input } })),
  },
  stopReason: 'tool_use',
});

const ok = (tool: string, callId: string, value: unknown, summary = 'ok'): ToolResult => ({
  ok: true,
  tool,
  callId,
  value,
  truncated: false,
  resultRef: null,
  durationMs: 40,
  summary,
});

/** A finding as the audit tools report it (functions/tools/aws/shared/findings.ts). */
const finding = (n: number, severity = 'high') => ({
  id: `ec2_open_port:${String(n).padStart(16, '0')}`,
  check: 'ec2_open_port',
  severity,
  resource: `i-${n}`,
  region: 'eu-west-1',
  title: `Instance ${n} is open`,
  monthlyCost: { usd: n, priceSource: 'test' },
});

let dir: string;
let records: FileRunRecords;

function engineWith(model: ModelClient): Engine {
  return createEngine({
    config: engineConfig([scenario], functionMemory(toolCatalog)),
    catalog: toolCatalog,
    workspaces: workspacesOf(localWorkspaceProvider(dir)),
    records,
    model,
    logger,
  });
}

const base = { scenario: 'unit', tenant: 'default' };

/** Runs `plan_done` for the collect level with these findings; the state after it. */
async function collected(
  engine: Engine,
  runId: string,
  findings: unknown[],
  extra: Partial<ToolResult> = {},
) {
  return (await engine({
    action: 'plan_done',
    ...base,
    runId,
    level: 'collect',
    input: { tenant: 'default' },
    levels: {},
    results: [
      {
        ...ok('aws_ec2_inventory', 'collect/0', { findings: { top: findings, truncated: false } }),
        ...extra,
      },
    ],
  })) as { input: Record<string, unknown>; levels: Record<string, PlanLevelRecord> };
}

async function turn(
  engine: Engine,
  runId: string,
  state: Partial<TurnState>,
  levels: Record<string, unknown> = {},
) {
  return (await engine({
    action: 'turn',
    ...base,
    runId,
    level: 'analyze',
    input: { tenant: 'default' },
    levels,
    turn: { level: 'analyze', n: 0, status: 'start', ...state },
  })) as TurnState;
}

beforeAll(() => {
  logger.setLogLevel('SILENT');
});

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'etp-engine-'));
  records = new FileRunRecords(dir);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('start', () => {
  it('merges the input over the defaults, and refuses one the scenario does not accept', async () => {
    // Prepare
    const engine = engineWith(scriptedModel([]));

    // Act
    const state = await engine({ action: 'start', scenario: 'unit', runId: 'r1', input: { tenant: 'acme' } });
    const refused = engine({
      action: 'start',
      scenario: 'unit',
      runId: 'r1',
      input: { tenant: 'acme', extra: 1 },
    });

    // Assess
    expect(state).toEqual({ input: { tenant: 'acme' }, levels: {} });
    await expect(refused).rejects.toThrow(
      'Invalid input for unit: extra: not declared by unit. Declared inputs: tenant',
    );
  });
});

describe('plan_done and findings across runs', () => {
  it('keeps compact records and says, per tenant and scenario, what is new, resolved and unchanged', async () => {
    // Prepare
    const engine = engineWith(scriptedModel([]));

    // Act
    const first = await collected(engine, 'run-a', [finding(1), finding(2)]);
    const again = await collected(engine, 'run-a', [finding(1), finding(2)]);
    const second = await collected(engine, 'run-b', [finding(2), finding(3, 'critical')]);

    // Assess
    expect(first.levels.collect).toMatchObject({
      kind: 'plan',
      outcome: 'ok',
      summary: '1 call: 1 ok',
      findings: { total: 2, new: 2, unchanged: 0, resolved: 0, estimatedMonthlyCostUsd: 3 },
    });
    // A retried invocation of the same run changes nothing: still its first run.
    expect(again.levels.collect?.findings).toEqual(first.levels.collect?.findings);
    expect(second.levels.collect?.findings).toMatchObject({
      previousRunId: 'run-a',
      total: 2,
      new: 1,
      unchanged: 1,
      resolved: 1,
      bySeverity: { critical: 1, high: 1 },
    });
  });

  it('does not call a finding resolved when its tool failed or listed only its top findings', async () => {
    // Prepare
    const engine = engineWith(scriptedModel([]));
    await collected(engine, 'run-a', [finding(1), finding(2)]);

    // Act
    const failed = await engine({
      action: 'plan_done',
      ...base,
      runId: 'run-b',
      level: 'collect',
      input: { tenant: 'default' },
      levels: {},
      results: [
        failureResult(
          'aws_ec2_inventory',
          'collect/0',
          { code: 'auth_failed', message: 'no', retryable: false },
          3,
        ),
      ],
    });
    const partial = await engine({
      action: 'plan_done',
      ...base,
      runId: 'run-c',
      level: 'collect',
      input: { tenant: 'default' },
      levels: {},
      results: [ok('aws_ec2_inventory', 'collect/0', { findings: { top: [finding(1)], truncated: true } })],
    });

    // Assess
    expect((failed as { levels: Record<string, PlanLevelRecord> }).levels.collect?.findings).toMatchObject({
      total: 0,
      resolved: 0,
      unknown: 2,
      previousRunId: 'run-a',
    });
    // The failed run did not become the reference point: run-c still compares with run-a.
    expect((partial as { levels: Record<string, PlanLevelRecord> }).levels.collect?.findings).toMatchObject({
      previousRunId: 'run-a',
      unchanged: 1,
      resolved: 0,
      unknown: 1,
    });
  });
});

describe('turn', () => {
  it('renders the prompt, offers the level’s tools, file tools and ask_user, and dispatches the calls', async () => {
    // Prepare
    const model = scriptedModel([uses(['aws_ec2_inventory', { regions: ['eu-west-1'] }])]);
    const engine = engineWith(model);
    const { levels } = await collected(engine, 'r1', [finding(1)]);

    // Act
    const state = await turn(engine, 'r1', {}, levels);

    // Assess
    expect(state).toMatchObject({
      status: 'tool_use',
      n: 1,
      calls: [
        { tool: 'aws_ec2_inventory', callId: 'analyze/0', args: { regions: ['eu-west-1'] }, toolUseId: 't0' },
      ],
      conversation: { inline: expect.anything() },
    });
    const [request] = model.requests;
    expect(request?.tools.map((tool) => tool.name)).toEqual([
      'aws_ec2_inventory',
      'edit_file',
      'finish',
      'list_files',
      'read_file',
      'write_file',
      'ask_user',
    ]);
    expect(request?.tools[0]?.inputSchema).not.toHaveProperty('$schema');
    const prompt = (request?.messages[0]?.content[0] as { text?: string } | undefined)?.text;
    expect(prompt).toContain('Tenant default.');
    expect(prompt).toContain(
      '- aws_ec2_inventory (collect/0): ok — ok; full result: levels/collect/0-aws_ec2_inventory.json',
    );
    expect(prompt).toContain('[NEW] HIGH Instance 1 is open (i-1, eu-west-1; ec2_open_port) — ~$1.00/month');
  });

  it('answers more than 8 calls in a turn with limit_exceeded, dispatching the first 8', async () => {
    // Prepare
    const calls = Array.from({ length: 10 }, (_, n): [string, unknown] => [
      'aws_ec2_inventory',
      { topN: n + 1 },
    ]);
    const model = scriptedModel([uses(...calls), uses(['finish', { summary: 'done' }])]);
    const engine = engineWith(model);

    // Act
    const first = await turn(engine, 'r1', {});
    const results = first.calls.map((call) => ok(call.tool, call.callId, {}));
    const second = await turn(engine, 'r1', { ...first, results });

    // Assess
    expect(first.calls).toHaveLength(8);
    expect(first.rejected.map((rejected) => rejected.code)).toEqual(['limit_exceeded', 'limit_exceeded']);
    const answers = model.requests[1]?.messages.at(-1)?.content ?? [];
    expect(answers).toHaveLength(10);
    expect(answers.at(-1)).toMatchObject({
      toolResult: {
        toolUseId: 't9',
        status: 'error',
        content: [{ json: { ok: false, error: { code: 'limit_exceeded' } } }],
      },
    });
    expect(second.status).toBe('tool_use');
  });

  it('ends the level with finish, its data bounded in the record and whole in the workspace', async () => {
    // Prepare
    const data = { top: Array.from({ length: 200 }, (_, n) => ({ id: n, title: 'x'.repeat(40) })) };
    const engine = engineWith(scriptedModel([uses(['finish', { summary: 'Report.', data }])]));
    const first = await turn(engine, 'r1', {});

    // Act
    const done = await turn(engine, 'r1', {
      ...first,
      results: [ok('finish', 'analyze/0', { finished: true, summary: 'Report.', data })],
    });

    // Assess
    const record = done.record as unknown as AgentLevelRecord;
    expect(done.status).toBe('done');
    expect(record).toMatchObject({ outcome: 'finished', summary: 'Report.', turns: 1, callCount: 1 });
    expect(JSON.stringify(record.data).length).toBeLessThanOrEqual(4096);
    const files = readdirSync(path.join(dir, 'runs/default/unit/r1/levels/analyze'));
    expect(files).toEqual(['finish.json']);
  });

  it('keeps a large conversation in the workspace, one file per turn, and a retried turn rewrites its own', async () => {
    // Prepare
    const big = ok('aws_ec2_inventory', 'analyze/0', { rows: 'x'.repeat(20_000) });
    const model = scriptedModel([
      uses(['aws_ec2_inventory', {}]),
      uses(['aws_ec2_inventory', {}]),
      uses(['aws_ec2_inventory', {}]),
    ]);
    const engine = engineWith(model);
    const first = await turn(engine, 'r1', {});

    // Act: the second turn, twice (a retried invocation), from the same state
    const second = await turn(engine, 'r1', { ...first, results: [big] });
    const retried = await turn(engine, 'r1', { ...first, results: [big] });

    // Assess
    expect(first.conversation).toHaveProperty('inline');
    expect(second.conversation).toEqual({ path: 'conversations/analyze/turn-2.json' });
    expect(retried.conversation).toEqual(second.conversation);
    // The retry appended the results once, like the first attempt.
    expect(model.requests[2]?.messages).toHaveLength(model.requests[1]?.messages.length ?? 0);
  });

  it('ends the level when the model stops without finish, keeping its text', async () => {
    // Prepare
    const engine = engineWith(
      scriptedModel([
        { message: { role: 'assistant', content: [{ text: 'All quiet.' }] }, stopReason: 'end_turn' },
      ]),
    );

    // Act
    const done = await turn(engine, 'r1', {});

    // Assess
    expect(done.record).toMatchObject({ outcome: 'stopped', summary: 'All quiet.', turns: 1 });
  });

  it('throws ModelRetryable on throttling (for the state machine to retry), and ends with model_error on access denied', async () => {
    // Prepare
    const throttled = Object.assign(new Error('Too many requests'), { name: 'ThrottlingException' });
    const denied = Object.assign(new Error('You do not have access'), { name: 'AccessDeniedException' });
    const engine = engineWith(scriptedModel([throttled, denied]));

    // Act
    const retry = turn(engine, 'r1', {});
    await expect(retry).rejects.toMatchObject({ name: 'ModelRetryable', code: 'throttled' });
    const done = await turn(engine, 'r1', {});

    // Assess
    expect(done.record).toMatchObject({
      outcome: 'model_error',
      error: { code: 'access_denied', service: 'bedrock' },
      summary: expect.stringMatching(
        /^The model could not be used because the account does not allow the platform to read this\./,
      ),
    });
  });

  it.each([
    [
      'a Lambda error Cause',
      JSON.stringify({
        errorType: 'ModelRetryable',
        errorMessage: 'network_error: connect ECONNREFUSED 127.0.0.1:1',
      }),
      'network_error',
      '; the last: connect ECONNREFUSED 127.0.0.1:1',
    ],
    ['a plain Cause', 'throttled: Too many requests', 'throttled', '; the last: Too many requests'],
    ['no readable Cause', 'States.Timeout', 'throttled', ''],
  ])(
    'ends the level with the last model error after the retries, from %s',
    async (_kind, cause, code, last) => {
      // Prepare
      const engine = engineWith(scriptedModel([]));

      // Act
      const ended = (await engine({
        action: 'wrapup',
        ...base,
        runId: 'r1',
        level: 'analyze',
        input: { tenant: 'default' },
        levels: {},
        turn: { level: 'analyze', n: 1, status: 'start', failure: { Error: 'ModelRetryable', Cause: cause } },
      })) as TurnState;

      // Assess
      expect(ended.record).toMatchObject({
        outcome: 'failed',
        error: {
          code,
          message: `Model anthropic.claude-3-5-haiku-20241022-v1:0 kept failing with a retryable error after every retry${last}`,
        },
      });
    },
  );

  it('asks one question per turn and at most three per level', async () => {
    // Prepare
    const ask = (question: string): [string, unknown] => ['ask_user', { question }];
    const model = scriptedModel([
      uses(ask('One?'), ask('Two?')),
      uses(ask('Three?')),
      uses(ask('Four?')),
      uses(ask('Five?')),
    ]);
    const engine = engineWith(model);

    // Act
    let state = await turn(engine, 'r1', {});
    const first = state;
    for (let n = 0; n < 3; n++) {
      state = await turn(engine, 'r1', { ...state, answer: { answered: true, text: 'yes' } });
    }

    // Assess
    expect(first).toMatchObject({ status: 'ask', question: 'One?', askCallId: 'ask_user/1001' });
    expect(first.rejected).toEqual([
      {
        toolUseId: 't1',
        tool: 'ask_user',
        code: 'invalid_args',
        message: 'ask one question per turn: this one was not asked',
      },
    ]);
    expect(first.questionText).toContain('etp run answer r1 --text');
    expect(state.rejected[0]?.message).toBe('at most 3 questions per level: go on without asking');
  });
});

describe('failure texts and the run summary when the workspace refuses writes', () => {
  it('says in the output that summary.json was not written, and the failed step reads as a sentence', async () => {
    // Prepare: a workspace whose every write fails
    const broken = workspacesOf((scope) => {
      const workspace = localWorkspaceProvider(dir)(scope);
      return {
        ...workspace,
        uri: workspace.uri,
        async write() {
          throw new Error('The bucket refused the write');
        },
      };
    });
    const engine = createEngine({
      config: engineConfig([scenario], functionMemory(toolCatalog)),
      catalog: toolCatalog,
      workspaces: broken,
      records,
      model: scriptedModel([]),
      logger,
    });
    const failed = (await engine({
      action: 'wrapup',
      ...base,
      runId: 'r-broken',
      level: 'analyze',
      input: { tenant: 'default' },
      levels: {},
      turn: { level: 'analyze', n: 0, status: 'start', failure: { Error: 'Lambda.Unknown' } },
    })) as TurnState;

    // Act
    const output = (await engine({
      action: 'summary',
      ...base,
      runId: 'r-broken',
      input: { tenant: 'default' },
      levels: { analyze: failed.record },
    })) as { summaryFile: { notWritten?: string; path?: string } };

    // Assess
    expect((failed.record as unknown as AgentLevelRecord).summary).toMatch(
      /^The analysis step failed because of an error inside the platform\./,
    );
    expect(output.summaryFile.path).toBeUndefined();
    expect(output.summaryFile.notWritten).toBe(
      "summary.json could not be written to the run's workspace (The bucket refused the write): this output is the only copy",
    );
  });
});

describe('turn under a run budget', () => {
  const budgeted = scenarioOf({
    name: 'unit',
    description: 'Engine unit tests.',
    inputs: { tenant: { type: 'string', description: 'Tenant.', default: 'default' } },
    levels: [
      {
        name: 'analyze',
        // No published price: the turn's estimate is its Lambda and states only.
        model: 'acme.unpriced-v1',
        prompt: 'Look around.',
        intra_tools: ['aws_ec2_inventory'],
        max_turns: 5,
      },
    ],
  });
  const memory = functionMemory(toolCatalog);
  const engine = () =>
    createEngine({
      config: engineConfig([budgeted], memory),
      catalog: toolCatalog,
      workspaces: workspacesOf(localWorkspaceProvider(dir)),
      records,
      model: scriptedModel([uses(['aws_ec2_inventory', {}], ['aws_ec2_inventory', { topN: 3 }])]),
      logger,
    });
  const firstTurnUsd = usdOf(
    modelTurnUse({
      model: 'acme.unpriced-v1',
      inputTokens: 0,
      maxTokens: 0,
      // A first turn's call timeout: its share of the level's 600 s (turn.ts).
      timeoutMs: Math.min(120_000, Math.floor(600_000 / (MODEL_RETRY_ATTEMPTS + 1))),
      memory,
    }),
  );
  const callUsd = usdOf(callUse(toolCatalog.get('aws_ec2_inventory'), memory));
  const start = (budget: number) =>
    engine()({
      action: 'turn',
      ...base,
      runId: 'budget-run',
      level: 'analyze',
      input: { tenant: 'default', budget_usd: budget },
      levels: {},
      turn: { level: 'analyze', n: 0, status: 'start' },
    }) as Promise<TurnState>;

  it('starts the calls that fit and answers the other with limit_exceeded, naming the budget', async () => {
    // Prepare: room for the turn and one and a half inventory calls
    expect(firstTurnUsd).toBeLessThan(1.5 * callUsd);
    const budget = spentUsd(budgeted, {}, memory) + 1.5 * callUsd;

    // Act
    const state = await start(budget);

    // Assess
    expect(state.status).toBe('tool_use');
    expect(state.calls.map((call) => [call.tool, call.args])).toEqual([['aws_ec2_inventory', {}]]);
    expect(state.callCount).toBe(1);
    expect(state.rejected).toEqual([
      {
        toolUseId: 't1',
        tool: 'aws_ec2_inventory',
        code: 'limit_exceeded',
        message: expect.stringMatching(
          /^This call was not started: its estimate \(\$\d\.\d{4}\) would take the run past its budget of \$[\d.]+ \(\$\d\.\d{4} spent or committed\)\. Call finish with what you have\.$/,
        ),
        budgetUsd: Math.round(callUsd * 1e6) / 1e6,
      },
    ]);
  });

  it('does not ask a question whose Slack post no longer fits', async () => {
    // Prepare: an asking level whose model calls may take 1 s; room for its first turn, not a Slack post
    const asking = scenarioOf({
      name: 'unit',
      description: 'Engine unit tests.',
      inputs: { tenant: { type: 'string', description: 'Tenant.', default: 'default' } },
      levels: [
        {
          name: 'analyze',
          model: 'acme.unpriced-v1',
          prompt: 'Ask first.',
          intra_tools: [],
          model_call_timeout_seconds: 1,
          ask_user: { timeout_seconds: 600, slack_channel: 'C0ASK' },
        },
      ],
    });
    const turnUsd = usdOf(
      modelTurnUse({ model: 'acme.unpriced-v1', inputTokens: 0, maxTokens: 0, timeoutMs: 1000, memory }),
    );
    const model = scriptedModel([uses(['ask_user', { question: 'Which account?' }])]);
    const asker = createEngine({
      config: engineConfig([asking], memory),
      catalog: toolCatalog,
      workspaces: workspacesOf(localWorkspaceProvider(dir)),
      records,
      model,
      logger,
    });

    // Act
    const state = (await asker({
      action: 'turn',
      ...base,
      runId: 'budget-ask',
      level: 'analyze',
      // The level's own states so far (its Pass, this Task, the route Choice and its done Pass: USD 0.0001) count as spent.
      input: { tenant: 'default', budget_usd: spentUsd(asking, {}, memory) + 0.0001 + turnUsd + 0.00001 },
      levels: {},
      turn: { level: 'analyze', n: 0, status: 'start' },
    })) as TurnState;

    // Assess: the turn ran; the question was answered by the engine, not posted
    expect(model.requests).toHaveLength(1);
    expect(state.status).toBe('tool_use');
    expect(state.question).toBeUndefined();
    expect(state.rejected).toEqual([
      expect.objectContaining({
        toolUseId: 't0',
        tool: 'ask_user',
        code: 'limit_exceeded',
        budgetUsd: Math.round(usdOf(callUse(toolCatalog.get('slack_post_message'), memory)) * 1e6) / 1e6,
      }),
    ]);
  });

  it('ends the level budget_exhausted without calling the model when the turn does not fit', async () => {
    // Prepare
    const model = scriptedModel([]);
    const tight = createEngine({
      config: engineConfig([budgeted], memory),
      catalog: toolCatalog,
      workspaces: workspacesOf(localWorkspaceProvider(dir)),
      records,
      model,
      logger,
    });

    // Act
    const state = (await tight({
      action: 'turn',
      ...base,
      runId: 'budget-run',
      level: 'analyze',
      input: { tenant: 'default', budget_usd: spentUsd(budgeted, {}, memory) + firstTurnUsd / 2 },
      levels: {},
      turn: { level: 'analyze', n: 0, status: 'start' },
    })) as TurnState;

    // Assess
    expect(model.requests).toHaveLength(0);
    const record = state.record as unknown as AgentLevelRecord;
    expect(record).toMatchObject({ outcome: 'budget_exhausted', turns: 0 });
    expect(record.budgetSkipped?.turn).toBe(1);
    // An unpriced model: the estimate is the engine held for the call's timeout and the turn's states.
    expect(record.budgetSkipped?.estimateUsd).toBe(Math.round(firstTurnUsd * 1e6) / 1e6);
  });
});
