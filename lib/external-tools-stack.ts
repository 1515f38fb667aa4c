import * as path from 'node:path';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DEFAULT_RESULT_MAX_BYTES, resultMaxBytes } from '../functions/runtime/harness';
import { levelWhitelists, loadScenarios, SCENARIOS_DIR } from '../functions/scenarios/loader';
import { FILE_TOOLS, toolCatalog } from '../functions/tools/catalog';
import { grantInvokeAcknowledged } from './nag';
import { DEFAULT_TIMEOUT_SECONDS, PlatformFunction } from './platform-function';
import { ScenarioStateMachine } from './scenario-state-machine';
import { ToolFunction } from './tool-function';

/** The dispatcher's Lambda entry. */
const DISPATCHER_ENTRY = path.join(__dirname, '../functions/dispatcher/handler.ts');

/**
 * Seconds the dispatcher outlives the slowest tool function it waits for
 * (`RequestResponse`), so a tool's own timeout is reported by the dispatcher as
 * a result rather than cut off by the dispatcher's.
 */
const DISPATCHER_TIMEOUT_MARGIN_SECONDS = 10;

/** Lambda's maximum timeout, in seconds (Lambda developer guide, "Lambda quotas"). */
const LAMBDA_MAX_TIMEOUT_SECONDS = 900;

/** Properties of an {@link ExternalToolsStack}. */
export interface ExternalToolsStackProps extends StackProps {
  /**
   * Folder of the scenario YAML files: one state machine per file. A level whose
   * `intra_tools` names an unregistered tool fails construction (and `cdk synth`)
   * with the registered names listed.
   * @default SCENARIOS_DIR (functions/scenarios)
   */
  readonly scenariosDir?: string;
  /**
   * Bound on one ToolResult in bytes (`RESULT_MAX_BYTES` of the dispatcher and
   * every tool), 4 KiB to 250 KiB (functions/runtime/harness.ts).
   * @default DEFAULT_RESULT_MAX_BYTES (64 KiB)
   */
  readonly resultMaxBytes?: number;
}

/** `PascalCase` of a snake_case name, for construct ids and output names (`aws_pulse` → `AwsPulse`). */
function pascalCase(name: string): string {
  return name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * The platform (DESIGN.md, "Shape"): the DynamoDB secret-reference table, one
 * {@link ToolFunction} per registered tool whose placement is `function`, the
 * dispatcher, and one {@link ScenarioStateMachine} per scenario YAML. Only the
 * dispatcher may invoke the tool functions; each state machine may invoke only
 * the dispatcher.
 *
 * Outputs: `SecretReferenceTableName` and `<Scenario>StateMachineArn` per scenario
 * (`AwsPulseStateMachineArn`).
 *
 * @throws PlatformError (`internal_error`) when a scenario file is invalid or a level
 *   names an unregistered tool (the message lists the registered names).
 * @throws Error when `resultMaxBytes` is outside what the runtime accepts.
 */
export class ExternalToolsStack extends Stack {
  /** Secret references (`tenant_id`, `secret_name`); never a secret value. */
  public readonly secretReferenceTable: Table;
  /** The tool functions by tool name. */
  public readonly toolFunctions: Readonly<Record<string, ToolFunction>>;
  /** The dispatcher. */
  public readonly dispatcher: PlatformFunction;
  /** The state machines by scenario name. */
  public readonly stateMachines: Readonly<Record<string, StateMachine>>;

  constructor(scope: Construct, id: string, props: ExternalToolsStackProps = {}) {
    super(scope, id, props);
    const maxBytes = props.resultMaxBytes ?? DEFAULT_RESULT_MAX_BYTES;
    if (resultMaxBytes({ RESULT_MAX_BYTES: String(maxBytes) }) !== maxBytes) {
      throw new Error(`resultMaxBytes ${maxBytes} is not a whole number of bytes from 4096 to 250 KiB`);
    }
    // Loaded first: a scenario naming an unknown tool stops the synth before anything is built.
    const scenarios = loadScenarios(toolCatalog, FILE_TOOLS, props.scenariosDir ?? SCENARIOS_DIR);

    this.secretReferenceTable = new Table(this, 'SecretReferences', {
      partitionKey: { name: 'tenant_id', type: AttributeType.STRING },
      sortKey: { name: 'secret_name', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The AWS managed key (aws/dynamodb): encryption at rest with key use in
      // CloudTrail, no key policy to keep; the table holds references, never values.
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const tools = new Construct(this, 'Tools');
    const toolFunctions: Record<string, ToolFunction> = {};
    for (const spec of toolCatalog.list()) {
      if ((spec.placement ?? 'function') !== 'function') continue;
      toolFunctions[spec.name] = new ToolFunction(tools, pascalCase(spec.name), {
        spec,
        secretReferenceTable: this.secretReferenceTable,
        resultMaxBytes: maxBytes,
      });
    }
    this.toolFunctions = toolFunctions;

    const slowestTool = Math.max(
      DEFAULT_TIMEOUT_SECONDS,
      ...Object.values(toolFunctions).map((tool) => tool.lambdaFunction.timeout?.toSeconds() ?? 0),
    );
    this.dispatcher = new PlatformFunction(this, 'Dispatcher', {
      entry: DISPATCHER_ENTRY,
      description: 'External Tools Platform dispatcher: level whitelist, argument validation, tool invoke',
      timeoutSeconds: Math.min(LAMBDA_MAX_TIMEOUT_SECONDS, slowestTool + DISPATCHER_TIMEOUT_MARGIN_SECONDS),
      environment: {
        POWERTOOLS_SERVICE_NAME: 'dispatcher',
        RESULT_MAX_BYTES: String(maxBytes),
        SCENARIO_LEVELS: JSON.stringify(levelWhitelists(scenarios)),
        TOOL_FUNCTIONS: this.toJsonString(
          Object.fromEntries(
            Object.entries(toolFunctions).map(([name, tool]) => [name, tool.lambdaFunction.functionName]),
          ),
        ),
      },
    });
    for (const tool of Object.values(toolFunctions)) {
      grantInvokeAcknowledged(tool.lambdaFunction, this.dispatcher.role, `the ${tool.spec.name} function`);
    }

    const stateMachines: Record<string, StateMachine> = {};
    for (const scenario of scenarios) {
      const id = pascalCase(scenario.name);
      const { stateMachine } = new ScenarioStateMachine(this, `${id}Scenario`, {
        scenario,
        dispatcher: this.dispatcher.lambdaFunction,
      });
      stateMachines[scenario.name] = stateMachine;
      new CfnOutput(this, `${id}StateMachineArn`, {
        description: `State machine of the ${scenario.name} scenario`,
        value: stateMachine.stateMachineArn,
      });
    }
    this.stateMachines = stateMachines;

    new CfnOutput(this, 'SecretReferenceTableName', {
      description: 'DynamoDB table of the tenants’ secret references',
      value: this.secretReferenceTable.tableName,
    });
  }
}
