/**
 * The synthesized IAM policies, evaluated by an IAM policy simulator
 * (@cloud-copilot/iam-simulate): a template's intrinsics resolved to concrete
 * ARNs of one account and region, each role's identity and trust policies read
 * as deployed, and requests simulated against them.
 */
import * as path from 'node:path';
import { loadPolicy } from '@cloud-copilot/iam-policy';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { Template } from 'aws-cdk-lib/assertions';

/** The account and region templates are resolved in. */
export interface Deployment {
  readonly account: string;
  readonly region: string;
  /** Values of the template's parameters. @default {} */
  readonly parameters?: Readonly<Record<string, string>>;
}

/** A template resolved for one deployment. */
export interface ResolvedTemplate {
  readonly deployment: Deployment;
  /** Each resource's ARN by logical id (roles, tables, functions). */
  readonly arns: Readonly<Record<string, string>>;
  /** The resolved template. */
  readonly resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
}

type Json = unknown;

function arnOf(
  type: string,
  id: string,
  properties: Record<string, unknown>,
  deployment: Deployment,
): string | undefined {
  const { account, region } = deployment;
  switch (type) {
    case 'AWS::IAM::Role': {
      const path = typeof properties.Path === 'string' ? properties.Path : '/';
      const name = typeof properties.RoleName === 'string' ? properties.RoleName : id;
      return `arn:aws:iam::${account}:role${path}${name}`;
    }
    case 'AWS::DynamoDB::Table':
      return `arn:aws:dynamodb:${region}:${account}:table/${id}`;
    case 'AWS::Lambda::Function':
      return `arn:aws:lambda:${region}:${account}:function:${id}`;
    case 'AWS::Logs::LogGroup':
      return `arn:aws:logs:${region}:${account}:log-group:${id}:*`;
    case 'AWS::StepFunctions::StateMachine':
      return `arn:aws:states:${region}:${account}:stateMachine:${id}`;
    case 'AWS::S3::Bucket':
      return `arn:aws:s3:::${id.toLowerCase()}`;
    case 'AWS::Events::EventBus':
      return `arn:aws:events:${region}:${account}:event-bus/${typeof properties.Name === 'string' ? properties.Name : id}`;
    case 'AWS::KMS::Key':
      return `arn:aws:kms:${region}:${account}:key/${id}`;
    case 'AWS::Scheduler::Schedule':
      return `arn:aws:scheduler:${region}:${account}:schedule/default/${id}`;
    default:
      return undefined;
  }
}

function resolve(
  value: Json,
  template: Record<string, Json>,
  arns: Record<string, string>,
  d: Deployment,
): Json {
  if (Array.isArray(value)) return value.map((item) => resolve(item, template, arns, d));
  if (value === null || typeof value !== 'object') return value;
  const node = value as Record<string, Json>;
  if ('Ref' in node) {
    const ref = node.Ref as string;
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::AccountId': d.account,
      'AWS::Region': d.region,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    if (pseudo[ref]) return pseudo[ref];
    if (d.parameters && Object.hasOwn(d.parameters, ref)) return d.parameters[ref];
    // A state machine's Ref is its ARN (CloudFormation, "AWS::StepFunctions::StateMachine", return values).
    if (arns[ref]?.includes(':stateMachine:')) return arns[ref];
    if (arns[ref]) return ref; // another resource's Ref: its name, here its logical id
    throw new Error(`Cannot resolve Ref ${ref}`);
  }
  if ('Fn::GetAtt' in node) {
    const [id, attribute] = node['Fn::GetAtt'] as [string, string];
    if (attribute === 'Arn' && arns[id]) return arns[id];
    // A state machine's Name: the last part of its ARN.
    if (attribute === 'Name' && arns[id]?.includes(':stateMachine:')) return arns[id].split(':').pop();
    throw new Error(`Cannot resolve Fn::GetAtt ${id}.${attribute}`);
  }
  if ('Fn::Join' in node) {
    const [delimiter, parts] = node['Fn::Join'] as [string, Json[]];
    return parts.map((part) => resolve(part, template, arns, d)).join(delimiter);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v, template, arns, d)]));
}

/** The resources whose policies are resolved: roles, their policies, KMS keys (their key policies). */
const RESOLVED_TYPES: ReadonlySet<string> = new Set(['AWS::IAM::Role', 'AWS::IAM::Policy', 'AWS::KMS::Key']);

/** Resolves every intrinsic of `template` for `deployment`. @throws Error on an intrinsic it cannot resolve. */
export function resolveTemplate(template: Template, deployment: Deployment): ResolvedTemplate {
  const raw = template.toJSON() as {
    Resources: Record<string, { Type: string; Properties?: Record<string, Json> }>;
  };
  const arns: Record<string, string> = {};
  for (const [id, resource] of Object.entries(raw.Resources)) {
    const properties = (resource.Properties ?? {}) as Record<string, unknown>;
    const literal = Object.fromEntries(Object.entries(properties).filter(([, v]) => typeof v === 'string'));
    const arn = arnOf(resource.Type, id, literal, deployment);
    if (arn) arns[id] = arn;
  }
  const resources: ResolvedTemplate['resources'] = {};
  for (const [id, resource] of Object.entries(raw.Resources)) {
    if (!RESOLVED_TYPES.has(resource.Type)) continue;
    resources[id] = {
      Type: resource.Type,
      Properties: resolve(resource.Properties ?? {}, raw.Resources, arns, deployment) as Record<
        string,
        unknown
      >,
    };
  }
  return { deployment, arns, resources };
}

/** A named policy document. */
export interface NamedPolicy {
  readonly name: string;
  readonly policy: Json;
}

/** The identity policies of a role: inline and every AWS::IAM::Policy attached to it. */
export function identityPoliciesOf(resolved: ResolvedTemplate, roleId: string): NamedPolicy[] {
  const role = resolved.resources[roleId];
  if (role?.Type !== 'AWS::IAM::Role') throw new Error(`${roleId} is not a role of the template`);
  const inline = ((role.Properties.Policies ?? []) as { PolicyName: string; PolicyDocument: Json }[]).map(
    (p) => ({ name: p.PolicyName, policy: p.PolicyDocument }),
  );
  const attached = Object.entries(resolved.resources)
    .filter(
      ([, resource]) =>
        resource.Type === 'AWS::IAM::Policy' &&
        ((resource.Properties.Roles ?? []) as unknown[]).includes(roleId),
    )
    .map(([id, resource]) => ({ name: id, policy: resource.Properties.PolicyDocument }));
  return [...inline, ...attached];
}

/** The trust policy of a role. */
export function trustPolicyOf(resolved: ResolvedTemplate, roleId: string): Json {
  const role = resolved.resources[roleId];
  if (!role) throw new Error(`${roleId} is not a role of the template`);
  return role.Properties.AssumeRolePolicyDocument;
}

/** The ARN of a resource of the template. */
export function arnIn(resolved: ResolvedTemplate, logicalId: string): string {
  const arn = resolved.arns[logicalId];
  if (!arn) throw new Error(`No ARN for ${logicalId}`);
  return arn;
}

/** The ARN of a session of a role (`arn:aws:sts::<account>:assumed-role/<name>/<session>`). */
export function sessionOf(roleArn: string, session: string): string {
  const [, , , , account, resource] = roleArn.split(':');
  const name = (resource ?? '').split('/').pop();
  return `arn:aws:sts::${account}:assumed-role/${name}/${session}`;
}

/** One request to simulate. */
export interface SimulatedRequest {
  /** The caller: a role session ARN (see {@link sessionOf}). */
  readonly principal: string;
  /** The caller's identity policies. */
  readonly identityPolicies: readonly NamedPolicy[];
  readonly action: string;
  readonly resource: string;
  /** The account owning the resource. */
  readonly resourceAccount: string;
  /** The resource's policy (a role's trust policy for sts actions). */
  readonly resourcePolicy?: Json;
  /** The session policy the caller's session was opened with (STS AssumeRole `Policy`). @default none */
  readonly sessionPolicy?: Json;
  readonly context?: Readonly<Record<string, string | string[]>>;
  /**
   * Evaluate `context` as given, unvalidated: the simulator's checked path keeps
   * only the context keys it knows for the action, and it recognizes variable
   * keys only after a `/` (`aws:PrincipalTag/<tag>`), so it drops KMS's
   * `kms:EncryptionContext:<key>`. Values must then be spelled as IAM compares
   * them (a string, or an array for multivalued keys). @default false
   */
  readonly unvalidatedContext?: boolean;
}

/** The simulator's decision: `Allowed`, `ImplicitlyDenied` or `ExplicitlyDenied`. @throws Error on a simulation error. */
export async function decide(request: SimulatedRequest): Promise<string> {
  if (request.unvalidatedContext) return decideOnCoreEngine(request);
  const result = await runSimulation(
    {
      request: {
        principal: request.principal,
        action: request.action,
        resource: { resource: request.resource, accountId: request.resourceAccount },
        contextVariables: { ...request.context },
      },
      identityPolicies: [...request.identityPolicies],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy: request.resourcePolicy,
      ...(request.sessionPolicy === undefined ? {} : { sessionPolicy: request.sessionPolicy }),
    },
    {},
  );
  if (result.resultType === 'error') throw new Error(`Simulation error: ${JSON.stringify(result.errors)}`);
  return result.overallResult;
}

/**
 * The simulator's core engine, which both of its entry points wrap: the checked
 * entry (`runSimulation`) drops `kms:EncryptionContext:<key>` (it matches
 * variable keys only after a `/`), and the unchecked one (`runUnsafeSimulation`,
 * 0.1.173) fails on any resource policy (it loads the policy without a name).
 * The package exports neither module, hence the paths from its entry file.
 */
function decideOnCoreEngine(request: SimulatedRequest): string {
  const dist = path.dirname(require.resolve('@cloud-copilot/iam-simulate'));
  const load = <T>(module: string): T => require(path.join(dist, module)) as T;
  const { authorize } = load<{ authorize: (input: unknown) => { result: string } }>(
    'core_engine/CoreSimulatorEngine.js',
  );
  const { AwsRequestImpl } = load<{ AwsRequestImpl: new (...args: unknown[]) => unknown }>(
    'request/request.js',
  );
  const { RequestContextImpl } = load<{ RequestContextImpl: new (values: unknown) => unknown }>(
    'requestContext.js',
  );
  const { DiscoveryContextKeyConstraints } = load<{
    DiscoveryContextKeyConstraints: new (constraints: unknown[]) => unknown;
  }>('context_keys/discoveryContextKeyConstraints.js');
  return authorize({
    request: new AwsRequestImpl(
      request.principal,
      { resource: request.resource, accountId: request.resourceAccount },
      request.action,
      new RequestContextImpl({ ...request.context }),
      false,
    ),
    sessionPolicy: undefined,
    identityPolicies: request.identityPolicies.map((p) => loadPolicy(p.policy as never, { name: p.name })),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    resourcePolicy:
      request.resourcePolicy === undefined
        ? undefined
        : loadPolicy(request.resourcePolicy as never, { name: 'resource policy' }),
    permissionBoundaries: undefined,
    vpcEndpointPolicies: undefined,
    simulationParameters: {
      simulationMode: 'Strict',
      discoveryContextKeyConstraints: new DiscoveryContextKeyConstraints([]),
    },
    serviceSettings: { s3: {} },
  }).result;
}
