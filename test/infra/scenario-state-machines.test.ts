import type { IConstruct } from 'constructs';
import { toolCatalog } from '../../functions/tools/catalog';
import {
  DISPATCHER_ARN_PLACEHOLDER,
  ENGINE_ARN_PLACEHOLDER,
  ENGINE_TASK_TIMEOUT_SECONDS,
  scenarioToAsl,
  taskTimeoutSeconds,
  WAIT_FOR_TASK_TOKEN_RESOURCE,
} from '../../lib/scenarios/asl';
import { childStateNames } from '../../lib/scenarios/asl-states/org';
import { loadScenarios } from '../../lib/scenarios/loader';
import type { PlanLevel, Scenario } from '../../lib/scenarios/model';
import { PUBLISH_RUN_COMPLETED_STATE, RUN_EVENT_BUS_PLACEHOLDER } from '../../lib/scenarios/run-events';
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

/** What CloudFormation puts in place of the placeholders in these tests. */
const DISPATCHER_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:ExternalToolsPlatform-Dispatcher';
const ENGINE_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:ExternalToolsPlatform-Engine';

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
  StateMachineName: string;
  DefinitionString: unknown;
  DefinitionSubstitutions: Record<string, unknown>;
  StateMachineType: string;
  LoggingConfiguration: unknown;
  TracingConfiguration: unknown;
};

type State = {
  Type: string;
  Resource?: string;
  TimeoutSeconds?: number;
  Parameters?: { FunctionName?: string; Payload?: { action?: string }; action?: string };
  ItemProcessor?: { States: Record<string, State> };
};

/** Every state of a definition, Map iterations' included. */
function allStates(states: Record<string, State>): [string, State][] {
  return Object.entries(states).flatMap(([name, state]) => [
    [name, state] as [string, State],
    ...(state.ItemProcessor ? allStates(state.ItemProcessor.States) : []),
  ]);
}

/**
 * The states that send one of a plan level's calls: `L_call`, or per member account
 * `L_account_call` and `L_inline_account_call` (one per Distributed Map, since state
 * names are unique across the whole state machine).
 */
function planCallStates(level: PlanLevel): string[] {
  return level.for_each_account
    ? (['reader', 'inline'] as const).map((map) => childStateNames(level.name, map).accountCall)
    : [`${level.name}_call`];
}

/** The levels of a scenario fanned out over member accounts. */
function perAccountLevels(scenario: Scenario): Scenario['levels'] {
  return scenario.levels.filter((level) => level.kind === 'plan' && level.for_each_account);
}

/**
 * What a scenario's per-account levels add to its role (Step Functions developer guide,
 * "IAM policies for using Distributed Map states"): start its own children, describe and
 * stop them, redrive its Map Runs' children, read each level's account file and write
 * under its ResultWriter prefix, in this scenario's workspaces only.
 */
function distributedMapPermissions(
  scenario: Scenario,
  bucket: string,
): { action: string; resource: string }[] {
  const levels = perAccountLevels(scenario);
  if (levels.length === 0) return [];
  const states = 'arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>';
  const machine = `ExternalToolsPlatform-${scenario.name}`;
  const files = (level: string) => `<${bucket}.Arn>/runs/*/${scenario.name}/*/levels/${level}`;
  return [
    { action: 'states:StartExecution', resource: `${states}:stateMachine:${machine}` },
    { action: 'states:DescribeExecution', resource: `${states}:execution:${machine}/*` },
    { action: 'states:StopExecution', resource: `${states}:execution:${machine}/*` },
    ...levels.flatMap((level) => [
      { action: 'states:RedriveExecution', resource: `${states}:execution:${machine}/${level.name}:*` },
      { action: 's3:GetObject', resource: `${files(level.name)}/accounts.json` },
      ...['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'].map(
        (action) => ({ action, resource: `${files(level.name)}/map/*` }),
      ),
    ]),
  ];
}

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

    it('is a valid ASL definition, equal to scenarioToAsl once the ARNs are substituted', () => {
      // Prepare
      const { properties } = synthesize();

      // Act
      const definition = JSON.parse(
        flattenIntrinsics(properties.DefinitionString)
          .split(DISPATCHER_ARN_PLACEHOLDER)
          .join(DISPATCHER_ARN)
          .split(ENGINE_ARN_PLACEHOLDER)
          .join(ENGINE_ARN)
          .split(RUN_EVENT_BUS_PLACEHOLDER)
          .join('etp-run-events'),
      );
      const validation = aslValidator(structuredClone(definition));

      // Assess
      expect(validation.errorsText('\n')).toBe('');
      expect(validation.isValid).toBe(true);
      expect(JSON.stringify(definition)).toEqual(
        JSON.stringify(
          scenarioToAsl(scenario, { dispatcherArn: DISPATCHER_ARN, engineArn: ENGINE_ARN }),
        ).replaceAll(RUN_EVENT_BUS_PLACEHOLDER, 'etp-run-events'),
      );
    });

    it('sends tool calls to the dispatcher and bookkeeping to the engine, every Task bounded', () => {
      // Prepare
      const { stack, properties } = synthesize();
      const definition = JSON.parse(flattenIntrinsics(properties.DefinitionString)) as {
        States: Record<string, State>;
      };

      // Act
      const tasks = allStates(definition.States).filter(([, state]) => state.Type === 'Task');
      const byResource = (resource: string) => tasks.filter(([, state]) => state.Resource === resource);

      // Assess: nothing else is called (but the Run Completed events, on the platform bus)
      const putEvents = byResource('arn:aws:states:::events:putEvents');
      expect(putEvents.map(([stateName]) => stateName).sort()).toEqual([
        PUBLISH_RUN_COMPLETED_STATE,
        'PublishRunFailed',
      ]);
      expect(
        byResource(DISPATCHER_ARN_PLACEHOLDER).length +
          byResource(ENGINE_ARN_PLACEHOLDER).length +
          byResource(WAIT_FOR_TASK_TOKEN_RESOURCE).length +
          putEvents.length,
      ).toBe(tasks.length);
      // A wait is an ask_user question (the engine) or a plan level's call (the dispatcher, answered by its tool).
      const planCalls = new Set(
        scenario.levels.flatMap((level) => (level.kind === 'plan' ? planCallStates(level) : [])),
      );
      for (const [stateName, wait] of byResource(WAIT_FOR_TASK_TOKEN_RESOURCE)) {
        expect(wait.Parameters).toMatchObject(
          planCalls.has(stateName)
            ? { FunctionName: DISPATCHER_ARN_PLACEHOLDER, Payload: { 'taskToken.$': '$$.Task.Token' } }
            : { FunctionName: ENGINE_ARN_PLACEHOLDER, Payload: { action: 'ask' } },
        );
      }
      // …each dispatcher Task within its tools' timeout plus the margin, each engine Task within the engine's
      for (const level of scenario.levels) {
        const tools =
          level.kind === 'plan' ? level.calls.map((call) => call.tool) : [...level.intra_tools, 'finish'];
        const iterations = level.kind === 'plan' ? planCallStates(level) : [`${level.name}_tool`];
        for (const iteration of iterations) {
          const task = tasks.find(([stateName]) => stateName === iteration)?.[1];
          expect(task?.TimeoutSeconds).toBe(Math.max(...tools.map(taskTimeoutSeconds)));
        }
      }
      for (const [, task] of byResource(ENGINE_ARN_PLACEHOLDER))
        expect(task.TimeoutSeconds).toBe(ENGINE_TASK_TIMEOUT_SECONDS);
      expect(properties.DefinitionSubstitutions).toEqual({
        DispatcherArn: { 'Fn::GetAtt': [logicalIdOf(stack.platform.dispatcher.lambdaFunction), 'Arn'] },
        EngineArn: { 'Fn::GetAtt': [logicalIdOf(stack.platform.engine.lambdaFunction), 'Arn'] },
        RunEventBusName: { Ref: logicalIdOf(stack.platform.eventBus as unknown as IConstruct) },
        // A per-account level's Distributed Map reads and writes the run workspace.
        ...(perAccountLevels(scenario).length > 0
          ? { WorkspaceBucket: { Ref: logicalIdOf(stack.platform.runWorkspace.bucket) } }
          : {}),
      });
      expect(JSON.parse(flattenIntrinsics(properties.DefinitionString)).States).toHaveProperty(
        PUBLISH_RUN_COMPLETED_STATE,
      );
    });

    it('is STANDARD, named <stack>-<scenario>, traced, and logs every event without execution data', () => {
      // Prepare
      const { template, properties } = synthesize();

      // Act
      const { StateMachineType, StateMachineName, LoggingConfiguration, TracingConfiguration } = properties;

      // Assess
      expect(StateMachineType).toBe('STANDARD');
      expect(StateMachineName).toBe(`ExternalToolsPlatform-${name}`);
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

    it('has a role that may invoke the dispatcher and the engine, put events on the run bus, deliver logs and traces and run its Distributed Maps, nothing more', () => {
      // Prepare
      const { stack, template, id } = synthesize();
      const dispatcher = logicalIdOf(stack.platform.dispatcher.lambdaFunction);
      const engine = logicalIdOf(stack.platform.engine.lambdaFunction);
      const bus = logicalIdOf(stack.platform.eventBus as unknown as IConstruct);
      const bucket = logicalIdOf(stack.platform.runWorkspace.bucket);

      // Act
      const permissions = rolePermissions(template, roleOf(template, id));

      // Assess
      expect(permissions).toEqual(
        sortPermissions([
          { action: 'lambda:InvokeFunction', resource: `<${dispatcher}.Arn>` },
          { action: 'lambda:InvokeFunction', resource: `<${dispatcher}.Arn>:*` },
          { action: 'lambda:InvokeFunction', resource: `<${engine}.Arn>` },
          { action: 'lambda:InvokeFunction', resource: `<${engine}.Arn>:*` },
          { action: 'events:PutEvents', resource: `<${bus}.Arn>` },
          ...LOGGING_AND_TRACING_ACTIONS.map((action) => ({ action, resource: '*' })),
          ...distributedMapPermissions(scenario, bucket),
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
