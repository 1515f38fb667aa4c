import { Match, type Template } from 'aws-cdk-lib/assertions';
import {
  DEFAULT_RESULT_INLINE_BYTES,
  DEFAULT_RESULT_MAX_BYTES,
  FULL_RESULT_MAX_BYTES,
} from '../../functions/runtime/result-limits';
import { IDEMPOTENCY_SESSION, RUN_DATA_SESSION } from '../../functions/runtime/secrets/vended';
import type { ToolSpec } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';
import { isOrganizationTool } from '../../lib/aws-tool-grants';
import { planCallTools, TOOL_EVENT_MAX_AGE_SECONDS } from '../../lib/callback-grants';
import type { ExternalToolsStack } from '../../lib/external-tools-stack';
import { recordLifetimeSeconds } from '../../lib/scenarios/asl';
import { snapshotAthenaEnvironment, takesAthenaRoute } from '../../lib/snapshot-athena-settings';
import {
  flattenIntrinsics,
  logicalIdOf,
  type Permission,
  roleDenies,
  roleOf,
  rolePermissions,
  sortPermissions,
  synthesizePlatform,
  TRACE_WRITES,
} from '../helpers/cdk';

// Expectations come from the catalog, so a tool registered later is covered without a new test.
// One synthesis for the file: every case reads the same default stack, none changes it
// (a synthesis per case made this the suite's slowest file, 160 s in CI).
const platform = synthesizePlatform();
const functionTools = toolCatalog.functionTools().map((entry) => entry.spec);
const fileTools = toolCatalog.fileToolNames();
const awsTools = functionTools.filter((spec) => spec.tags.includes('aws'));

/** The customer role in any account, as the template spells the ARN (docs/tenant-isolation.md). */
const CUSTOMER_ROLE_ARN = 'arn:<AWS::Partition>:iam::*:role/ExternalToolsPlatformAudit';
/** The organization role in any account: what an organization tool (aws_org_accounts) may assume instead. */
const ORGANIZATION_ROLE_ARN = 'arn:<AWS::Partition>:iam::*:role/ExternalToolsPlatformOrganization';

/** The STS actions a role holds on a role it may assume with session tags and a source identity. */
const ASSUME_WITH_TAGS = ['sts:AssumeRole', 'sts:SetSourceIdentity', 'sts:TagSession'];

/** The actions an `aws` tool may hold: reads, and the credential report IAM needs before GetCredentialReport. */
const READ_ONLY_ACTION = /^[a-z0-9-]+:(?:List|Describe|Get)[A-Za-z0-9]*$|^iam:GenerateCredentialReport$/;

/** CDK's `grantTaskResponse` actions: what answers a task token (lib/callback-grants.ts). */
const TASK_ANSWER_ACTIONS = ['states:SendTaskFailure', 'states:SendTaskHeartbeat', 'states:SendTaskSuccess'];

/**
 * The task-answer grants of a tool's function: on the state machine of each
 * scenario whose plan levels call it (their Tasks wait for its answer), by name.
 */
function taskAnswers(stack: ExternalToolsStack, toolName: string): Permission[] {
  const prefix = stack.platform.dispatcherConfig.toolFunctionNamePrefix;
  return stack.platform.scenarios
    .filter((scenario) => planCallTools(scenario).has(toolName))
    .flatMap((scenario) =>
      TASK_ANSWER_ACTIONS.map((action) => ({
        action,
        resource: `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:${prefix}${scenario.name}`,
      })),
    );
}

/** A spec's ARN as the template spells it: in the stack's partition (lib/iam-statements.ts). */
const inTemplate = (resource: string) => resource.replace(/^arn:aws:/, 'arn:<AWS::Partition>:');

/** The reader role ARN of each secret name, as the template spells it (`<ReaderId.Arn>`). */
function readerArns(stack: ExternalToolsStack): Record<string, string> {
  return Object.fromEntries(
    Object.entries(stack.platform.secretReaders.roles).map(([name, role]) => [
      name,
      `<${logicalIdOf(role)}.Arn>`,
    ]),
  );
}

/** The logical IDs of a tool's function, role, log group and the secret-reference table. */
function toolResources(template: Template, toolName: string) {
  const functions = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: toolName } } },
  });
  const [functionId, ...others] = Object.keys(functions);
  if (!functionId || others.length > 0) throw new Error(`expected one function for ${toolName}`);
  const { LoggingConfig } = (
    functions[functionId] as { Properties: { LoggingConfig: { LogGroup: unknown } } }
  ).Properties;
  const logGroupId = flattenIntrinsics(LoggingConfig.LogGroup).slice(1, -1);
  const tableKeyedBy = (key: string) =>
    Object.keys(
      template.findResources('AWS::DynamoDB::Table', {
        Properties: { KeySchema: Match.arrayWith([{ AttributeName: key, KeyType: 'HASH' }]) },
      }),
    )[0];
  return {
    functionId,
    roleId: roleOf(template, functionId),
    logGroupId,
    tableId: tableKeyedBy('tenant_id'),
    idempotencyTableId: tableKeyedBy('id'),
  };
}

describe.each(functionTools.map((spec): [string, ToolSpec] => [spec.name, spec]))(
  'tool function %s',
  (name, spec) => {
    it("grants exactly the spec's IAM statements plus the documented platform statements", () => {
      // Prepare
      const { stack, template } = platform;
      const { roleId, logGroupId } = toolResources(template, name);
      const organizationTool = isOrganizationTool(spec);
      const expected: Permission[] = [
        // An organization tool's statements are the organization role's, not its function's.
        ...(organizationTool ? [] : spec.iam).flatMap((grant) =>
          grant.actions.flatMap((action) =>
            (grant.resources ?? ['*']).map((resource) => ({ action, resource: inTemplate(resource) })),
          ),
        ),
        // No right on the run workspaces: a workspace tool reaches its files with the vended run-data session.
        { action: 'logs:CreateLogStream', resource: `<${logGroupId}.Arn>` },
        { action: 'logs:PutLogEvents', resource: `<${logGroupId}.Arn>` },
        ...TRACE_WRITES,
        // No right on any reader role: its tenants' rows and secrets are read with vended sessions.
        ...(spec.tags.includes('aws')
          ? ASSUME_WITH_TAGS.map((action) => ({
              action,
              resource: organizationTool ? ORGANIZATION_ROLE_ARN : CUSTOMER_ROLE_ARN,
            }))
          : []),
        // No right on the idempotency table: a write tool reaches its records with the vended records session.
        // A plan level's call is answered by the tool's function: SendTask* on those state machines only.
        ...taskAnswers(stack, name),
      ];

      // Act
      const permissions = rolePermissions(template, roleId);

      // Assess
      expect(permissions).toEqual(sortPermissions(expected));
    });

    it("carries the spec's explicit Deny and the run workspaces' own, the workspace never excepted", () => {
      // Prepare
      const { stack, template } = platform;
      const { roleId } = toolResources(template, name);

      // Act
      const denies = roleDenies(template, roleId);

      // Assess: the spec's, then neither listing nor objects of the run workspaces
      const bucket = `<${logicalIdOf(stack.platform.runWorkspace.bucket)}.Arn>`;
      expect(denies).toEqual([
        ...(spec.iamDeny ?? []).map((deny) => ({
          sid: deny.sid,
          actions: [...deny.actions].sort(),
          ...(deny.notResources
            ? { notResources: deny.notResources.map(inTemplate) }
            : { resources: (deny.resources ?? ['*']).map(inTemplate) }),
        })),
        {
          sid: 'DenyWorkspaceListing',
          actions: ['s3:ListBucket', 's3:ListBucketMultipartUploads', 's3:ListBucketVersions'],
          resources: [bucket],
        },
        {
          sid: 'DenyWorkspaceObjects',
          actions: ['s3:DeleteObject', 's3:GetObject', 's3:GetObjectVersion', 's3:PutObject'],
          resources: [`${bucket}/*`],
        },
      ]);
    });

    it('has its own role under the tool path, assumed by Lambda only, with no managed policy', () => {
      // Prepare
      const { template } = platform;
      const { roleId } = toolResources(template, name);

      // Act
      const role = template.toJSON().Resources[roleId].Properties;

      // Assess
      expect(role.Path).toBe(spec.tags.includes('aws') ? '/etp-tools/aws/' : '/etp-tools/');
      expect(role.ManagedPolicyArns).toBeUndefined();
      expect(role.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
      const sharers = Object.keys(template.findResources('AWS::Lambda::Function')).filter(
        (functionId) => roleOf(template, functionId) === roleId,
      );
      expect(sharers).toHaveLength(1);
    });

    it('is sized from the spec and gets the table, vended sessions, its service name and the result bound', () => {
      // Prepare
      const { stack, template } = platform;
      const { functionId, tableId, idempotencyTableId } = toolResources(template, name);
      const workspaceBucket = logicalIdOf(stack.platform.runWorkspace.bucket);

      // Act
      const fn = template.toJSON().Resources[functionId].Properties;

      // Assess
      expect(fn).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: spec.runtime?.memorySizeMb ?? 256,
        Timeout: spec.runtime?.timeoutSeconds ?? 60,
      });
      const variables = fn.Environment.Variables;
      expect(variables).toEqual({
        // Only the tool's own Node options: the platform adds none (stacks are mapped by the injected module).
        ...(spec.runtime?.nodeOptions ? { NODE_OPTIONS: spec.runtime.nodeOptions } : {}),
        SECRET_REFS_TABLE: { Ref: tableId },
        POWERTOOLS_SERVICE_NAME: name,
        RESULT_MAX_BYTES: String(DEFAULT_RESULT_MAX_BYTES),
        ...(spec.sideEffects === 'write'
          ? {
              IDEMPOTENCY_TABLE: { Ref: idempotencyTableId },
              // Records outlive the longest run and its redrive window (test/infra/record-lifetime.test.ts).
              IDEMPOTENCY_RECORD_SECONDS: String(recordLifetimeSeconds(stack.platform.scenarios)),
            }
          : {}),
        // Every tool function claim-checks a plan call's result itself, in the run workspaces, within the inline budget.
        RUN_BUCKET: { Ref: workspaceBucket },
        RESULT_INLINE_BYTES: String(Math.min(DEFAULT_RESULT_INLINE_BYTES, stack.platform.inlineResultBytes)),
        // Whole results up to 1 MiB: the dispatcher claim-checks what exceeds the inline budget.
        TOOL_RESULT_MAX_BYTES: String(FULL_RESULT_MAX_BYTES),
        ...(spec.tags.includes('aws')
          ? isOrganizationTool(spec)
            ? { ORGANIZATION_ROLE_NAME: 'ExternalToolsPlatformOrganization' }
            : { CUSTOMER_ROLE_NAME: 'ExternalToolsPlatformAudit' }
          : {}),
        // No reader role: a tool that lists secrets reads them with the sessions the dispatcher vends
        // (a write tool its exactly-once records, a workspace tool its files, with vended sessions too).
        ...(spec.requiresSecrets.length > 0 || spec.sideEffects === 'write' || spec.workspaceAccess
          ? { SECRET_SESSIONS: 'vended' }
          : {}),
        // The snapshot tools' Athena route settings, on the tools that declare the route (defaults here).
        ...(takesAthenaRoute(spec) ? snapshotAthenaEnvironment() : {}),
      });
    });
  },
);

describe.each(awsTools.map((spec): [string, ToolSpec] => [spec.name, spec]))('aws tool %s', (name, spec) => {
  it('holds read-only actions only, besides its log group, its platform records, assuming the customer role and its declared decisions', () => {
    // Prepare
    const { stack, template } = platform;
    const { roleId, logGroupId, idempotencyTableId } = toolResources(template, name);
    const ownLogWrites = new Set(['logs:CreateLogStream', 'logs:PutLogEvents']);
    const traceWrites = new Set(TRACE_WRITES.map((permission) => permission.action));
    // The customer role only (an organization tool: the organization role only): no tool may assume a tenant-secrets reader.
    const assumable = new Set([isOrganizationTool(spec) ? ORGANIZATION_ROLE_ARN : CUSTOMER_ROLE_ARN]);
    // The platform's own account: a `write` tool's exactly-once records.
    const platformRecords = new Set([
      `<${idempotencyTableId}.Arn>`,
      // Its plan calls' answers: the scenarios' state machines (taskAnswers).
      ...taskAnswers(stack, name).map((permission) => permission.resource),
    ]);

    // Act
    const others = rolePermissions(template, roleId).filter(
      ({ action, resource }) =>
        !(ownLogWrites.has(action) && resource === `<${logGroupId}.Arn>`) &&
        !traceWrites.has(action) &&
        !platformRecords.has(resource),
    );
    // A spec's non-read grant with its reason written down (IamGrant.wildcardReason: the Athena route's query
    // and table calls) is a decision, held on exactly its declared resources.
    const declared = spec.iam.filter((grant) => grant.wildcardReason);
    const isDeclared = ({ action, resource }: { action: string; resource: string }) =>
      declared.some(
        (grant) =>
          grant.actions.includes(action) &&
          (grant.resources ?? ['*']).some((r) => r.replace('arn:aws:', 'arn:<AWS::Partition>:') === resource),
      );
    const writes = others.filter(({ action }) => !READ_ONLY_ACTION.test(action));
    const declaredWrites = writes.filter(isDeclared);
    expect(new Set(declaredWrites.map(({ action }) => action))).toEqual(
      new Set(declared.flatMap((grant) => grant.actions.filter((a) => !READ_ONLY_ACTION.test(a)))),
    );

    // Assess: the only other non-read actions are the three STS actions, on those roles only.
    expect(others.length).toBeGreaterThan(0);
    expect(writes.length).toBeGreaterThan(0);
    for (const { action, resource } of writes.filter((w) => !isDeclared(w))) {
      expect(ASSUME_WITH_TAGS).toContain(action);
      expect(assumable.has(resource)).toBe(true);
    }
    expect(writes.filter(({ resource }) => assumable.has(resource)).map(({ action }) => action)).toEqual(
      ASSUME_WITH_TAGS,
    );
  });
});

describe('plan calls answered by their tools (one function per in-flight call)', () => {
  it('never retries a tool function asynchronously, and drops an event older than 60 s', () => {
    // Prepare
    const { template } = platform;

    // Act
    const configs = Object.values(template.findResources('AWS::Lambda::EventInvokeConfig')).map(
      (resource) => resource.Properties,
    );

    // Assess: one per function tool, each its own function's.
    const functionIds = functionTools.map((spec) => toolResources(template, spec.name).functionId).sort();
    expect(configs.map((config) => config.FunctionName.Ref).sort()).toEqual(functionIds);
    for (const config of configs) {
      expect(config).toMatchObject({
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: TOOL_EVENT_MAX_AGE_SECONDS,
        Qualifier: '$LATEST',
      });
    }
  });

  it('lets the dispatcher answer the plan scenarios\' tokens on their state machines, and nothing on "*"', () => {
    // Prepare
    const { stack, template } = platform;
    const prefix = stack.platform.dispatcherConfig.toolFunctionNamePrefix;
    const planScenarios = stack.platform.scenarios.filter((scenario) => planCallTools(scenario).size > 0);

    // Act
    const answers = rolePermissions(template, logicalIdOf(stack.platform.dispatcher.role)).filter(
      ({ action }) => TASK_ANSWER_ACTIONS.includes(action),
    );

    // Assess
    expect(planScenarios.length).toBeGreaterThan(0);
    expect(answers).toEqual(
      sortPermissions(
        planScenarios.flatMap((scenario) =>
          TASK_ANSWER_ACTIONS.map((action) => ({
            action,
            resource: `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:${prefix}${scenario.name}`,
          })),
        ),
      ),
    );
  });

  it('gives a tool that no plan level calls no task answer at all', () => {
    // Prepare
    const { stack, template } = platform;
    const unplanned = functionTools.filter((spec) => taskAnswers(stack, spec.name).length === 0);

    // Assess: some tools are only ever called by agents or entry points.
    expect(unplanned.length).toBeGreaterThan(0);
    for (const spec of unplanned) {
      const { roleId } = toolResources(template, spec.name);
      expect(rolePermissions(template, roleId).filter(({ action }) => action.startsWith('states:'))).toEqual(
        [],
      );
    }
  });
});

describe('the dispatcher, the vendor of tenant sessions', () => {
  it('may assume every reader role, the records role and the run-data role, and gets their ARNs', () => {
    // Prepare
    const { stack, template } = platform;
    const dispatcherId = logicalIdOf(stack.platform.dispatcher.lambdaFunction);
    const readers = {
      ...readerArns(stack),
      [IDEMPOTENCY_SESSION]: `<${logicalIdOf(stack.platform.idempotencyRecords.role)}.Arn>`,
      [RUN_DATA_SESSION]: `<${logicalIdOf(stack.platform.runData.role)}.Arn>`,
    };

    // Act
    const assumed = rolePermissions(template, roleOf(template, dispatcherId)).filter(({ action }) =>
      action.startsWith('sts:'),
    );
    const variables = template.toJSON().Resources[dispatcherId].Properties.Environment.Variables;

    // Assess
    const runData = `<${logicalIdOf(stack.platform.runData.role)}.Arn>`;
    expect(assumed).toEqual(
      sortPermissions(
        Object.values(readers).flatMap((resource) =>
          ASSUME_WITH_TAGS.map((action) => ({ action, resource })),
        ),
      ),
    );
    expect(JSON.parse(flattenIntrinsics(variables.SECRET_READER_ROLES))).toEqual(readers);
    expect(flattenIntrinsics(variables.RUN_DATA_ROLE)).toBe(runData);
  });
});

describe('file tools, run by the dispatcher', () => {
  it.each(fileTools)('%s gets no function of its own', (name) => {
    // Prepare
    const { template } = platform;

    // Act
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: name } } },
    });

    // Assess
    expect(functions).toEqual({});
    // The tools', the dispatcher and the scenario engine.
    template.resourceCountIs('AWS::Lambda::Function', functionTools.length + 2);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: { POWERTOOLS_SERVICE_NAME: 'dispatcher', RESULT_MAX_BYTES: Match.anyValue() },
      },
    });
  });
});
