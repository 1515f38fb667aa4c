import { renderPlanResults } from '../../../functions/engine/prompt';
import type { PlanLevelRecord } from '../../../functions/engine/records';

describe('renderPlanResults', () => {
  it('tells a result the platform shrank from one the tool itself reported incomplete', () => {
    // Prepare: the same call shrunk by the platform, then marked truncated by the tool alone
    const call = {
      callId: 'collect/0',
      tool: 'aws_iam_audit',
      ok: true,
      summary: '6 findings',
      durationMs: 5,
    };
    const record = (marks: { truncated?: boolean; shrunk?: true }): PlanLevelRecord => ({
      kind: 'plan',
      outcome: 'ok',
      summary: '1 call: 1 ok',
      calls: [{ ...call, ...marks }],
    });

    // Act
    const lines = [record({ truncated: true, shrunk: true }), record({ truncated: true }), record({})].map(
      (r) => renderPlanResults('collect', r),
    );

    // Assess
    expect(lines).toEqual([
      '- aws_iam_audit (collect/0): ok — 6 findings (shortened); full result: levels/collect/0-aws_iam_audit.json',
      '- aws_iam_audit (collect/0): ok — 6 findings (incomplete, as the tool reported); full result: levels/collect/0-aws_iam_audit.json',
      '- aws_iam_audit (collect/0): ok — 6 findings; full result: levels/collect/0-aws_iam_audit.json',
    ]);
  });
});
