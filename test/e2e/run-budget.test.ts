import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { clientStubs } from '../../bench/api-call-cases';
import type { ScriptedResponse } from '../../bin/local/scripted-model';
import type { AgentLevelRecord, PlanLevelRecord } from '../../functions/engine/records';
import { callUse, spentUsd, usdOf } from '../../functions/engine/run-budget';
import { logger } from '../../functions/runtime/logger';
import { toolCatalog } from '../../functions/tools/catalog';
import { describeInstancesResponder } from '../helpers/ec2-pages';
import { type ScenarioHarness, startScenarioHarness } from '../helpers/scenario-harness';

/**
 * The run budget end to end (issue 20 item 7): the synthesized state machine in
 * the local interpreter, the real engine, dispatcher and inventory handler. A
 * budget that fits one inventory call stops the run early: the other calls and
 * the model turn are not started, and the summary and the Run Completed event say so.
 */

const { stubOf } = clientStubs();
const ec2 = stubOf(EC2Client);

const E2E_BUDGET = `
name: e2e_budget
description: Three inventories and an analysis, under a budget.
budget_usd: 5
inputs:
  tenant: { type: string, description: Tenant of the run., default: default }
levels:
  - name: collect
    intra_tools: [aws_ec2_inventory]
    concurrency: 1
    calls:
      - tool: aws_ec2_inventory
        args: { regions: [eu-west-1] }
      - tool: aws_ec2_inventory
        args: { regions: [eu-west-2] }
      - tool: aws_ec2_inventory
        args: { regions: [eu-west-3] }
  - name: analyze
    model: anthropic.claude-3-5-haiku-20241022-v1:0
    prompt: "Inventory: {{levels.collect.results}}"
    intra_tools: []
    max_turns: 2
    max_tokens: 1000
`;

let harness: ScenarioHarness;
jest.setTimeout(60_000);

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  harness = await startScenarioHarness({ files: { 'e2e_budget.yaml': E2E_BUDGET } });
}, 120_000);

afterAll(async () => {
  await harness.stop();
});

beforeEach(() => {
  ec2.reset();
  ec2.on(DescribeInstancesCommand).callsFake(
    describeInstancesResponder({
      instancesByRegion: { 'eu-west-1': 2, 'eu-west-2': 1, 'eu-west-3': 1 },
      pageSize: 1000,
    }),
  );
});

const finish: ScriptedResponse = { tool_use: [{ name: 'finish', input: { summary: 'Four instances.' } }] };

describe('a run budget, end to end through the synthesized state machine', () => {
  it('runs everything under the scenario default, and the summary gives the figures', async () => {
    // Act
    const run = await harness.run('e2e_budget', { runId: 'budget-roomy', model: [finish] });

    // Assess
    const { summary } = run.output;
    expect(run.output.input.budget_usd).toBe(5);
    expect((run.output.levels.collect as PlanLevelRecord).calls.map((call) => call.ok)).toEqual([
      true,
      true,
      true,
    ]);
    expect(run.output.levels.analyze).toMatchObject({ outcome: 'finished', summary: 'Four instances.' });
    expect(summary.budget).toEqual({
      limitUsd: 5,
      spentUsd: summary.cost.totalUsd,
      remainingUsd: Math.round((5 - summary.cost.totalUsd) * 1e6) / 1e6,
      skipped: [],
      summary: `Budget $5: ~$${summary.cost.totalUsd.toFixed(4)} spent, ~$${(5 - summary.cost.totalUsd).toFixed(4)} left; nothing was skipped.`,
    });
    // The gate is one more engine Task per plan level: the summary still counts the interpreter's transitions.
    expect(summary.counts.stateTransitions).toBe(run.transitions);
  });

  it('stops early under a run budget that fits one call: the rest is not started and the summary says so', async () => {
    // Prepare: the budget is what the run spends before its first level plus 1.5 inventory estimates.
    const config = harness.engineConfig;
    const scenario = config.scenarios.e2e_budget;
    if (!scenario) throw new Error('e2e_budget not synthesized');
    const callUsd = usdOf(callUse(toolCatalog.get('aws_ec2_inventory'), config.functions));
    const budget = Math.round((spentUsd(scenario, {}, config.functions) + 1.5 * callUsd) * 1e4) / 1e4;

    // Act
    const run = await harness.run('e2e_budget', { runId: 'budget-tight', input: { budget_usd: budget } });

    // Assess: one inventory ran; the two others were skipped with their estimate
    const collect = run.output.levels.collect as PlanLevelRecord;
    expect(collect.calls.map((call) => [call.callId, call.ok, call.skipped])).toEqual([
      ['collect/0', true, undefined],
      ['collect/1', false, 'budget'],
      ['collect/2', false, 'budget'],
    ]);
    expect(collect.summary).toBe('3 calls: 1 ok, 2 not started (run budget)');
    expect(ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input)).toHaveLength(1);
    expect(run.results.map((result) => result.callId)).toEqual(['collect/0']);
    // …the model was never called: its first turn did not fit what was left
    expect(run.modelRequests).toHaveLength(0);
    const analyze = run.output.levels.analyze as AgentLevelRecord;
    expect(analyze.outcome).toBe('budget_exhausted');
    expect(analyze.summary).toContain(
      'The analysis was stopped before its next model turn, whose estimated cost would have taken the run past its budget (budget_usd), so it wrote no result.',
    );
    expect(analyze.summary).toContain(
      'Step "collect": 1 of 3 checks succeeded; 2 failed (ec2 inventory, ec2 inventory: it was not started, as its estimated cost would have taken the run past its budget).',
    );
    // …and the summary lists what was skipped, with the spent and remaining figures
    const { summary } = run.output;
    const estimate = Math.round(callUsd * 1e6) / 1e6;
    expect(summary.budget?.skipped).toEqual([
      { kind: 'call', id: 'collect/1', tool: 'aws_ec2_inventory', level: 'collect', estimateUsd: estimate },
      { kind: 'call', id: 'collect/2', tool: 'aws_ec2_inventory', level: 'collect', estimateUsd: estimate },
      {
        kind: 'model_turn',
        id: 'analyze/turn 1',
        level: 'analyze',
        estimateUsd: analyze.budgetSkipped?.estimateUsd,
      },
    ]);
    expect(analyze.budgetSkipped?.estimateUsd).toBeGreaterThan(budget - summary.cost.totalUsd);
    expect(summary.budget?.spentUsd).toBe(summary.cost.totalUsd);
    expect(summary.cost.totalUsd).toBeLessThanOrEqual(budget);
    expect(summary.budget?.summary).toBe(
      `Budget $${budget}: ~$${summary.cost.totalUsd.toFixed(4)} spent, ~$${(budget - summary.cost.totalUsd).toFixed(4)} left; 2 calls and 1 model turn not started because their estimates would have gone past it.`,
    );
    expect(summary.outcome).toBe('incomplete');
    expect(run.output.completion.summary).toContain('2 calls and 1 model turn not started');
    expect(summary.counts.stateTransitions).toBe(run.transitions);
  });

  it('refuses a budget that is not a positive number of dollars before the run starts', async () => {
    // Act
    const run = harness.run('e2e_budget', { runId: 'budget-bad', input: { budget_usd: -1 } });

    // Assess
    await expect(run).rejects.toThrow(
      'budget_usd: expected a number of US dollars greater than 0 and at most 10000, such as 0.05, got -1',
    );
  });
});
