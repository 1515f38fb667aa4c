import { Stack, Validations } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { grantInvokeAcknowledged } from './nag';
import { scenarioToAsl } from './scenarios/asl';
import type { Scenario } from './scenarios/model';

/** Properties of a {@link ScenarioStateMachine}. */
export interface ScenarioStateMachineProps {
  /** The validated scenario (lib/scenarios/loader.ts). */
  readonly scenario: Scenario;
  /** The dispatcher every tool call's Task state invokes. */
  readonly dispatcher: IFunction;
  /** The scenario engine (input checks, records, model turns, questions, summaries). */
  readonly engine: IFunction;
  /** The state machine's name; `etp scenario start` finds it by `<stack>-<scenario>`. @default - generated */
  readonly stateMachineName?: string;
  /** How long the execution log group keeps events. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * The bus a finished run publishes its `Run Completed` event on (lib/scenarios/run-events.ts);
   * the state machine may put events on it and nowhere else.
   */
  readonly runEventBus: IEventBus;
}

/**
 * One scenario's STANDARD state machine: the definition `scenarioToAsl` writes,
 * its `${DispatcherArn}`, `${EngineArn}` and `${RunEventBusName}` filled through
 * `definitionSubstitutions`;
 * every execution event logged (level ALL) to its own log group without execution
 * data, since inputs and results are tenants' data; X-Ray tracing on; a role
 * allowed to invoke the dispatcher and the engine (directly and with
 * `.waitForTaskToken`), to put events on the run-event bus, and nothing else
 * besides log delivery and X-Ray.
 */
export class ScenarioStateMachine extends Construct {
  /** The state machine. */
  public readonly stateMachine: StateMachine;
  /** Its execution log group, `/aws/vendedlogs/states/<stack>/<scenario>`. */
  public readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ScenarioStateMachineProps) {
    super(scope, id);
    const { scenario, dispatcher, engine } = props;
    // The /aws/vendedlogs/ prefix keeps CloudWatch Logs' resource policy under its
    // size limit however many state machines log (Step Functions developer guide,
    // "Logging using CloudWatch Logs").
    this.logGroup = new LogGroup(this, 'LogGroup', {
      logGroupName: `/aws/vendedlogs/states/${Stack.of(this).stackName}/${scenario.name}`,
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(JSON.stringify(scenarioToAsl(scenario))),
      definitionSubstitutions: {
        DispatcherArn: dispatcher.functionArn,
        EngineArn: engine.functionArn,
        RunEventBusName: props.runEventBus.eventBusName,
      },
      logs: { destination: this.logGroup, level: LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    grantInvokeAcknowledged(dispatcher, this.stateMachine.role, 'the dispatcher');
    grantInvokeAcknowledged(engine, this.stateMachine.role, 'the scenario engine');
    props.runEventBus.grantPutEventsTo(this.stateMachine.role);
    Validations.of(this.stateMachine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Step Functions logging needs the CloudWatch Logs log-delivery actions (CreateLogDelivery, ' +
        'DescribeLogGroups, …) and tracing needs xray:PutTraceSegments and friends; none of them supports ' +
        'resource-level permissions (Step Functions developer guide, "IAM policies for logging to CloudWatch Logs" ' +
        'and "AWS X-Ray and Step Functions").',
    });
  }
}
