import { toolCatalog } from '../../../functions/tools/catalog';
import { scenarioToAsl, TASK_TIMEOUT_MARGIN_SECONDS } from '../../../lib/scenarios/asl';
import { loadScenarios } from '../../../lib/scenarios/loader';
import { scenarioSchema } from '../../../lib/scenarios/model';

/** The Task states of a definition: name → TimeoutSeconds. */
function taskTimeouts(definition: ReturnType<typeof scenarioToAsl>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(definition.States)
      .filter(([, state]) => state.Type === 'Task')
      .map(([name, state]) => [name, state.TimeoutSeconds]),
  );
}

describe('scenarioToAsl Task timeouts', () => {
  it("gives each Task its tool's spec timeout plus 30 s for the dispatcher", () => {
    // Prepare: a 300 s tool, a 120 s tool, a 30 s tool and one with the default 60 s.
    const scenario = scenarioSchema.parse({
      name: 'timeouts',
      description: 'One call per timeout.',
      levels: [
        {
          name: 'collect',
          intra_tools: ['aws_s3_inventory', 'aws_ec2_inventory'],
          calls: [{ tool: 'aws_s3_inventory' }, { tool: 'aws_ec2_inventory' }],
        },
        {
          name: 'report',
          intra_tools: ['slack_post_message'],
          calls: [{ tool: 'slack_post_message' }, { tool: 'finish' }],
        },
      ],
    });

    // Act
    const timeouts = taskTimeouts(scenarioToAsl(scenario));

    // Assess
    expect(TASK_TIMEOUT_MARGIN_SECONDS).toBe(30);
    expect(timeouts).toEqual({ collect_0: 330, collect_1: 150, report_0: 60, report_1: 90 });
  });

  it('bounds every Task of every shipped scenario from the catalog', () => {
    // Prepare
    const scenarios = loadScenarios(toolCatalog);

    // Act
    const timeouts = scenarios.map((scenario) => [scenario.name, taskTimeouts(scenarioToAsl(scenario))]);

    // Assess
    expect(Object.fromEntries(timeouts)).toEqual({ aws_pulse: { collect_0: 150, report_0: 60 } });
  });
});

describe('scenarioToAsl Catches', () => {
  const [pulse] = loadScenarios(toolCatalog);

  it('turns a Task timeout into a retryable timeout result and any other error into internal_error', () => {
    // Act
    const { States } = scenarioToAsl(pulse as NonNullable<typeof pulse>);

    // Assess
    expect(States.collect_0?.Catch).toEqual([
      { ErrorEquals: ['States.Timeout'], ResultPath: '$.lastError', Next: 'collect_0_timed_out' },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.lastError', Next: 'collect_0_failed' },
    ]);
    expect(States.collect_0_timed_out).toEqual({
      Type: 'Pass',
      Parameters: {
        ok: false,
        tool: 'aws_ec2_inventory',
        callId: 'collect/0',
        durationMs: 0,
        summary: 'timeout: The call did not finish within its Task timeout (150 s)',
        error: {
          code: 'timeout',
          message: 'The call did not finish within its Task timeout (150 s)',
          retryable: true,
        },
      },
      ResultPath: '$.results.collect_0',
      Next: 'report_0',
    });
    expect(States.collect_0_failed?.Parameters).toMatchObject({
      'summary.$': "States.Format('internal_error: The dispatcher failed ({})', $.lastError.Error)",
      error: { code: 'internal_error', retryable: false },
    });
  });
});
