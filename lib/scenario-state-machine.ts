import { Stack, Validations } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { grantInvokeAcknowledged } from './nag';
import { scenarioToAsl } from './scenarios/asl';
import type { Scenario } from './scenarios/model';
import { withRunCompletedEvent } from './scenarios/run-events';

/** Properties of a {@link ScenarioStateMachine}. */
export interface ScenarioStateMachineProps {
  /** The validated scenario (functions/scenarios/loader.ts). */
  readonly scenario: Scenario;
  /** The dispatcher every Task state invokes; the only function the state machine may invoke. */
  readonly dispatcher: IFunction;
  /** How long the execution log group keeps events. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * The bus a finished run publishes its `Run Completed` event on (lib/scenarios/run-events.ts); the
   * state machine may put events on it and nowhere else. @default - no event published
   */
  readonly runEventBus?: IEventBus;
}

/**
 * One scenario's STANDARD state machine: the definition `scenarioToAsl` writes,
 * its `${DispatcherArn}` filled through `definitionSubstitutions`; every
 * execution event logged (level ALL) to its own log group without execution
 * data, since inputs and results are tenants' data; X-Ray tracing on; a role
 * allowed to invoke the dispatcher and nothing else besides log delivery and X-Ray.
 */
export class ScenarioStateMachine extends Construct {
  /** The state machine. */
  public readonly stateMachine: StateMachine;
  /** Its execution log group, `/aws/vendedlogs/states/<stack>/<scenario>`. */
  public readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ScenarioStateMachineProps) {
    super(scope, id);
    const { scenario, dispatcher } = props;
    // The /aws/vendedlogs/ prefix keeps CloudWatch Logs' resource policy under its
    // size limit however many state machines log (Step Functions developer guide,
    // "Logging using CloudWatch Logs").
    this.logGroup = new LogGroup(this, 'LogGroup', {
      logGroupName: `/aws/vendedlogs/states/${Stack.of(this).stackName}/${scenario.name}`,
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    const definition = props.runEventBus
      ? withRunCompletedEvent(scenarioToAsl(scenario), scenario.name)
      : scenarioToAsl(scenario);
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(JSON.stringify(definition)),
      definitionSubstitutions: {
        DispatcherArn: dispatcher.functionArn,
        ...(props.runEventBus ? { RunEventBusName: props.runEventBus.eventBusName } : {}),
      },
      logs: { destination: this.logGroup, level: LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    grantInvokeAcknowledged(dispatcher, this.stateMachine.role, 'the dispatcher');
    props.runEventBus?.grantPutEventsTo(this.stateMachine.role);
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
