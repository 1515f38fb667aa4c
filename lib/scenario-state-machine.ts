import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { ENGINE_PATHS } from '../functions/engine/workspaces';
import { acknowledgeWildcardResources, grantInvokeAcknowledged } from './nag';
import { scenarioToAsl } from './scenarios/asl';
import { mapRunLabel } from './scenarios/asl-states/org';
import type { Scenario } from './scenarios/model';

/** The levels of a scenario that fan out over member accounts (`for_each_account`). */
function perAccountLevels(scenario: Scenario): Scenario['levels'] {
  return scenario.levels.filter((level) => level.kind === 'plan' && level.for_each_account);
}

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
  /**
   * The run-workspace bucket: a per-account level's Distributed Map reads its
   * accounts there (`ItemReader`) and writes its children's records there (`ResultWriter`).
   */
  readonly workspaceBucket: IBucket;
  /**
   * Lambda concurrency a run may keep busy; per-account levels' `MaxConcurrency`
   * follows from it (lib/scenarios/concurrency-budget.ts).
   * @default DEFAULT_LAMBDA_CONCURRENCY (1,000)
   */
  readonly lambdaConcurrency?: number;
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
      definitionBody: DefinitionBody.fromString(
        JSON.stringify(scenarioToAsl(scenario, { lambdaConcurrency: props.lambdaConcurrency })),
      ),
      definitionSubstitutions: {
        DispatcherArn: dispatcher.functionArn,
        EngineArn: engine.functionArn,
        RunEventBusName: props.runEventBus.eventBusName,
        ...(perAccountLevels(scenario).length > 0
          ? { WorkspaceBucket: props.workspaceBucket.bucketName }
          : {}),
      },
      logs: { destination: this.logGroup, level: LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    grantInvokeAcknowledged(dispatcher, this.stateMachine.role, 'the dispatcher');
    grantInvokeAcknowledged(engine, this.stateMachine.role, 'the scenario engine');
    props.runEventBus.grantPutEventsTo(this.stateMachine.role);
    this.grantDistributedMaps(props);
    Validations.of(this.stateMachine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Step Functions logging needs the CloudWatch Logs log-delivery actions (CreateLogDelivery, ' +
        'DescribeLogGroups, …) and tracing needs xray:PutTraceSegments and friends; none of them supports ' +
        'resource-level permissions (Step Functions developer guide, "IAM policies for logging to CloudWatch Logs" ' +
        'and "AWS X-Ray and Step Functions").',
    });
  }

  /**
   * What a Distributed Map needs (Step Functions developer guide, "IAM policies for
   * using Distributed Map states"), for each per-account level and nothing more:
   * start its own child executions, describe and stop them, redrive those of the
   * level's Map Run label; read the level's account file and write under its
   * `ResultWriter` prefix, in the run workspaces of this scenario only.
   */
  private grantDistributedMaps(props: ScenarioStateMachineProps): void {
    const levels = perAccountLevels(props.scenario);
    if (levels.length === 0) return;
    const name = props.stateMachineName;
    if (!name) {
      throw new Error(
        `${props.scenario.name}: a scenario with per-account levels needs a stateMachineName (its role starts its own child executions)`,
      );
    }
    const stack = Stack.of(this);
    const arn = (resource: string, resourceName: string) =>
      stack.formatArn({
        service: 'states',
        resource,
        resourceName,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    const role = this.stateMachine.role;
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['states:StartExecution'], resources: [arn('stateMachine', name)] }),
    );
    // A Map Run's child executions are named `<stateMachine>/<label>:<id>` by the service;
    // `<stateMachine>/*` is the developer guide's resource for them, and holds none of the
    // state machine's own (parent) executions, `<stateMachine>:<name>`.
    const children = [arn('execution', `${name}/*`)];
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['states:DescribeExecution', 'states:StopExecution'],
        resources: children,
      }),
    );
    const redrivable = levels.map((level) => arn('execution', `${name}/${mapRunLabel(level.name)}:*`));
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['states:RedriveExecution'], resources: redrivable }),
    );
    acknowledgeWildcardResources(
      role,
      [...children, ...redrivable],
      'A Distributed Map describes, stops and redrives the child executions of its own Map Runs, whose ids ' +
        'Step Functions generates at run time: execution:<stateMachine>/* and execution:<stateMachine>/<label>:* ' +
        '(Step Functions developer guide, "IAM policies for using Distributed Map states"); no other state machine.',
    );
    const keys = (path: string) =>
      props.workspaceBucket.arnForObjects(`runs/*/${props.scenario.name}/*/${path}`);
    const accountFiles = levels.map((level) => keys(ENGINE_PATHS.accountItems(level.name)));
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: accountFiles }));
    const resultFiles = levels.map((level) => keys(`${ENGINE_PATHS.mapResults(level.name)}/*`));
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'],
        resources: resultFiles,
      }),
    );
    acknowledgeWildcardResources(
      role,
      [...accountFiles, ...resultFiles],
      "The Distributed Map reads its level's account file (ItemReader) and writes its ResultWriter files in this " +
        "scenario's run workspaces only, whose tenant and run id are known at run time: " +
        'runs/*/<scenario>/*/levels/<level>/accounts.json and …/levels/<level>/map/*.',
    );
  }
}
