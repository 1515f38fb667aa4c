import type { ScenarioDefinition } from '../../../functions/engine/definition';
import { resolveInput } from '../../../functions/engine/inputs';
import type { PlanLevelRecord } from '../../../functions/engine/records';
import {
  budgetOf,
  budgetProblem,
  callUse,
  modelTurnUse,
  RunBudget,
  skipSentence,
  spentUsd,
  tokensOfBytes,
  usdOf,
} from '../../../functions/engine/run-budget';
import { summarizeRun } from '../../../functions/engine/summary';
import { toolCatalog } from '../../../functions/tools/catalog';

/** Memory as a stack might configure it, in MB. */
const MEMORY = {
  engineMb: 1024,
  dispatcherMb: 256,
  toolMb: { aws_cost_breakdown: 512, aws_ec2_inventory: 1024 },
};

const SCENARIO: ScenarioDefinition = {
  name: 'budgeted',
  description: 'A plan level under a budget.',
  inputs: {},
  budget_usd: 0.05,
  levels: [
    {
      kind: 'plan',
      name: 'collect',
      intra_tools: ['aws_ec2_inventory'],
      calls: [{ tool: 'aws_ec2_inventory', args: {} }],
      concurrency: 1,
      track_findings: false,
    },
  ],
};

describe('estimates, at the run summary’s prices', () => {
  it('prices a Cost Explorer call at its 60 s timeout and two requests', () => {
    // Act
    const use = callUse(toolCatalog.get('aws_cost_breakdown'), MEMORY);

    // Assess: 2 transitions, 2 invocations, (0.25 GB × 60.01 s) + (0.5 GB × 60 s) = 45.0025 GB-s, 2 requests
    expect(use).toEqual({
      stateTransitions: 2,
      lambdaInvocations: 2,
      lambdaGbSeconds: 45.0025,
      costExplorerRequests: 2,
    });
    // 2 × 0.000025 + 2 × 0.0000002 + 45.0025 × 0.0000133334 + 2 × 0.01
    expect(usdOf(use)).toBeCloseTo(0.00005 + 0.0000004 + 0.000600036 + 0.02, 9);
  });

  it('prices a file tool, run by the dispatcher, as one invocation', () => {
    // Act
    const use = callUse(toolCatalog.get('finish'), MEMORY);

    // Assess: 0.25 GB × 60.01 s
    expect(use).toEqual({ stateTransitions: 2, lambdaInvocations: 1, lambdaGbSeconds: 15.0025 });
  });

  it('prices a model turn at its output budget, its input and the engine held for the call timeout', () => {
    // Act
    const use = modelTurnUse({
      model: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
      inputTokens: 3000,
      maxTokens: 1000,
      timeoutMs: 120_000,
      memory: MEMORY,
    });

    // Assess: 3 × 0.0008 + 1 × 0.004 (Claude 3.5 Haiku) + 1 GB × 120.05 s at the Lambda rate + 2 transitions + 1 request
    expect(usdOf(use)).toBeCloseTo(0.0024 + 0.004 + 120.05 * 0.0000133334 + 0.00005 + 0.0000002, 9);
  });

  it('leaves a model it has no price for unpriced, as the summary does', () => {
    // Act
    const usd = usdOf({
      stateTransitions: 0,
      lambdaInvocations: 0,
      lambdaGbSeconds: 0,
      model: { id: 'acme.unknown-v1', inputTokens: 1e6, outputTokens: 1e6 },
    });

    // Assess
    expect(usd).toBe(0);
  });

  it('counts input tokens at 3 bytes each, rounded up', () => {
    expect([tokensOfBytes(0), tokensOfBytes(1), tokensOfBytes(9000)]).toEqual([0, 1, 3000]);
  });

  it('spends what the run summary estimates', () => {
    // Prepare: a finished level with one 2-second call
    const collect: PlanLevelRecord = {
      kind: 'plan',
      outcome: 'ok',
      summary: '1 call: 1 ok',
      calls: [{ callId: 'collect/0', tool: 'aws_ec2_inventory', ok: true, summary: 'ok', durationMs: 2000 }],
      engineMs: 40,
    };

    // Act
    const spent = spentUsd(SCENARIO, { collect }, MEMORY);

    // Assess
    const summary = summarizeRun({
      scenario: SCENARIO,
      runId: 'r',
      tenant: 't',
      levels: { collect },
      memory: MEMORY,
    });
    expect(spent).toBe(summary.cost.totalUsd);
    expect(spent).toBeGreaterThan(0);
  });
});

describe('the skip rule', () => {
  it('admits work while spent + committed + estimate stay within the budget, and skips the rest', () => {
    // Prepare: $0.05 with $0.0075 spent; Cost Explorer calls of $0.020650436 each
    const estimate = usdOf(callUse(toolCatalog.get('aws_cost_breakdown'), MEMORY));
    const budget = new RunBudget(0.05, 0.0075);

    // Act
    const admitted = [1, 2, 3].map(() => budget.admit(estimate));

    // Assess: two fit (0.0075 + 2 × 0.02065 = 0.0488); a third would make 0.0695
    expect(admitted).toEqual([true, true, false]);
    expect(budget.committedUsd).toBeCloseTo(2 * estimate, 12);
    expect(budget.remainingUsd).toBeCloseTo(0.05 - 0.0075 - 2 * estimate, 12);
    // …a cheaper piece still fits what is left
    expect(budget.admit(0.001)).toBe(true);
  });

  it('admits work that brings the run exactly to its budget', () => {
    const budget = new RunBudget(0.01, 0.004);
    expect(budget.admit(0.006)).toBe(true);
    expect(budget.admit(1e-9)).toBe(false);
    expect(budget.remainingUsd).toBe(0);
  });

  it('says in a sentence what was not started and why', () => {
    expect(skipSentence('aws_cost_breakdown (collect/2)', 0.0206504, 0.05, 0.0488)).toBe(
      'aws_cost_breakdown (collect/2) not started: its estimate ($0.0207) would take the run past its budget of $0.05 ($0.0488 spent or committed)',
    );
  });
});

describe('budget_usd, the scenario field and the run input', () => {
  it('takes the scenario default, a run input over it, and none when neither is set', () => {
    expect(budgetOf(resolveInput(SCENARIO, { tenant: 'acme' }))).toBe(0.05);
    expect(budgetOf(resolveInput(SCENARIO, { tenant: 'acme', budget_usd: 0.2 }))).toBe(0.2);
    const unbudgeted = resolveInput({ ...SCENARIO, budget_usd: undefined }, { tenant: 'acme' });
    expect(unbudgeted).toEqual({ tenant: 'acme' });
    expect(budgetOf(unbudgeted)).toBeUndefined();
  });

  it('refuses what is not a number of dollars in (0, 10000], saying what is accepted', () => {
    // JSON.parse('1e400') is Infinity, which JSON.stringify writes as null
    expect([0, -1, 10_001, '5', Number.NaN, JSON.parse('1e400')].map(budgetProblem)).toEqual([
      'expected a number of US dollars greater than 0 and at most 10000, such as 0.05, got 0',
      'expected a number of US dollars greater than 0 and at most 10000, such as 0.05, got -1',
      'expected a number of US dollars greater than 0 and at most 10000, such as 0.05, got 10001',
      'expected a number of US dollars greater than 0 and at most 10000, such as 0.05, got "5"',
      'expected a number of US dollars greater than 0 and at most 10000, such as 0.05, got NaN, which is not a finite number',
      'expected a number of US dollars greater than 0 and at most 10000, such as 0.05, got Infinity, which is not a finite number',
    ]);
    expect(() => resolveInput(SCENARIO, { tenant: 'acme', budget_usd: '5' })).toThrow(
      'Invalid input for budgeted: budget_usd: expected a number of US dollars greater than 0 and at most 10000, such as 0.05, got "5"',
    );
    expect(budgetProblem(0.05)).toBeUndefined();
  });
});
