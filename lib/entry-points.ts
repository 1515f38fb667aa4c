import { Arn, ArnFormat, Token } from 'aws-cdk-lib';
import {
  Gateway as AgentCoreGateway,
  GatewayAuthorizer,
  GatewayTarget,
  type IGateway,
  type SchemaDefinition,
  SchemaDefinitionType,
  type ToolDefinition,
  ToolSchema,
} from 'aws-cdk-lib/aws-bedrockagentcore';
import {
  EventBus,
  EventField,
  type EventPattern,
  type IEventBus,
  Rule,
  RuleTargetInput,
} from 'aws-cdk-lib/aws-events';
import { SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import { type IGrantable, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type FunctionUrl, FunctionUrlAuthType, type IFunction } from 'aws-cdk-lib/aws-lambda';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  type AccessProfile,
  accessProfilesSchema,
  BEDROCK_AGENT_ID,
  type EntryPointBindings,
  GATEWAY_TARGET_NAME,
} from '../functions/dispatcher/access';
import { type GatewaySchemaDefinition, toGatewayTool } from '../functions/dispatcher/formats/formats';
import type { ToolCatalog } from '../functions/runtime/catalog';
import { assertIdentifier, TENANT_ID } from '../functions/runtime/ids';
import { acknowledgeWildcardResources } from './nag';
import type { Scenario } from './scenarios/model';

/** A Bedrock agent allowed to call the tools through an action group whose executor is the dispatcher. */
export interface BedrockAgentEntryPoint {
  /**
   * The agent's ARN, `arn:<partition>:bedrock:<region>:<account>:agent/<agent id>`. Known at synth
   * (an agent of another stack or the console): the dispatcher tells agents apart by the id in it.
   */
  readonly agentArn: string;
  /** The access profile its calls run under. */
  readonly profile: string;
}

/** An AgentCore Gateway whose Lambda target is the dispatcher. */
export interface AgentCoreGatewayEntryPoint {
  /** The access profile its calls run under; the target lists exactly its tools. */
  readonly profile: string;
  /**
   * The target's name: the prefix of every tool name the Gateway shows (`<target>___<tool>`) and what the
   * dispatcher binds to the profile. @default 'etp-tools'
   */
  readonly targetName?: string;
  /**
   * An existing gateway to add the target to; its role is granted the invoke.
   * @default - a new gateway with AWS IAM (SigV4) inbound authorization
   */
  readonly gateway?: IGateway;
}

/** MCP over Streamable HTTP on the dispatcher's function URL (auth type AWS_IAM). */
export interface McpFunctionUrlEntryPoint {
  /** The access profile of every request of the URL. */
  readonly profile: string;
  /** Principals allowed to call the URL (`lambda:InvokeFunctionUrl` with IAM auth). @default - none: grant later with `grantInvokeUrl` */
  readonly invokers?: readonly IGrantable[];
}

/** An EventBridge rule starting a scenario run. */
export interface ScenarioTrigger {
  /** The scenario to run. */
  readonly scenario: string;
  /** The tenant the run is for: fixed by the rule, never read from the event. */
  readonly tenant: string;
  /** Which events start a run, e.g. `{ source: ['aws.guardduty'], detailType: ['GuardDuty Finding'] }`. */
  readonly eventPattern: EventPattern;
  /**
   * Scenario inputs taken from the event: input name → JSONPath in the event (`$.detail.id`). Each name
   * must be a declared input of the scenario; the others keep their defaults. @default - none
   */
  readonly inputs?: Readonly<Record<string, string>>;
  /** The bus the events arrive on. @default - the account's default bus (where AWS services send their events) */
  readonly eventBus?: IEventBus;
}

/** Entry points other than the state machines (docs/entry-points.md). */
export interface EntryPointProps {
  /** Access profiles by name: tenant + tools, for callers without a scenario. @default - none */
  readonly accessProfiles?: Readonly<Record<string, AccessProfile>>;
  /** Bedrock agents allowed to invoke the dispatcher as an action-group executor. @default - none */
  readonly bedrockAgents?: readonly BedrockAgentEntryPoint[];
  /** An AgentCore Gateway Lambda target on the dispatcher. @default - none */
  readonly agentCoreGateway?: AgentCoreGatewayEntryPoint;
  /** MCP over Streamable HTTP on the dispatcher's function URL. @default - none */
  readonly mcpFunctionUrl?: McpFunctionUrlEntryPoint;
  /** EventBridge rules starting scenario runs. @default - none */
  readonly scenarioTriggers?: readonly ScenarioTrigger[];
}

/** The gateway target name when none is given. */
export const DEFAULT_GATEWAY_TARGET_NAME = 'etp-tools';

/** The agent id in a Bedrock agent ARN. */
function agentIdOf(agentArn: string): string {
  if (Token.isUnresolved(agentArn)) {
    throw new Error(
      'bedrockAgents[].agentArn must be known at synth (the dispatcher tells agents apart by the id in it): ' +
        'pass the ARN of an agent created elsewhere, e.g. arn:aws:bedrock:eu-west-1:123456789012:agent/AB12CD34EF',
    );
  }
  const parts = Arn.split(agentArn, ArnFormat.SLASH_RESOURCE_NAME);
  const id = parts.resourceName ?? '';
  if (parts.service !== 'bedrock' || parts.resource !== 'agent' || !BEDROCK_AGENT_ID.test(id)) {
    throw new Error(
      `${agentArn} is not a Bedrock agent ARN (arn:<partition>:bedrock:<region>:<account>:agent/<10-char id>)`,
    );
  }
  return id;
}

/**
 * The dispatcher configuration of the entry points: the profiles (each tool
 * registered) and the bindings. Checked at synth, so a typo fails `cdk synth`
 * with what exists.
 *
 * @throws Error naming the unknown tool, profile or malformed agent ARN / target name.
 */
export function entryPointConfig(
  props: EntryPointProps,
  catalog: ToolCatalog,
): { accessProfiles: Record<string, AccessProfile>; entryPoints: EntryPointBindings } {
  const parsed = accessProfilesSchema.safeParse(props.accessProfiles ?? {});
  if (!parsed.success) {
    throw new Error(
      `Invalid accessProfiles: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const accessProfiles = parsed.data;
  for (const [name, profile] of Object.entries(accessProfiles)) {
    const unknown = profile.tools.filter((tool) => !catalog.has(tool));
    if (unknown.length > 0) {
      throw new Error(
        `Access profile ${name} names unregistered tools ${unknown.join(', ')}. Registered: ${catalog.names().join(', ')}`,
      );
    }
  }
  const targetName = props.agentCoreGateway?.targetName ?? DEFAULT_GATEWAY_TARGET_NAME;
  if (props.agentCoreGateway && !GATEWAY_TARGET_NAME.test(targetName)) {
    throw new Error(`agentCoreGateway.targetName "${targetName}" is not 1-100 letters, digits, _ or -`);
  }
  return {
    accessProfiles,
    entryPoints: {
      bedrockAgents: Object.fromEntries(
        (props.bedrockAgents ?? []).map((agent) => [agentIdOf(agent.agentArn), agent.profile]),
      ),
      gatewayTargets: props.agentCoreGateway ? { [targetName]: props.agentCoreGateway.profile } : {},
      ...(props.mcpFunctionUrl ? { mcpFunctionUrl: props.mcpFunctionUrl.profile } : {}),
    },
  };
}

/** Our Gateway schema as the CDK's (its `type` an object, not a string). */
function cdkSchema(schema: GatewaySchemaDefinition): SchemaDefinition {
  return {
    type: SchemaDefinitionType.of(schema.type),
    ...(schema.description ? { description: schema.description } : {}),
    ...(schema.items ? { items: cdkSchema(schema.items) } : {}),
    ...(schema.properties
      ? {
          properties: Object.fromEntries(
            Object.entries(schema.properties).map(([k, v]) => [k, cdkSchema(v)]),
          ),
        }
      : {}),
    ...(schema.required ? { required: [...schema.required] } : {}),
  };
}

/** Properties of {@link EntryPoints}. */
export interface EntryPointsProps extends EntryPointProps {
  readonly catalog: ToolCatalog;
  /** The dispatcher function every entry point reaches. */
  readonly dispatcher: IFunction;
  readonly scenarios: readonly Scenario[];
  readonly stateMachines: Readonly<Record<string, StateMachine>>;
}

/**
 * The AWS resources of the entry points: each Bedrock agent's invoke permission
 * (principal `bedrock.amazonaws.com`, source ARN the agent's, source account its
 * account: Bedrock user guide, "Resource-based policy to allow Amazon Bedrock to
 * invoke an action group Lambda function"); the AgentCore Gateway (IAM inbound
 * auth) and its Lambda target with the profile's tools; the function URL
 * (AWS_IAM) and its invokers; the EventBridge rules starting runs.
 */
export class EntryPoints extends Construct {
  /** The gateway, when `agentCoreGateway` is set. */
  public readonly gateway?: IGateway;
  /** The gateway target, when `agentCoreGateway` is set. */
  public readonly gatewayTarget?: GatewayTarget;
  /** The function URL, when `mcpFunctionUrl` is set; MCP is served on its `/mcp` path. */
  public readonly functionUrl?: FunctionUrl;
  /** The rules, one per trigger, in order. */
  public readonly triggerRules: readonly Rule[];

  constructor(scope: Construct, id: string, props: EntryPointsProps) {
    super(scope, id);
    const config = entryPointConfig(props, props.catalog);
    for (const agent of props.bedrockAgents ?? []) {
      const agentId = agentIdOf(agent.agentArn);
      props.dispatcher.addPermission(`BedrockAgent${agentId}`, {
        principal: new ServicePrincipal('bedrock.amazonaws.com'),
        action: 'lambda:InvokeFunction',
        sourceArn: agent.agentArn,
        sourceAccount: Arn.split(agent.agentArn, ArnFormat.SLASH_RESOURCE_NAME).account,
      });
    }
    if (props.agentCoreGateway) {
      const gatewayProps = props.agentCoreGateway;
      const profile = config.accessProfiles[gatewayProps.profile];
      if (!profile)
        throw new Error(`agentCoreGateway.profile "${gatewayProps.profile}" is not an access profile`);
      const definitions: ToolDefinition[] = profile.tools.map((tool) => {
        const definition = toGatewayTool(props.catalog.get(tool));
        return { ...definition, inputSchema: cdkSchema(definition.inputSchema) };
      });
      this.gateway =
        gatewayProps.gateway ??
        new AgentCoreGateway(this, 'Gateway', {
          description: 'External Tools Platform tools over MCP',
          authorizerConfiguration: GatewayAuthorizer.usingAwsIam(),
        });
      this.gatewayTarget = GatewayTarget.forLambda(this, 'GatewayTarget', {
        gateway: this.gateway,
        gatewayTargetName: gatewayProps.targetName ?? DEFAULT_GATEWAY_TARGET_NAME,
        description: `Tools of access profile ${gatewayProps.profile}`,
        lambdaFunction: props.dispatcher,
        toolSchema: ToolSchema.fromInline(definitions),
      });
      acknowledgeWildcardResources(
        this.gateway.role,
        props.dispatcher.resourceArnsForGrantInvoke,
        'The Lambda target grants the gateway role invoke on the dispatcher and its qualified ARNs ' +
          '(versions, aliases), and on no other function.',
      );
    }
    if (props.mcpFunctionUrl) {
      this.functionUrl = props.dispatcher.addFunctionUrl({ authType: FunctionUrlAuthType.AWS_IAM });
      for (const invoker of props.mcpFunctionUrl.invokers ?? []) props.dispatcher.grantInvokeUrl(invoker);
    }
    this.triggerRules = (props.scenarioTriggers ?? []).map((trigger, index) =>
      this.triggerRule(trigger, index, props),
    );
  }

  /**
   * A rule starting `trigger.scenario`'s state machine with an input
   * transformer: `{ tenant: <fixed>, <input>: <event field>… }`. A transformer,
   * not a function: the mapping is declarative, checked at synth against the
   * scenario's declared inputs, and costs no invocation or cold start; the
   * state machine merges it over the inputs' defaults. EventBridge names the
   * execution with a UUID, a valid run id.
   */
  private triggerRule(trigger: ScenarioTrigger, index: number, props: EntryPointsProps): Rule {
    const scenario = props.scenarios.find((candidate) => candidate.name === trigger.scenario);
    const stateMachine = Object.hasOwn(props.stateMachines, trigger.scenario)
      ? props.stateMachines[trigger.scenario]
      : undefined;
    if (!scenario || !stateMachine) {
      throw new Error(
        `scenarioTriggers[${index}].scenario "${trigger.scenario}" is not a scenario. Scenarios: ${props.scenarios.map((s) => s.name).join(', ')}`,
      );
    }
    assertIdentifier(TENANT_ID, trigger.tenant, `scenarioTriggers[${index}].tenant`);
    const declared = Object.keys(scenario.inputs);
    const input: Record<string, unknown> = { tenant: trigger.tenant };
    for (const [name, path] of Object.entries(trigger.inputs ?? {})) {
      if (name === 'tenant' || !declared.includes(name)) {
        throw new Error(
          `scenarioTriggers[${index}].inputs.${name} is not a declared input of ${scenario.name} ` +
            `(the tenant is the trigger's own). Declared: ${declared.filter((d) => d !== 'tenant').join(', ')}`,
        );
      }
      if (!/^\$(\.[\w-]+|\[\d+\])+$/.test(path)) {
        throw new Error(
          `scenarioTriggers[${index}].inputs.${name}: "${path}" is not a JSONPath such as $.detail.id`,
        );
      }
      input[name] = EventField.fromPath(path);
    }
    return new Rule(this, `Trigger${index}`, {
      description: `Starts the ${scenario.name} scenario for tenant ${trigger.tenant}`,
      eventPattern: trigger.eventPattern,
      eventBus: trigger.eventBus,
      targets: [new SfnStateMachine(stateMachine, { input: RuleTargetInput.fromObject(input) })],
    });
  }
}

/** The platform's event bus for `Run Completed` events, or the one given. */
export function runEventBus(scope: Construct, given: IEventBus | undefined): IEventBus {
  return given ?? new EventBus(scope, 'RunEvents', { description: 'External Tools Platform run events' });
}
