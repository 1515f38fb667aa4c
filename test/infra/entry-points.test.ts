import * as path from 'node:path';
import { Lazy, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { ArnPrincipal } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { ExternalToolsStackProps } from '../../lib/external-tools-stack';
import {
  flattenIntrinsics,
  logicalIdOf,
  roleOf,
  rolePermissions,
  stateMachineId,
  synthesizePlatform,
} from '../helpers/cdk';
import { GUARDDUTY_FINDING, transformInput } from '../helpers/entry-point-events';

/**
 * The entry points' AWS resources (lib/entry-points.ts): who may invoke the
 * dispatcher (the named Bedrock agent, the named gateway, the function URL's
 * invokers, nothing else), what the gateway target lists, what the EventBridge
 * trigger starts with, and cdk-nag on all of it.
 */
const AGENT_ARN = 'arn:aws:bedrock:eu-west-1:123456789012:agent/AB12CD34EF';
const FIXTURE_SCENARIOS = path.join(__dirname, '../fixtures/scenarios');
const PROFILE_TOOLS = ['aws_iam_audit', 'slack_post_message'];

function props(extra: Partial<ExternalToolsStackProps> = {}): ExternalToolsStackProps {
  return {
    scenariosDir: FIXTURE_SCENARIOS,
    accessProfiles: { ops: { tenant: 'acme', tools: PROFILE_TOOLS } },
    bedrockAgents: [{ agentArn: AGENT_ARN, profile: 'ops' }],
    agentCoreGateway: { profile: 'ops' },
    scenarioTriggers: [
      {
        scenario: 'incident_response',
        tenant: 'acme',
        eventPattern: { source: ['aws.guardduty'], detailType: ['GuardDuty Finding'] },
        inputs: { finding_id: '$.detail.id', finding_type: '$.detail.type', severity: '$.detail.severity' },
      },
    ],
    ...extra,
  };
}

describe('Bedrock Agents action group permission', () => {
  it('lets bedrock.amazonaws.com invoke the dispatcher for the named agent of its account only', () => {
    // Prepare
    const { stack, template } = synthesizePlatform(props());
    const dispatcher = logicalIdOf(stack.platform.dispatcher.lambdaFunction);

    // Act
    const permissions = template.findResources('AWS::Lambda::Permission', {
      Properties: { Principal: 'bedrock.amazonaws.com' },
    });

    // Assess
    expect(Object.values(permissions)).toEqual([
      {
        Type: 'AWS::Lambda::Permission',
        Properties: {
          Action: 'lambda:InvokeFunction',
          FunctionName: { 'Fn::GetAtt': [dispatcher, 'Arn'] },
          Principal: 'bedrock.amazonaws.com',
          SourceArn: AGENT_ARN,
          SourceAccount: '123456789012',
        },
      },
    ]);
    expect(stack.platform.dispatcherConfig.entryPoints.bedrockAgents).toEqual({ AB12CD34EF: 'ops' });
  });

  it('refuses an agent ARN unknown at synth and a profile naming an unregistered tool', () => {
    const token = Lazy.string({ produce: () => AGENT_ARN });
    expect(() => synthesizePlatform(props({ bedrockAgents: [{ agentArn: token, profile: 'ops' }] }))).toThrow(
      /must be known at synth/,
    );
    expect(() =>
      synthesizePlatform(props({ accessProfiles: { ops: { tenant: 'acme', tools: ['aws_ec2_inventry'] } } })),
    ).toThrow(/unregistered tools aws_ec2_inventry\. Registered: .*aws_ec2_inventory/);
    expect(() =>
      synthesizePlatform(props({ bedrockAgents: [{ agentArn: AGENT_ARN, profile: 'nope' }] })),
    ).toThrow(/unknown access profile "nope"/);
  });
});

describe('AgentCore Gateway Lambda target', () => {
  it("creates an IAM-authorized gateway whose target lists the profile's tools in the Gateway schema", () => {
    // Prepare
    const { stack, template } = synthesizePlatform(props());
    const dispatcher = logicalIdOf(stack.platform.dispatcher.lambdaFunction);

    // Act
    const targets = Object.values(template.findResources('AWS::BedrockAgentCore::GatewayTarget'));

    // Assess
    template.hasResourceProperties('AWS::BedrockAgentCore::Gateway', { AuthorizerType: 'AWS_IAM' });
    expect(targets).toHaveLength(1);
    const target = targets[0] as {
      Properties: {
        Name: string;
        TargetConfiguration: {
          Mcp: { Lambda: { LambdaArn: unknown; ToolSchema: { InlinePayload: unknown } } };
        };
      };
    };
    expect(target.Properties.Name).toBe('etp-tools');
    const lambda = target.Properties.TargetConfiguration.Mcp.Lambda;
    expect(lambda.LambdaArn).toEqual({ 'Fn::GetAtt': [dispatcher, 'Arn'] });
    const tools = lambda.ToolSchema.InlinePayload as { Name: string; InputSchema: { Type: string } }[];
    expect(tools.map((tool) => tool.Name)).toEqual(PROFILE_TOOLS);
    expect(tools.every((tool) => tool.InputSchema.Type === 'object')).toBe(true);
    expect(stack.platform.dispatcherConfig.entryPoints.gatewayTargets).toEqual({ 'etp-tools': 'ops' });
  });

  it('grants the gateway role invoke on the dispatcher and nothing else', () => {
    // Prepare
    const { stack, template } = synthesizePlatform(props());
    const dispatcher = logicalIdOf(stack.platform.dispatcher.lambdaFunction);
    const gateway = Object.keys(template.findResources('AWS::BedrockAgentCore::Gateway'))[0] ?? '';

    // Act
    const permissions = rolePermissions(template, roleOf(template, gateway));

    // Assess
    expect(permissions.filter((p) => p.action.startsWith('lambda:'))).toEqual([
      { action: 'lambda:InvokeFunction', resource: `<${dispatcher}.Arn>` },
      { action: 'lambda:InvokeFunction', resource: `<${dispatcher}.Arn>:*` },
    ]);
    expect(
      template.findResources('AWS::Lambda::Permission', {
        Properties: { Principal: Match.stringLikeRegexp('agentcore') },
      }),
    ).toEqual({});
  });
});

describe('MCP on the function URL', () => {
  it('creates an AWS_IAM function URL and lets only the named invoker call it', () => {
    // Prepare
    const { template } = synthesizePlatform(props());
    const withUrl = synthesizePlatform(props({ mcpFunctionUrl: { profile: 'ops' } }));

    // Act
    const urls = withUrl.template.findResources('AWS::Lambda::Url');

    // Assess
    expect(Object.values(urls)).toEqual([
      expect.objectContaining({ Properties: expect.objectContaining({ AuthType: 'AWS_IAM' }) }),
    ]);
    expect(template.findResources('AWS::Lambda::Url')).toEqual({});
    expect(withUrl.stack.platform.dispatcherConfig.entryPoints.mcpFunctionUrl).toBe('ops');
    expect(Object.keys(withUrl.template.findOutputs('McpUrl'))).toEqual(['McpUrl']);
    expect(flattenIntrinsics(withUrl.template.findOutputs('McpUrl').McpUrl?.Value)).toMatch(
      /\.FunctionUrl>mcp$/,
    );
    expect(template.findOutputs('McpUrl')).toEqual({});
    expect(
      withUrl.template.findResources('AWS::Lambda::Permission', {
        Properties: { Action: 'lambda:InvokeFunctionUrl' },
      }),
    ).toEqual({});
  });

  it('grants each invoker lambda:InvokeFunctionUrl with IAM auth, and lambda:InvokeFunction only through the URL', () => {
    // Prepare: an invoker outside the stack, so the grant lands on the function's resource policy
    const { stack, template } = synthesizePlatform(
      props({
        mcpFunctionUrl: {
          profile: 'ops',
          invokers: [new ArnPrincipal('arn:aws:iam::123456789012:role/mcp-client')],
        },
      }),
    );
    const dispatcher = logicalIdOf(stack.platform.dispatcher.lambdaFunction);

    // Act
    const permissions = Object.values(
      template.findResources('AWS::Lambda::Permission', {
        Properties: { Principal: 'arn:aws:iam::123456789012:role/mcp-client' },
      }),
    ).map((resource) => (resource as { Properties: Record<string, unknown> }).Properties);

    // Assess
    expect(permissions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Action: 'lambda:InvokeFunctionUrl', FunctionUrlAuthType: 'AWS_IAM' }),
        expect.objectContaining({ Action: 'lambda:InvokeFunction', InvokedViaFunctionUrl: true }),
      ]),
    );
    expect(permissions).toHaveLength(2);
    expect(permissions.every((p) => flattenIntrinsics(p.FunctionName) === `<${dispatcher}.Arn>`)).toBe(true);
  });
});

describe('EventBridge trigger and Run Completed events', () => {
  it("starts the scenario with the trigger's tenant and the declared inputs taken from the GuardDuty finding", () => {
    // Prepare
    const { stack, template } = synthesizePlatform(props());
    const rules = template.findResources('AWS::Events::Rule', {
      Properties: { EventPattern: { source: ['aws.guardduty'] } },
    });

    // Act
    type RuleTarget = {
      Arn: unknown;
      InputTransformer: { InputTemplate: string; InputPathsMap: Record<string, string> };
    };
    const [rule] = Object.values(rules) as { Properties: { EventPattern: unknown; Targets: RuleTarget[] } }[];
    const target = rule?.Properties.Targets[0];
    if (!target) throw new Error('the rule has no target');
    const input = transformInput(
      target.InputTransformer.InputTemplate,
      target.InputTransformer.InputPathsMap,
      GUARDDUTY_FINDING,
    );

    // Assess
    expect(rule?.Properties.EventPattern).toEqual({
      source: ['aws.guardduty'],
      'detail-type': ['GuardDuty Finding'],
    });
    expect(target.Arn).toEqual({ Ref: stateMachineId(stack, 'incident_response') });
    expect(input).toEqual({
      tenant: 'acme',
      finding_id: '16afba5c5c43e07c9e3e5e2e544e95df',
      finding_type: 'Canary:EC2/Stateless.IntegTest',
      severity: 5,
    });
  });

  it('refuses a trigger input the scenario does not declare, and a tenant taken from the event', () => {
    const trigger = props().scenarioTriggers?.[0];
    if (!trigger) throw new Error('fixture without trigger');
    expect(() =>
      synthesizePlatform(props({ scenarioTriggers: [{ ...trigger, inputs: { findingId: '$.detail.id' } }] })),
    ).toThrow(/inputs\.findingId is not a declared input of incident_response.*Declared: finding_id/);
    expect(() =>
      synthesizePlatform(
        props({ scenarioTriggers: [{ ...trigger, inputs: { tenant: '$.detail.accountId' } }] }),
      ),
    ).toThrow(/inputs\.tenant is not a declared input/);
    expect(() =>
      synthesizePlatform(props({ scenarioTriggers: [{ ...trigger, tenant: 'acme corp' }] })),
    ).toThrow(/scenarioTriggers\[0\]\.tenant "acme corp" is not a tenant id/);
  });

  it('publishes Run Completed on the platform bus from every state machine', () => {
    // Prepare
    const { stack, template } = synthesizePlatform(props());
    const bus = logicalIdOf(stack.platform.eventBus);

    // Act
    const definition = JSON.parse(
      flattenIntrinsics(
        template.toJSON().Resources[stateMachineId(stack, 'incident_response')].Properties.DefinitionString,
      ),
    );

    // Assess
    expect(definition.States.Summary.Next).toBe('PublishRunCompleted');
    expect(definition.States.PublishRunCompleted).toMatchObject({
      Resource: 'arn:aws:states:::events:putEvents',
      ResultPath: null,
      Next: 'Done',
      Parameters: {
        Entries: [
          {
            Source: 'external-tools-platform',
            DetailType: 'Run Completed',
            Detail: {
              scenario: 'incident_response',
              'tenant.$': '$.tenant',
              'runId.$': '$$.Execution.Name',
              'status.$': '$.completion.status',
            },
          },
        ],
      },
    });
    // …and a run whose summary failed says so too
    expect(definition.States.SummaryFailed.Next).toBe('PublishRunFailed');
    expect(definition.States.PublishRunFailed.Parameters.Entries[0].Detail).toMatchObject({
      status: 'FAILED',
    });
    expect(definition.States.Done).toEqual({ Type: 'Succeed', Comment: expect.any(String) });
    template.hasResourceProperties('AWS::Events::EventBus', { Name: Match.anyValue() });
    expect(bus).toMatch(/RunEvents/);
  });
});

describe('cdk-nag', () => {
  it('finds nothing unacknowledged with every entry point configured', () => {
    // Prepare
    const { app } = synthesizePlatform(props({ mcpFunctionUrl: { profile: 'ops' } }));

    // Act
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const violations = new AwsSolutionsChecks().validateScope(app).violations;

    // Assess
    expect(violations).toEqual([]);
  });
});
