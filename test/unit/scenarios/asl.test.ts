import { scenarioToAsl, TASK_TIMEOUT_MARGIN_SECONDS } from '../../../functions/scenarios/asl';
import { loadScenarios } from '../../../functions/scenarios/loader';
import { scenarioSchema } from '../../../functions/scenarios/model';
import { FILE_TOOLS, toolCatalog } from '../../../functions/tools/catalog';

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
    const scenarios = loadScenarios(toolCatalog, FILE_TOOLS);

    // Act
    const timeouts = scenarios.map((scenario) => [scenario.name, taskTimeouts(scenarioToAsl(scenario))]);

    // Assess
    expect(Object.fromEntries(timeouts)).toEqual({ aws_pulse: { collect_0: 150, report_0: 60 } });
  });
});
