import { createRunProgress, formatSummary } from '../../../bin/cli/progress';
import type { AgentLevelRecord, PlanLevelRecord } from '../../../functions/engine/records';
import { NO_USAGE } from '../../../functions/engine/records';
import { summarizeRun } from '../../../functions/engine/summary';
import { failureResult, type ToolResult } from '../../../functions/runtime/result';
import { scenarioOf } from '../../helpers/scenarios';

const scenario = scenarioOf({
  name: 'pulse',
  description: 'Test scenario.',
  inputs: { tenant: { type: 'string', description: 'Tenant.', default: 'default' } },
  levels: [
    { name: 'collect', intra_tools: ['aws_ec2_inventory'], calls: [{ tool: 'aws_ec2_inventory' }] },
    { name: 'analyze', model: 'anthropic.claude-3-5-haiku-20241022-v1:0', prompt: 'Go.', max_turns: 4 },
    {
      name: 'report',
      intra_tools: ['slack_post_message'],
      calls: [{ tool: 'slack_post_message', args: { channel: 'C1', text: 'x' } }],
    },
  ],
});

const inventory: ToolResult = {
  ok: true,
  tool: 'aws_ec2_inventory',
  callId: 'collect/0',
  value: {},
  truncated: true,
  shrunk: true,
  resultRef: null,
  durationMs: 412,
  summary: '12 EC2 instances in 2 regions (9 running)',
};
const post = failureResult(
  'slack_post_message',
  'report/0',
  { code: 'secret_not_found', message: 'Secret "slack_default" is not set', retryable: false },
  1,
);
const collect: PlanLevelRecord = {
  kind: 'plan',
  outcome: 'ok',
  summary: '1 call: 1 ok',
  calls: [
    { callId: 'collect/0', tool: 'aws_ec2_inventory', ok: true, summary: inventory.summary, durationMs: 412 },
  ],
  findings: {
    total: 3,
    new: 1,
    unchanged: 2,
    resolved: 1,
    unknown: 0,
    bySeverity: { high: 3 },
    estimatedMonthlyCostUsd: 7.3,
  },
};
const analyze: AgentLevelRecord = {
  kind: 'agent',
  outcome: 'finished',
  summary: 'All good.',
  data: {},
  model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
  turns: 2,
  callCount: 1,
  calls: [{ callId: 'analyze/0', tool: 'finish', ok: true, summary: 'All good.', durationMs: 2 }],
  usage: {
    ...NO_USAGE,
    inputTokens: 3000,
    outputTokens: 250,
    modelCalls: 2,
    engineInvocations: 3,
    toolTurns: 2,
  },
};
const report: PlanLevelRecord = {
  kind: 'plan',
  outcome: 'failed',
  summary: '1 call: 0 ok, 1 failed (secret_not_found)',
  calls: [
    {
      callId: 'report/0',
      tool: 'slack_post_message',
      ok: false,
      code: 'secret_not_found',
      summary: post.summary,
      durationMs: 1,
    },
  ],
};

describe('createRunProgress', () => {
  it('writes a line per level, call and turn, aligned on the longest tool name', () => {
    // Prepare
    let text = '';
    const progress = createRunProgress(scenario, 'run-1', (chunk) => {
      text += chunk;
    });
    const [collectLevel, analyzeLevel] = scenario.levels;

    // Act
    if (!collectLevel || !analyzeLevel) throw new Error('levels');
    progress.onEvent({ type: 'level_started', level: collectLevel });
    progress.onEvent({ type: 'call_ended', level: 'collect', result: inventory });
    progress.onEvent({ type: 'level_ended', level: 'collect', record: collect });
    progress.onEvent({ type: 'level_started', level: analyzeLevel });
    progress.onEvent({
      type: 'turn',
      level: 'analyze',
      turn: {
        level: 'analyze',
        n: 1,
        status: 'tool_use',
        calls: [{ tool: 'finish', callId: 'analyze/0', args: {}, toolUseId: 't' }],
        results: [],
        rejected: [],
        callCount: 1,
        records: [],
        usage: { ...NO_USAGE, inputTokens: 1000, outputTokens: 100 } as unknown as Record<string, unknown>,
      },
    });
    progress.onEvent({ type: 'question', level: 'analyze', question: 'Which region?' });
    progress.onEvent({ type: 'answer', level: 'analyze' });
    progress.onEvent({ type: 'level_ended', level: 'analyze', record: analyze });
    progress.onEvent({ type: 'call_ended', level: 'report', result: post });
    // A per-account call names its account; a result the tool itself marked incomplete reads partial
    const { shrunk: _shrunk, ...ownTruncated } = inventory as ToolResult & { shrunk?: true };
    progress.onEvent({
      type: 'call_ended',
      level: 'collect',
      result: ownTruncated as ToolResult,
      account: '111122223333',
    });

    // Assess
    expect(text.split('\n')).toEqual([
      '▸ collect (plan: 1 call)',
      '    aws_ec2_inventory  ok 412 ms  12 EC2 instances in 2 regions (9 running) (shortened)',
      '  collect: 1 call: 1 ok; findings: 3 (1 new, 2 unchanged, 1 resolved)',
      '▸ analyze (agent: anthropic.claude-3-5-haiku-20241022-v1:0, at most 4 turns)',
      '  turn 1: 1,000 tokens in, 100 out → finish',
      '  ? analyze asks: Which region?',
      '  ↳ no answer',
      '  analyze: finished after 2 turns, 1 call (3,000 tokens in, 250 out)',
      '    slack_post_message ✗ secret_not_found: Secret "slack_default" is not set (1 ms)',
      '    aws_ec2_inventory  account 111122223333 ok 412 ms  12 EC2 instances in 2 regions (9 running) (partial)',
      '',
    ]);
  });
  it("says a per-account level's call count is one account's", () => {
    // Prepare
    let text = '';
    const org = scenarioOf({
      name: 'pulse_org',
      description: 'Test scenario.',
      inputs: { tenant: { type: 'string', description: 'Tenant.', default: 'default' } },
      levels: [
        {
          name: 'collect',
          intra_tools: ['aws_ec2_inventory', 'aws_s3_inventory'],
          calls: [{ tool: 'aws_ec2_inventory' }, { tool: 'aws_s3_inventory' }],
          for_each_account: {},
        },
      ],
    });
    const progress = createRunProgress(org, 'run-1', (chunk) => {
      text += chunk;
    });

    // Act
    progress.onEvent({ type: 'level_started', level: org.levels[0] as (typeof org.levels)[number] });

    // Assess
    expect(text).toBe('▸ collect (plan: 2 calls per account, 2 at a time)\n');
  });
});

describe('formatSummary', () => {
  it('lists each level, the failures by code, the tokens, and the cost by part with its source', () => {
    // Prepare
    const summary = summarizeRun({
      scenario,
      runId: 'run-1',
      tenant: 'default',
      levels: { collect, analyze, report },
      memory: {
        engineMb: 256,
        dispatcherMb: 256,
        toolMb: { aws_ec2_inventory: 512, slack_post_message: 256 },
      },
      now: new Date('2026-01-01T00:00:00Z'),
    });

    // Act
    const text = formatSummary(summary, 4200);

    // Assess
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      'Run summary: pulse run run-1 (tenant default) in 4.2 s: incomplete (report ended without a result)',
    );
    expect(lines.slice(1, 5).map((line) => line.split(/ {2,}/).filter(Boolean))).toEqual([
      ['LEVEL', 'OUTCOME', 'CALLS', 'FAILED', 'TOKENS IN/OUT'],
      ['collect', 'ok', '1/1 ok', '-', '-'],
      ['analyze', 'finished', '1/1 ok', '-', '3000/250'],
      ['report', 'failed', '0/1 ok', 'secret_not_found', '-'],
    ]);
    expect(text).toContain('Step Functions state transitions');
    expect(text).toContain('model tokens (analyze: anthropic.claude-3-5-haiku-20241022-v1:0)');
    expect(text).toContain('3250 tokens (3000 in at $0.0008/1K, 250 out at $0.004/1K)');
    expect(text).not.toContain('Budget');
  });

  it("counts a per-account level's calls over its accounts, and ends its line without a stray period", () => {
    // Prepare: an organization level (no calls of its own) whose 30 per-account calls ran, 2 failed
    const org: PlanLevelRecord = {
      ...collect,
      outcome: 'partial',
      summary: "Full per-account detail: levels/collect/organization.json in the run's workspace.",
      calls: [],
      organization: {
        selected: 30,
        audited: 28,
        partial: 2,
        failed: 0,
        notAudited: 0,
        report: 'levels/collect/organization.json',
        calls: {
          accounts: 30,
          perCall: [{ tool: 'aws_ec2_inventory', count: 30, ms: 3000 }],
          caught: 0,
          failed: 2,
          costExplorerRequests: 0,
        },
      },
    };
    let line = '';
    const progress = createRunProgress(scenario, 'run-1', (chunk) => {
      line += chunk;
    });

    // Act
    const text = formatSummary(
      summarizeRun({
        scenario,
        runId: 'run-1',
        tenant: 'default',
        levels: { collect: org, analyze, report },
        memory: {
          engineMb: 256,
          dispatcherMb: 256,
          toolMb: { aws_ec2_inventory: 512, slack_post_message: 256 },
        },
        now: new Date('2026-01-01T00:00:00Z'),
      }),
      4200,
    );
    progress.onEvent({ type: 'level_ended', level: 'collect', record: org });

    // Assess
    expect(text.split('\n')[2]?.split(/ {2,}/).filter(Boolean)).toEqual([
      'collect',
      'partial',
      '28/30 ok (per account)',
      '2 (see the organization report)',
      '-',
    ]);
    expect(line).toBe(
      "  collect: Full per-account detail: levels/collect/organization.json in the run's workspace; findings: 3 (1 new, 2 unchanged, 1 resolved)\n",
    );
  });

  it('says what the run budget did not start, with the spent and remaining figures', () => {
    // Prepare: the report's Slack post was not started under a budget of $0.05
    const skipped = {
      ...report,
      outcome: 'failed' as const,
      gated: true as const,
      calls: [
        {
          callId: 'report/0',
          tool: 'slack_post_message',
          ok: false,
          code: 'limit_exceeded' as const,
          summary: 'limit_exceeded: not started',
          durationMs: 0,
          skipped: 'budget' as const,
          estimateUsd: 0.00025,
        },
      ],
    };
    const summary = summarizeRun({
      scenario,
      runId: 'run-2',
      tenant: 'default',
      levels: { collect, analyze, report: skipped },
      memory: {
        engineMb: 256,
        dispatcherMb: 256,
        toolMb: { aws_ec2_inventory: 512, slack_post_message: 256 },
      },
      budgetUsd: 0.05,
    });

    // Act
    const text = formatSummary(summary, 4200);

    // Assess
    const spent = summary.cost.totalUsd;
    expect(text).toContain(
      `  Budget $0.05: ~$${spent.toFixed(4)} spent, ~$${(0.05 - spent).toFixed(4)} left; 1 call not started because its estimate would have gone past it.\n` +
        '    not started: report/0 (slack_post_message), estimated $0.0003\n',
    );
  });
});
