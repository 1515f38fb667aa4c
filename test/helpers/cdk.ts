/**
 * CDK test helpers for the infra project: the platform stack synthesized the
 * way `cdk synth` does it (cdk.json's feature flags), with or without bundling,
 * and readers that turn a template's IAM policies and intrinsic functions into
 * plain strings to compare against the tool catalog.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { ExternalToolsStack, type ExternalToolsStackProps } from '../../lib/external-tools-stack';

/** The `context` block of cdk.json: the feature flags `cdk synth` runs with. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(__dirname, '../../cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return { ...cdkJson.context };
}

/** How {@link newApp} builds the app. */
export interface TestAppOptions {
  /** Really bundle the functions with esbuild (slow); otherwise bundling is skipped. @default false */
  readonly bundle?: boolean;
  /**
   * Run CDK's built-in CloudFormation template validation at synthesis, as `cdk synth`
   * does. Its WebAssembly engine takes seconds to load in every test file, so only
   * the validation test (cdk-nag.test.ts) turns it on. @default false
   */
  readonly cloudFormationValidation?: boolean;
}

/** An App with cdk.json's context; bundling and template validation skipped unless asked for. */
export function newApp(options: TestAppOptions = {}): App {
  const context = cdkJsonContext();
  // An empty list of stacks to bundle makes every NodejsFunction skip esbuild.
  if (!options.bundle) context['aws:cdk:bundling-stacks'] = [];
  return new App({ context, builtinCloudFormationValidation: options.cloudFormationValidation ?? false });
}

/** A fresh platform stack and its template. */
export interface SynthesizedPlatform {
  readonly app: App;
  readonly stack: ExternalToolsStack;
  readonly template: Template;
}

/** Builds and synthesizes a fresh {@link ExternalToolsStack} (`ExternalToolsPlatform`). */
export function synthesizePlatform(
  props: ExternalToolsStackProps = {},
  options: TestAppOptions = {},
): SynthesizedPlatform {
  const app = newApp(options);
  const stack = new ExternalToolsStack(app, 'ExternalToolsPlatform', props);
  return { app, stack, template: Template.fromStack(stack) };
}

/** The logical ID of a construct's CloudFormation resource (its default child when it is an L2). */
export function logicalIdOf(construct: IConstruct): string {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(construct).getLogicalId(element);
}

/** The logical ID of a tool's function. @throws Error when the stack has no function for the tool. */
export function toolFunctionId(stack: ExternalToolsStack, tool: string): string {
  const toolFunction = stack.platform.toolFunctions[tool];
  if (!toolFunction) throw new Error(`The stack has no function for tool ${tool}`);
  return logicalIdOf(toolFunction.lambdaFunction);
}

/** The logical ID of a scenario's state machine. @throws Error when the stack has none for the scenario. */
export function stateMachineId(stack: ExternalToolsStack, scenario: string): string {
  const stateMachine = stack.platform.stateMachines[scenario];
  if (!stateMachine) throw new Error(`The stack has no state machine for scenario ${scenario}`);
  return logicalIdOf(stateMachine);
}

/**
 * A template value as one string: `Fn::Join` joined, `Ref` as `<LogicalId>`,
 * `Fn::GetAtt` as `<LogicalId.Attribute>` (the notation cdk-nag's findings use).
 * Plain strings are returned untouched.
 *
 * @throws Error on any other intrinsic function, so a test never compares a guess.
 */
export function flattenIntrinsics(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const intrinsic = value as Record<string, unknown>;
    if ('Fn::Join' in intrinsic) {
      const [delimiter, parts] = intrinsic['Fn::Join'] as [string, unknown[]];
      return parts.map(flattenIntrinsics).join(delimiter);
    }
    if ('Ref' in intrinsic) return `<${String(intrinsic.Ref)}>`;
    if ('Fn::GetAtt' in intrinsic) {
      const [resource, attribute] = intrinsic['Fn::GetAtt'] as [string, string];
      return `<${resource}.${attribute}>`;
    }
  }
  throw new Error(`Cannot flatten ${JSON.stringify(value)}`);
}

/** One allowed action on one resource (flattened with {@link flattenIntrinsics}). */
export interface Permission {
  readonly action: string;
  readonly resource: string;
}

/** What active tracing adds to every function's role (X-Ray supports no resource-level permissions). */
export const TRACE_WRITES: readonly Permission[] = [
  { action: 'xray:PutTelemetryRecords', resource: '*' },
  { action: 'xray:PutTraceSegments', resource: '*' },
];

type PolicyStatementJson = {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource?: unknown;
  NotResource?: unknown;
};
type PolicyDocument = { Statement: PolicyStatementJson[] };

/** One explicit Deny of a role, with its resources flattened to text. */
export interface Deny {
  readonly sid?: string;
  readonly actions: string[];
  readonly resources?: string[];
  readonly notResources?: string[];
}

/** Permissions sorted by action, then resource: the order {@link rolePermissions} returns. */
export function sortPermissions(permissions: readonly Permission[]): Permission[] {
  return [...permissions].sort(
    (a, b) => a.action.localeCompare(b.action) || a.resource.localeCompare(b.resource),
  );
}

function asArray<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}

/**
 * Every statement of a role: its inline policies, every AWS::IAM::Policy and every
 * AWS::IAM::ManagedPolicy attached to it (CDK moves what passes an inline policy's
 * size limit into `OverflowPolicy` managed policies, as the dispatcher's grows with the tools).
 */
function roleStatements(template: Template, roleLogicalId: string): PolicyStatementJson[] {
  const role = template.toJSON().Resources[roleLogicalId] as {
    Properties: { Policies?: { PolicyDocument: PolicyDocument }[] };
  };
  const documents: PolicyDocument[] = (role.Properties.Policies ?? []).map((p) => p.PolicyDocument);
  const policies = {
    ...template.findResources('AWS::IAM::Policy'),
    ...template.findResources('AWS::IAM::ManagedPolicy'),
  } as Record<string, { Properties: { PolicyDocument: PolicyDocument; Roles?: unknown[] } }>;
  for (const policy of Object.values(policies)) {
    const attached = (policy.Properties.Roles ?? []).some(
      (ref) => (ref as { Ref?: string }).Ref === roleLogicalId,
    );
    if (attached) documents.push(policy.Properties.PolicyDocument);
  }
  return documents.flatMap((document) => document.Statement);
}

/**
 * Every (action, resource) pair a role allows: its inline policies and every
 * AWS::IAM::Policy attached to it, sorted. Deny statements only take away, so
 * this is what the role may do at most; {@link roleDenies} lists them. An Allow
 * with `NotResource` is reported as an error (none is expected).
 */
export function rolePermissions(template: Template, roleLogicalId: string): Permission[] {
  const permissions: Permission[] = [];
  for (const statement of roleStatements(template, roleLogicalId)) {
    if (statement.Effect === 'Deny') continue;
    if (statement.Effect !== 'Allow' || statement.Resource === undefined) {
      throw new Error(`Unexpected ${statement.Effect} statement without Resource`);
    }
    for (const action of asArray(statement.Action)) {
      for (const resource of asArray(statement.Resource)) {
        permissions.push({ action, resource: flattenIntrinsics(resource) });
      }
    }
  }
  return permissions.sort((a, b) => a.action.localeCompare(b.action) || a.resource.localeCompare(b.resource));
}

/** The explicit Deny statements of a role, in order, actions sorted (as CDK writes them), resources flattened to text. */
export function roleDenies(template: Template, roleLogicalId: string): Deny[] {
  return roleStatements(template, roleLogicalId)
    .filter((statement) => statement.Effect === 'Deny')
    .map((statement) => ({
      ...(statement.Sid ? { sid: statement.Sid } : {}),
      actions: [...asArray(statement.Action)].sort(),
      ...(statement.Resource === undefined
        ? {}
        : { resources: asArray(statement.Resource).map((r) => flattenIntrinsics(r)) }),
      ...(statement.NotResource === undefined
        ? {}
        : { notResources: asArray(statement.NotResource).map((r) => flattenIntrinsics(r)) }),
    }));
}

/** The logical ID of the role a resource's `Role` property points at (`Fn::GetAtt [role, Arn]`). */
export function roleOf(template: Template, logicalId: string): string {
  const resource = template.toJSON().Resources[logicalId] as {
    Properties: { Role?: unknown; RoleArn?: unknown };
  };
  const arn = flattenIntrinsics(resource.Properties.Role ?? resource.Properties.RoleArn);
  const match = /^<(.+)\.Arn>$/.exec(arn);
  if (!match?.[1]) throw new Error(`${logicalId} has no role of this stack: ${arn}`);
  return match[1];
}
