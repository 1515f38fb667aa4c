/**
 * A write tool's exactly-once records outlive every run that can make its calls:
 * the longest execution the synthesized state machines allow (`TimeoutSeconds`,
 * an hour of work plus every `ask_user` wait) plus the 14 days within which an
 * ended execution may be redriven under its own name. Read from the template.
 */
import { recordSeconds } from '../../functions/runtime/call-key';
import { toolCatalog } from '../../functions/tools/catalog';
import { REDRIVE_WINDOW_SECONDS } from '../../lib/scenarios/asl';
import { flattenIntrinsics, synthesizePlatform, toolFunctionId } from '../helpers/cdk';

const { stack, template } = synthesizePlatform();
const resources = template.toJSON().Resources as Record<
  string,
  { Type: string; Properties: Record<string, unknown> }
>;

/** The longest `TimeoutSeconds` of the synthesized state machines' definitions. */
function longestExecutionSeconds(): number {
  const timeouts = Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::StepFunctions::StateMachine')
    .map(
      (resource) =>
        (JSON.parse(flattenIntrinsics(resource.Properties.DefinitionString)) as { TimeoutSeconds: number })
          .TimeoutSeconds,
    );
  expect(timeouts.length).toBeGreaterThan(0);
  return Math.max(...timeouts);
}

const writeTools = toolCatalog
  .functionTools()
  .filter((entry) => entry.spec.sideEffects === 'write')
  .map((entry) => entry.spec.name);

describe("write tools' exactly-once records", () => {
  it.each(writeTools)('%s keeps them past the longest execution and its redrive window', (tool) => {
    // Act
    const environment =
      (
        resources[toolFunctionId(stack, tool)]?.Properties.Environment as
          | { Variables: Record<string, string> }
          | undefined
      )?.Variables ?? {};
    const kept = recordSeconds(environment);

    // Assess
    expect(environment.IDEMPOTENCY_RECORD_SECONDS).toBeDefined();
    expect(kept).toBeGreaterThanOrEqual(longestExecutionSeconds() + REDRIVE_WINDOW_SECONDS);
  });
});
