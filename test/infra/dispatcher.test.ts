import { toolFunctionName } from '../../functions/dispatcher/config';
import { DEFAULT_RESULT_MAX_BYTES } from '../../functions/runtime/result-limits';
import { toolCatalog } from '../../functions/tools/catalog';
import { inlineResultBudget } from '../../lib/scenarios/budget';
import { accountLevels, levelWhitelists } from '../../lib/scenarios/level-tables';
import { levelPins, loadScenarios } from '../../lib/scenarios/loader';
import { logicalIdOf, synthesizePlatform, toolFunctionId } from '../helpers/cdk';

const functionTools = toolCatalog.functionTools().map((entry) => entry.spec);

type FunctionProperties = { Environment: { Variables: Record<string, unknown> }; Timeout: number };

describe('the dispatcher function', () => {
  function synthesize() {
    const { stack, template } = synthesizePlatform();
    const resources = template.toJSON().Resources;
    const dispatcher = resources[logicalIdOf(stack.platform.dispatcher.lambdaFunction)]
      .Properties as FunctionProperties;
    return { stack, resources, dispatcher };
  }

  it("is bundled with the scenario loader's level whitelists and the tool functions' name prefix", () => {
    // Prepare
    const { stack, dispatcher } = synthesize();

    // Act
    const config = stack.platform.dispatcherConfig;

    // Assess
    expect(config).toEqual({
      scenarios: levelWhitelists(loadScenarios(toolCatalog)),
      pins: levelPins(loadScenarios(toolCatalog)),
      accountLevels: accountLevels(loadScenarios(toolCatalog)),
      toolFunctionNamePrefix: 'ExternalToolsPlatform-',
      // No entry point configured (lib/entry-points.ts): no profile, no binding.
      accessProfiles: {},
      entryPoints: { bedrockAgents: {}, gatewayTargets: {} },
    });
    expect(Object.keys(config.scenarios).length).toBeGreaterThan(0);
    // Nothing of it travels in the environment (Lambda caps variables at 4 KB in all). No NODE_OPTIONS:
    // stack traces are mapped by the module injected into the bundle (lib/platform-function.ts).
    expect(Object.keys(dispatcher.Environment.Variables).sort()).toEqual([
      'POWERTOOLS_SERVICE_NAME',
      'RESULT_INLINE_BYTES',
      'RESULT_MAX_BYTES',
      'RUN_BUCKET',
      // The run-data role, its only way to the run workspaces (docs/tenant-isolation.md).
      'RUN_DATA_ROLE',
      // The reader and records roles it vends sessions of (docs/tenant-isolation.md).
      'SECRET_READER_ROLES',
    ]);
  });

  it('names every tool function <prefix><tool>, the name the dispatcher invokes', () => {
    // Prepare
    const { stack, resources } = synthesize();

    // Act
    const names = functionTools.map(
      (spec) =>
        (resources[toolFunctionId(stack, spec.name)].Properties as { FunctionName: string }).FunctionName,
    );

    // Assess
    expect(names).toEqual(
      functionTools.map((spec) =>
        toolFunctionName(stack.platform.dispatcherConfig.toolFunctionNamePrefix, spec.name),
      ),
    );
    expect(names).toContain('ExternalToolsPlatform-aws_ec2_inventory');
  });

  it('refuses a prefix that makes a function name longer than Lambda accepts', () => {
    // Act
    const build = () =>
      synthesizePlatform({ functionNamePrefix: 'a-very-long-function-name-prefix-012345-' });

    // Assess
    expect(build).toThrow('is not a Lambda function name (1-64 letters, digits, - or _)');
  });

  it('bounds results at the inline budget and outlives the slowest tool it waits for', () => {
    // Prepare
    const { dispatcher, resources } = synthesize();
    const toolTimeouts = Object.values(resources)
      .filter((resource) => (resource as { Type: string }).Type === 'AWS::Lambda::Function')
      .map((resource) => (resource as { Properties: FunctionProperties }).Properties)
      .filter((fn) => fn !== dispatcher && fn.Environment.Variables.POWERTOOLS_SERVICE_NAME !== 'engine')
      .map((fn) => fn.Timeout);

    // Act
    const { Timeout, Environment } = dispatcher;

    // Assess
    expect(toolTimeouts).toHaveLength(functionTools.length);
    expect(Timeout).toBeGreaterThan(Math.max(...toolTimeouts));
    expect(Timeout).toBeLessThanOrEqual(900);
    expect(Environment.Variables).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'dispatcher',
      // The scenarios' inline budget (lib/scenarios/budget.ts), under the tools' own bound.
      RESULT_MAX_BYTES: String(inlineResultBudget(loadScenarios(toolCatalog), DEFAULT_RESULT_MAX_BYTES)),
    });
  });
});
