import { createRunProgress } from '../../../bin/cli/progress';
import { failureResult, type ToolResult } from '../../../functions/runtime/result';
import { scenarioSchema } from '../../../lib/scenarios/model';

const scenario = scenarioSchema.parse({
  name: 'pulse',
  description: 'Test scenario.',
  levels: [
    { name: 'collect', intra_tools: ['aws_ec2_inventory'], calls: [{ tool: 'aws_ec2_inventory' }] },
    { name: 'report', intra_tools: ['slack_post_message'], calls: [{ tool: 'slack_post_message' }] },
  ],
});

const inventory: ToolResult = {
  ok: true,
  tool: 'aws_ec2_inventory',
  callId: 'collect/0',
  value: {},
  truncated: false,
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

describe('createRunProgress', () => {
  it('writes one aligned line per call, then a summary with the failure codes', () => {
    // Prepare
    let text = '';
    const progress = createRunProgress(scenario, 'run-1', (chunk) => {
      text += chunk;
    });

    // Act
    progress.callStarted({ level: 'collect', tool: 'aws_ec2_inventory', callId: 'collect/0' });
    const started = text;
    progress.callEnded({ level: 'collect', tool: 'aws_ec2_inventory', callId: 'collect/0' }, inventory);
    progress.callStarted({ level: 'report', tool: 'slack_post_message', callId: 'report/0' });
    progress.callEnded({ level: 'report', tool: 'slack_post_message', callId: 'report/0' }, post);
    progress.completed(
      { scenario: 'pulse', input: {}, results: { collect_0: inventory, report_0: post } },
      1234,
    );

    // Assess
    expect(started).toBe('collect  aws_ec2_inventory  … ');
    expect(text.split('\n')).toEqual([
      'collect  aws_ec2_inventory  … ok 412 ms  12 EC2 instances in 2 regions (9 running)',
      'report   slack_post_message … ✗ secret_not_found: Secret "slack_default" is not set (1 ms)',
      'Completed pulse run run-1 in 1.2 s: 1 ok, 1 failed (secret_not_found).',
      '',
    ]);
  });

  it('marks a truncated result and a run with no failure', () => {
    // Prepare
    let text = '';
    const progress = createRunProgress(scenario, 'run-2', (chunk) => {
      text += chunk;
    });
    const partial: ToolResult = { ...inventory, truncated: true, durationMs: 2500 };

    // Act
    progress.callEnded({ level: 'collect', tool: 'aws_ec2_inventory', callId: 'collect/0' }, partial);
    progress.completed({ scenario: 'pulse', input: {}, results: { collect_0: partial } }, 2600);

    // Assess
    expect(text).toBe(
      'ok 2.5 s  12 EC2 instances in 2 regions (9 running) (truncated)\n' +
        'Completed pulse run run-2 in 2.6 s: 1 ok, 0 failed.\n',
    );
  });

  it("finishes a call's line with the result of its Task's Catch", () => {
    // Prepare: what the Catch's Pass state stores when the Task times out (functions/scenarios/asl.ts).
    let text = '';
    const progress = createRunProgress(scenario, 'run-3', (chunk) => {
      text += chunk;
    });
    const caught: ToolResult = {
      ok: false,
      tool: 'aws_ec2_inventory',
      callId: 'collect/0',
      durationMs: 0,
      summary: 'internal_error: the dispatcher failed (States.Timeout)',
      error: { code: 'internal_error', message: 'The dispatcher failed (States.Timeout)', retryable: false },
    };

    // Act
    progress.callStarted({ level: 'collect', tool: 'aws_ec2_inventory', callId: 'collect/0' });
    progress.callEnded({ level: 'collect', tool: 'aws_ec2_inventory', callId: 'collect/0' }, caught);
    progress.callStarted({ level: 'report', tool: 'slack_post_message', callId: 'report/0' });

    // Assess
    expect(text.split('\n')).toEqual([
      'collect  aws_ec2_inventory  … ✗ internal_error: The dispatcher failed (States.Timeout) (0 ms)',
      'report   slack_post_message … ',
    ]);
  });

  it('finishes an open line when the execution itself fails, and writes nothing when none is open', () => {
    // Prepare
    let text = '';
    const progress = createRunProgress(scenario, 'run-4', (chunk) => {
      text += chunk;
    });

    // Act
    progress.interrupted('the execution failed');
    const before = text;
    progress.callStarted({ level: 'collect', tool: 'aws_ec2_inventory', callId: 'collect/0' });
    progress.interrupted('the execution failed');

    // Assess
    expect(before).toBe('');
    expect(text).toBe('collect  aws_ec2_inventory  … ✗ the execution failed\n');
  });
});
