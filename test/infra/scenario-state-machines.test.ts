import { toolCatalog } from '../../functions/tools/catalog';
import { DISPATCHER_ARN_PLACEHOLDER, scenarioToAsl, taskTimeoutSeconds } from '../../lib/scenarios/asl';
import { loadScenarios } from '../../lib/scenarios/loader';
import type { Scenario } from '../../lib/scenarios/model';
import { PUBLISH_RUN_COMPLETED_STATE, withRunCompletedEvent } from '../../lib/scenarios/run-events';
import {
  flattenIntrinsics,
  logicalIdOf,
  roleOf,
  rolePermissions,
  sortPermissions,
  stateMachineId,
  synthesizePlatform,
} from '../helpers/cdk';

/** asl-validator 4 ships no type declarations; this is the shape of its one export. */
type AslValidator = (
  definition: unknown,
  options?: { checkPaths?: boolean; checkArn?: boolean },
) => { isValid: boolean; errorsText: (separator?: string) => string };
const aslValidator = require('asl-validator') as AslValidator;

/** What CloudFormation puts in place of `${DispatcherArn}` in these tests. */
const DISPATCHER_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:ExternalToolsPlatform-Dispatcher';

/** The Step Functions actions CDK grants for logging (level ALL) and X-Ray tracing. */
const LOGGING_AND_TRACING_ACTIONS = [
  'logs:CreateLogDelivery',
  'logs:DeleteLogDelivery',
  'logs:DescribeLogGroups',
  'logs:DescribeResourcePolicies',
  'logs:GetLogDelivery',
  'logs:ListLogDeliveries',
  'logs:PutResourcePolicy',
  'logs:UpdateLogDelivery',
  'xray:GetSamplingRules',
  'xray:GetSamplingTargets',
  'xray:PutTelemetryRecords',
  'xray:PutTraceSegments',
];

type StateMachineProperties = {
  DefinitionString: unknown;
  DefinitionSubstitutions: Record<string, unknown>;
  StateMachineType: string;
  LoggingConfiguration: unknown;
  TracingConfiguration: unknown;
};

const scenarios = loadScenarios(toolCatalog);

describe.each(scenarios.map((scenario): [string, Scenario] => [scenario.name, scenario]))(
  'the %s state machine',
  (name, scenario) => {
    function synthesize() {
      const { stack, template } = synthesizePlatform();
      const id = stateMachineId(stack, name);
      const properties = template.toJSON().Resources[id].Properties as StateMachineProperties;
      return { stack, template, id, properties };
    }

    it('is a valid ASL definition, equal to scenarioToAsl (with the Run Completed event) once the dispatcher ARN is substituted', () => {
      // Prepare
      const { properties } = synthesize();

      // Act
      const definition = JSON.parse(
        flattenIntrinsics(properties.DefinitionString).split(DISPATCHER_ARN_PLACEHOLDER).join(DISPATCHER_ARN),
      );
      const validation = aslValidator(structuredClone(definition));

      // Assess
      expect(validation.errorsText('\n')).toBe('');
      expect(validation.isValid).toBe(true);
      expect(definition).toEqual(
        withRunCompletedEvent(scenarioToAsl(scenario, DISPATCHER_ARN), scenario.name),
      );
    });

    it("sends every Task state to the dispatcher, bounded by its tool's timeout and the dispatcher margin", () => {
      // Prepare
      const { stack, properties } = synthesize();
      const calls = scenario.levels.reduce((count, level) => count + level.calls.length, 0);

      // Act
      const states = Object.values(
        JSON.parse(flattenIntrinsics(properties.DefinitionString)).States as Record<
          string,
          { Type: string; Resource?: string; TimeoutSeconds?: number; Parameters?: { tool: string } }
        >,
      );
      // Every Task but the one publishing the Run Completed event (lib/scenarios/run-events.ts).
      const tasks = states.filter(
        (state) => state.Type === 'Task' && state.Resource !== 'arn:aws:states:::events:putEvents',
      );

      // Assess
      expect(tasks).toHaveLength(calls);
      expect(new Set(tasks.map((task) => task.Resource))).toEqual(new Set([DISPATCHER_ARN_PLACEHOLDER]));
      for (const task of tasks)
        expect(task.TimeoutSeconds).toBe(taskTimeoutSeconds(task.Parameters?.tool ?? ''));
      expect(properties.DefinitionSubstitutions).toEqual({
        DispatcherArn: { 'Fn::GetAtt': [logicalIdOf(stack.platform.dispatcher.lambdaFunction), 'Arn'] },
        RunEventBusName: { Ref: expect.any(String) },
      });
      expect(JSON.parse(flattenIntrinsics(properties.DefinitionString)).States).toHaveProperty(
        PUBLISH_RUN_COMPLETED_STATE,
      );
    });

    it('is STANDARD, traced, and logs every event to its own log group without execution data', () => {
      // Prepare
      const { template, properties } = synthesize();

      // Act
      const { StateMachineType, LoggingConfiguration, TracingConfiguration } = properties;

      // Assess
      expect(StateMachineType).toBe('STANDARD');
      expect(TracingConfiguration).toEqual({ Enabled: true });
      expect(LoggingConfiguration).toEqual({
        Destinations: [
          { CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [expect.any(String), 'Arn'] } } },
        ],
        IncludeExecutionData: false,
        Level: 'ALL',
      });
      const logGroupArn = (
        LoggingConfiguration as { Destinations: { CloudWatchLogsLogGroup: { LogGroupArn: unknown } }[] }
      ).Destinations[0]?.CloudWatchLogsLogGroup.LogGroupArn;
      const logGroupId = flattenIntrinsics(logGroupArn).slice(1, -'.Arn>'.length);
      expect(template.toJSON().Resources[logGroupId]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: {
          LogGroupName: `/aws/vendedlogs/states/ExternalToolsPlatform/${name}`,
          RetentionInDays: 30,
        },
      });
    });

    it('has a role that may invoke the dispatcher, put run events on the platform bus, deliver logs and traces, nothing more', () => {
      // Prepare
      const { stack, template, id } = synthesize();
      const dispatcher = logicalIdOf(stack.platform.dispatcher.lambdaFunction);
      const bus = logicalIdOf(stack.platform.eventBus);

      // Act
      const permissions = rolePermissions(template, roleOf(template, id));

      // Assess
      expect(permissions).toEqual(
        sortPermissions([
          { action: 'lambda:InvokeFunction', resource: `<${dispatcher}.Arn>` },
          { action: 'lambda:InvokeFunction', resource: `<${dispatcher}.Arn>:*` },
          { action: 'events:PutEvents', resource: `<${bus}.Arn>` },
          ...LOGGING_AND_TRACING_ACTIONS.map((action) => ({ action, resource: '*' })),
        ]),
      );
    });

    it('is an output of the stack', () => {
      // Prepare
      const { template, id } = synthesize();

      // Act
      const outputs = template.findOutputs(`${pascal(name)}StateMachineArn`);

      // Assess
      expect(Object.values(outputs).map((output) => output.Value)).toEqual([{ Ref: id }]);
    });
  },
);

/** `aws_pulse` → `AwsPulse`, as the stack names a scenario's constructs and output. */
function pascal(name: string): string {
  return name.replace(/(?:^|_)([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}
