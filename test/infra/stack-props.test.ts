import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { toolCatalog } from '../../functions/tools/catalog';
import { ExternalToolsStack } from '../../lib/external-tools-stack';
import { newApp, synthesizePlatform } from '../helpers/cdk';

/** A one-level scenario whose whitelist names `tool`. */
function scenarioYaml(tool: string): string {
  return [
    'name: typo_check',
    'description: A scenario whose whitelist may name a tool that does not exist.',
    'levels:',
    '  - name: collect',
    `    intra_tools: [${tool}]`,
    '    calls:',
    `      - tool: ${tool}`,
    '',
  ].join('\n');
}

describe('ExternalToolsStack props', () => {
  let scenariosDir: string;

  beforeEach(() => {
    scenariosDir = mkdtempSync(path.join(tmpdir(), 'etp-scenarios-'));
  });

  afterEach(() => {
    rmSync(scenariosDir, { recursive: true, force: true });
  });

  it('fails construction on a typo in intra_tools, listing the registered tool names', () => {
    // Prepare
    writeFileSync(path.join(scenariosDir, 'typo_check.yaml'), scenarioYaml('aws_ec2_inventroy'));

    // Act
    const build = () => new ExternalToolsStack(newApp(), 'ExternalToolsPlatform', { scenariosDir });

    // Assess
    expect(build).toThrow('Unknown tool "aws_ec2_inventroy"');
    expect(build).toThrow(`Registered tools: ${toolCatalog.names().join(', ')}`);
  });

  it('builds one state machine per scenario file of the folder it is given', () => {
    // Prepare
    writeFileSync(path.join(scenariosDir, 'typo_check.yaml'), scenarioYaml('aws_ec2_inventory'));
    const app = newApp();

    // Act
    const stack = new ExternalToolsStack(app, 'ExternalToolsPlatform', { scenariosDir });

    // Assess
    expect(Object.keys(stack.platform.stateMachines)).toEqual(['typo_check']);
    Template.fromStack(stack).resourceCountIs('AWS::StepFunctions::StateMachine', 1);
  });

  it('hands resultMaxBytes to every tool function, and the dispatcher the inline budget under it', () => {
    // Prepare
    const resultMaxBytes = 32 * 1024;

    // Act
    const { stack, template } = synthesizePlatform({ resultMaxBytes });

    // Assess
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    const bound = (service: string) =>
      functions
        .filter(
          (fn) =>
            (service === 'tool') !==
            ['dispatcher', 'engine'].includes(fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME),
        )
        .map((fn) => fn.Properties.Environment.Variables.RESULT_MAX_BYTES);
    expect(bound('tool')).toEqual(toolCatalog.functionTools().map(() => String(resultMaxBytes)));
    expect(stack.platform.inlineResultBytes).toBeLessThan(resultMaxBytes);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          POWERTOOLS_SERVICE_NAME: 'dispatcher',
          RESULT_MAX_BYTES: String(stack.platform.inlineResultBytes),
        },
      },
    });
  });

  it.each([1024, 4096.5, 300 * 1024])(
    'rejects a resultMaxBytes the runtime would ignore (%d)',
    (resultMaxBytes) => {
      // Prepare
      const app = newApp();

      // Act
      const build = () => new ExternalToolsStack(app, 'ExternalToolsPlatform', { resultMaxBytes });

      // Assess
      expect(build).toThrow(`resultMaxBytes ${resultMaxBytes} is not a whole number of bytes`);
    },
  );
});
