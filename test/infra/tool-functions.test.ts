import { Match, type Template } from 'aws-cdk-lib/assertions';
import { DEFAULT_RESULT_MAX_BYTES, FULL_RESULT_MAX_BYTES } from '../../functions/runtime/result-limits';
import { IDEMPOTENCY_SESSION } from '../../functions/runtime/secrets/vended';
import type { ToolSpec } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';
import type { ExternalToolsStack } from '../../lib/external-tools-stack';
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
const functionTools = toolCatalog.functionTools().map((entry) => entry.spec);
const fileTools = toolCatalog.fileToolNames();
const awsTools = functionTools.filter((spec) => spec.tags.includes('aws'));

/** The customer role in any account, as the template spells the ARN (docs/tenant-isolation.md). */
const CUSTOMER_ROLE_ARN = 'arn:<AWS::Partition>:iam::*:role/ExternalToolsPlatformAudit';

/** The STS actions a role holds on a role it may assume with session tags and a source identity. */
const ASSUME_WITH_TAGS = ['sts:AssumeRole', 'sts:SetSourceIdentity', 'sts:TagSession'];

/** The actions an `aws` tool may hold: reads, and the credential report IAM needs before GetCredentialReport. */
const READ_ONLY_ACTION = /^[a-z0-9-]+:(?:List|Describe|Get)[A-Za-z0-9]*$|^iam:GenerateCredentialReport$/;

/** A spec's ARN as the template spells it: in the stack's partition (lib/iam-statements.ts). */
const inTemplate = (resource: string) => resource.replace(/^arn:aws:/, 'arn:<AWS::Partition>:');

/** The files `paths` of every run workspace (`runs/*\/<path>`, `scratch/*\/<path>`), as the template spells the ARNs. */
function workspaceObjects(stack: ExternalToolsStack, paths: readonly string[]): string[] {
  const bucket = logicalIdOf(stack.platform.runWorkspace.bucket);
  return ['runs', 'scratch'].flatMap((prefix) => paths.map((file) => `<${bucket}.Arn>/${prefix}/*/${file}`));
}

/** The actions a spec's `workspaceAccess` grants on the run workspaces' objects. */
const WORKSPACE_ACTIONS = { read: ['s3:GetObject'], read_write: ['s3:GetObject', 's3:PutObject'] } as const;

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
      const { stack, template } = synthesizePlatform();
      const { roleId, logGroupId } = toolResources(template, name);
      const expected: Permission[] = [
        ...spec.iam.flatMap((grant) =>
          grant.actions.flatMap((action) =>
            (grant.resources ?? ['*']).map((resource) => ({ action, resource: inTemplate(resource) })),
          ),
        ),
        // A tool that keeps a run's derived data (snapshot findings) reads or writes the run workspaces' objects.
        ...(spec.workspaceAccess
          ? WORKSPACE_ACTIONS[spec.workspaceAccess.access].flatMap((action) =>
              workspaceObjects(stack, spec.workspaceAccess?.paths ?? []).map((resource) => ({
                action,
                resource,
              })),
            )
          : []),
        // ...and may list exactly those files (RunWorkspaceBucket.limitListing), to tell a missing one from a refused one.
        ...(spec.workspaceAccess
          ? [
              {
                action: 's3:ListBucket',
                resource: `<${logicalIdOf(stack.platform.runWorkspace.bucket)}.Arn>`,
              },
            ]
          : []),
        { action: 'logs:CreateLogStream', resource: `<${logGroupId}.Arn>` },
        { action: 'logs:PutLogEvents', resource: `<${logGroupId}.Arn>` },
        ...TRACE_WRITES,
        // No right on any reader role: its tenants' rows and secrets are read with vended sessions.
        ...(spec.tags.includes('aws')
          ? ASSUME_WITH_TAGS.map((action) => ({ action, resource: CUSTOMER_ROLE_ARN }))
          : []),
        // No right on the idempotency table: a write tool reaches its records with the vended records session.
      ];

      // Act
      const permissions = rolePermissions(template, roleId);

      // Assess
      expect(permissions).toEqual(sortPermissions(expected));
    });

    it("carries the spec's explicit Deny, the run workspace excepted where the tool keeps data", () => {
      // Prepare
      const { stack, template } = synthesizePlatform();
      const { roleId } = toolResources(template, name);
      const excepted = spec.workspaceAccess ? workspaceObjects(stack, spec.workspaceAccess.paths) : [];

      // Act
      const denies = roleDenies(template, roleId);

      // Assess: the spec's, then no listing of the run workspaces (but the tool's own files: the condition)
      const bucket = `<${logicalIdOf(stack.platform.runWorkspace.bucket)}.Arn>`;
      expect(denies).toEqual([
        ...(spec.iamDeny ?? []).map((deny) => ({
          sid: deny.sid,
          actions: [...deny.actions].sort(),
          ...(deny.notResources
            ? { notResources: [...deny.notResources.map(inTemplate), ...excepted] }
            : { resources: (deny.resources ?? ['*']).map(inTemplate) }),
        })),
        { sid: 'DenyWorkspaceListingBeyondOwnFiles', actions: ['s3:ListBucket'], resources: [bucket] },
        {
          sid: 'DenyWorkspaceVersionAndUploadListing',
          actions: ['s3:ListBucketMultipartUploads', 's3:ListBucketVersions'],
          resources: [bucket],
        },
      ]);
    });

    it('has its own role under the tool path, assumed by Lambda only, with no managed policy', () => {
      // Prepare
      const { template } = synthesizePlatform();
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
      const { stack, template } = synthesizePlatform();
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
        NODE_OPTIONS: ['--enable-source-maps', spec.runtime?.nodeOptions].filter(Boolean).join(' '),
        SECRET_REFS_TABLE: { Ref: tableId },
        POWERTOOLS_SERVICE_NAME: name,
        RESULT_MAX_BYTES: String(DEFAULT_RESULT_MAX_BYTES),
        ...(spec.sideEffects === 'write' ? { IDEMPOTENCY_TABLE: { Ref: idempotencyTableId } } : {}),
        ...(spec.workspaceAccess ? { RUN_BUCKET: { Ref: workspaceBucket } } : {}),
        // Whole results up to 1 MiB: the dispatcher claim-checks what exceeds the inline budget.
        TOOL_RESULT_MAX_BYTES: String(FULL_RESULT_MAX_BYTES),
        ...(spec.tags.includes('aws') ? { CUSTOMER_ROLE_NAME: 'ExternalToolsPlatformAudit' } : {}),
        // No reader role: a tool that lists secrets reads them with the sessions the dispatcher vends.
        // (and a write tool its exactly-once records with the vended records session).
        ...(spec.requiresSecrets.length > 0 || spec.sideEffects === 'write'
          ? { SECRET_SESSIONS: 'vended' }
          : {}),
      });
    });
  },
);

describe.each(awsTools.map((spec): [string, ToolSpec] => [spec.name, spec]))('aws tool %s', (name, spec) => {
  it('holds read-only actions only, besides its log group, its platform records, assuming the customer role and its declared decisions', () => {
    // Prepare
    const { stack, template } = synthesizePlatform();
    const { roleId, logGroupId, idempotencyTableId } = toolResources(template, name);
    const ownLogWrites = new Set(['logs:CreateLogStream', 'logs:PutLogEvents']);
    const traceWrites = new Set(TRACE_WRITES.map((permission) => permission.action));
    // The customer role only: no tool may assume a tenant-secrets reader.
    const assumable = new Set([CUSTOMER_ROLE_ARN]);
    // The platform's own account: a `write` tool's exactly-once records and the run workspace it keeps findings in.
    const platformRecords = new Set([
      `<${idempotencyTableId}.Arn>`,
      ...workspaceObjects(stack, spec.workspaceAccess?.paths ?? []),
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
    expect(
      writes.filter(({ resource }) => resource === CUSTOMER_ROLE_ARN).map(({ action }) => action),
    ).toEqual(ASSUME_WITH_TAGS);
  });
});

describe('the dispatcher, the vendor of tenant sessions', () => {
  it('may assume every reader role, the records role and the run-data role, and gets their ARNs', () => {
    // Prepare
    const { stack, template } = synthesizePlatform();
    const dispatcherId = logicalIdOf(stack.platform.dispatcher.lambdaFunction);
    const readers = {
      ...readerArns(stack),
      [IDEMPOTENCY_SESSION]: `<${logicalIdOf(stack.platform.idempotencyRecords.role)}.Arn>`,
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
        [...Object.values(readers), runData].flatMap((resource) =>
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
    const { template } = synthesizePlatform();

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
