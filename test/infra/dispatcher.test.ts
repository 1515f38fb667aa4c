import { DEFAULT_RESULT_MAX_BYTES } from '../../functions/runtime/harness';
import { levelWhitelists, loadScenarios } from '../../functions/scenarios/loader';
import { FILE_TOOLS, toolCatalog } from '../../functions/tools/catalog';
import { flattenIntrinsics, logicalIdOf, synthesizePlatform, toolFunctionId } from '../helpers/cdk';

const functionTools = toolCatalog.list().filter((spec) => (spec.placement ?? 'function') === 'function');

type FunctionProperties = { Environment: { Variables: Record<string, unknown> }; Timeout: number };

describe('the dispatcher function', () => {
  function synthesize() {
    const { stack, template } = synthesizePlatform();
    const resources = template.toJSON().Resources;
    const dispatcher = resources[logicalIdOf(stack.dispatcher.lambdaFunction)]
      .Properties as FunctionProperties;
    return { stack, resources, dispatcher };
  }

  it("gets the scenario loader's level whitelists in SCENARIO_LEVELS", () => {
    // Prepare
    const { dispatcher } = synthesize();
    const expected = levelWhitelists(loadScenarios(toolCatalog, FILE_TOOLS));

    // Act
    const levels = JSON.parse(flattenIntrinsics(dispatcher.Environment.Variables.SCENARIO_LEVELS));

    // Assess
    expect(levels).toEqual(expected);
    expect(Object.keys(levels).length).toBeGreaterThan(0);
  });

  it('names the function of every function-placed tool in TOOL_FUNCTIONS', () => {
    // Prepare
    const { stack, dispatcher } = synthesize();
    const expected = Object.fromEntries(
      functionTools.map((spec) => [spec.name, `<${toolFunctionId(stack, spec.name)}>`]),
    );

    // Act
    const toolFunctions = JSON.parse(flattenIntrinsics(dispatcher.Environment.Variables.TOOL_FUNCTIONS));

    // Assess
    expect(toolFunctions).toEqual(expected);
  });

  it('bounds results like the tools and outlives the slowest tool it waits for', () => {
    // Prepare
    const { dispatcher, resources } = synthesize();
    const toolTimeouts = Object.values(resources)
      .filter((resource) => (resource as { Type: string }).Type === 'AWS::Lambda::Function')
      .map((resource) => (resource as { Properties: FunctionProperties }).Properties)
      .filter((fn) => fn !== dispatcher)
      .map((fn) => fn.Timeout);

    // Act
    const { Timeout, Environment } = dispatcher;

    // Assess
    expect(toolTimeouts).toHaveLength(functionTools.length);
    expect(Timeout).toBeGreaterThan(Math.max(...toolTimeouts));
    expect(Timeout).toBeLessThanOrEqual(900);
    expect(Environment.Variables).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'dispatcher',
      RESULT_MAX_BYTES: String(DEFAULT_RESULT_MAX_BYTES),
      NODE_OPTIONS: '--enable-source-maps',
    });
  });
});
