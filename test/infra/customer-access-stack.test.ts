import { FileAssetPackaging } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { z } from 'zod/mini';
import { functionTool, ToolCatalog } from '../../functions/runtime/catalog';
import { defineToolSpec } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';
import { isOrganizationTool } from '../../lib/aws-tool-grants';
import { CustomerAccessStack } from '../../lib/customer-access-stack';
import {
  logicalIdOf,
  newApp,
  type Permission,
  roleDenies,
  rolePermissions,
  sortPermissions,
} from '../helpers/cdk';

/** The customer stack synthesized from `catalog`. */
function synthesizeCustomer(catalog: ToolCatalog = toolCatalog) {
  const stack = new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess', { catalog });
  const template = Template.fromStack(stack);
  return { stack, template, roleId: logicalIdOf(stack.auditRole) };
}

/** Every (action, resource) the catalog's AWS tools declare, computed here from the specs. */
function declaredByAwsTools(catalog: ToolCatalog): Permission[] {
  const pairs = new Set<string>();
  for (const { spec } of catalog.functionTools()) {
    // An organization tool's statements are the organization role's (lib/aws-tool-grants.ts).
    if (!spec.tags.includes('aws') || isOrganizationTool(spec)) continue;
    for (const grant of spec.iam) {
      for (const action of grant.actions) {
        for (const resource of grant.resources ?? ['*']) {
          // Spec ARNs are written in the stack's partition (lib/iam-statements.ts).
          pairs.add(
            JSON.stringify({ action, resource: resource.replace(/^arn:aws:/, 'arn:<AWS::Partition>:') }),
          );
        }
      }
    }
  }
  return sortPermissions([...pairs].map((pair) => JSON.parse(pair) as Permission));
}

describe('CustomerAccessStack', () => {
  it('allows exactly the union of the AWS tools’ declared statements', () => {
    // Prepare
    const { template, roleId } = synthesizeCustomer();

    // Act
    const permissions = rolePermissions(template, roleId);

    // Assess
    expect(permissions).toEqual(declaredByAwsTools(toolCatalog));
    expect(permissions.length).toBeGreaterThan(20);
    expect(permissions.some(({ action }) => action.startsWith('slack') || action.startsWith('sts:'))).toBe(
      false,
    );
  });

  it('carries the AWS tools’ explicit Deny once: no snapshot block or object content, whatever is granted later', () => {
    // Prepare
    const { template, roleId } = synthesizeCustomer();

    // Act
    const denies = roleDenies(template, roleId);

    // Assess
    expect(denies).toEqual([
      { sid: 'DenySnapshotBlockContent', actions: ['ebs:GetSnapshotBlock'], resources: ['*'] },
      {
        sid: 'DenyObjectContentOutsideInventories',
        actions: ['s3:GetObject', 's3:GetObjectTorrent', 's3:GetObjectVersion'],
        notResources: [
          'arn:<AWS::Partition>:s3:::*/????-??-??T??-??Z/manifest.json',
          'arn:<AWS::Partition>:s3:::*/data/????????-????-????-????-????????????.csv.gz',
          'arn:<AWS::Partition>:s3:::*/data/????????-????-????-????-????????????.parquet',
          // The Athena route: each report's list of data files, which Athena reads as the caller.
          'arn:<AWS::Partition>:s3:::*/hive/dt=????-??-??-??-??/symlink.txt',
          // ORC reports' data files, which only Athena reads (as the caller).
          'arn:<AWS::Partition>:s3:::*/data/????????-????-????-????-????????????.orc',
        ],
      },
    ]);
  });

  it('follows the catalog: a new AWS tool’s action reaches the role, a tool without the aws tag never does', () => {
    // Prepare
    const probe = (name: string, tags: string[], action: string) =>
      functionTool(
        defineToolSpec({
          name,
          description: 'probe',
          inputSchema: () => z.strictObject({}),
          tags,
          requiresSecrets: [],
          sideEffects: 'none',
          iam: [{ actions: [action] }],
        }),
        'aws/probe',
      );
    const catalog = new ToolCatalog([
      probe('aws_probe', ['aws'], 'elasticloadbalancing:DescribeLoadBalancers'),
      probe('other_probe', ['other'], 'sqs:ListQueues'),
    ]);

    const { template, roleId } = synthesizeCustomer(catalog);

    // Act
    const permissions = rolePermissions(template, roleId);

    // Assess
    expect(permissions).toEqual([{ action: 'elasticloadbalancing:DescribeLoadBalancers', resource: '*' }]);
  });

  it('is the role name the platform assumes, for one hour at most, with no managed policy', () => {
    // Prepare
    const { template, roleId } = synthesizeCustomer();

    // Act
    const role = template.toJSON().Resources[roleId].Properties;

    // Assess
    expect(role).toMatchObject({ RoleName: 'ExternalToolsPlatformAudit', MaxSessionDuration: 3600 });
    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.Path).toBeUndefined();
  });

  it('trusts the platform account’s AWS tool roles only, with the ExternalId, the tenant and a source identity', () => {
    // Prepare
    const { template, roleId } = synthesizeCustomer();
    const toolRoles = {
      'Fn::Join': [
        '',
        ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'PlatformAccountId' }, ':role/etp-tools/aws/*'],
      ],
    };
    const platform = {
      AWS: {
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'PlatformAccountId' }, ':root'],
        ],
      },
    };

    // Act
    const trust = template.toJSON().Resources[roleId].Properties.AssumeRolePolicyDocument.Statement;

    // Assess
    expect(trust).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: platform,
        Condition: {
          ArnLike: { 'aws:PrincipalArn': toolRoles },
          StringEquals: {
            'sts:ExternalId': { Ref: 'ExternalId' },
            'aws:RequestTag/etp-tenant': { Ref: 'TenantId' },
          },
          StringLike: { 'sts:SourceIdentity': 'etp.*' },
        },
      },
      {
        Action: 'sts:TagSession',
        Effect: 'Allow',
        Principal: platform,
        Condition: {
          ArnLike: { 'aws:PrincipalArn': toolRoles },
          StringEquals: { 'aws:RequestTag/etp-tenant': { Ref: 'TenantId' } },
          'ForAllValues:StringEquals': {
            'aws:TagKeys': ['etp-tenant', 'etp-scenario', 'etp-run', 'etp-account'],
          },
        },
      },
      {
        Action: 'sts:SetSourceIdentity',
        Effect: 'Allow',
        Principal: platform,
        Condition: {
          ArnLike: { 'aws:PrincipalArn': toolRoles },
          StringLike: { 'sts:SourceIdentity': 'etp.*' },
        },
      },
    ]);
  });

  it('takes the platform account, the ExternalId (never echoed) and the tenant as parameters', () => {
    // Prepare
    const { template } = synthesizeCustomer();

    // Act
    const parameters = template.toJSON().Parameters;

    // Assess
    expect(parameters.PlatformAccountId).toMatchObject({ Type: 'String', AllowedPattern: '^\\d{12}$' });
    expect(parameters.ExternalId).toMatchObject({ Type: 'String', NoEcho: true });
    expect(parameters.TenantId).toMatchObject({ Type: 'String' });
    expect(new RegExp(parameters.ExternalId.AllowedPattern).test('etp-acme-3f9a1c7e')).toBe(true);
    expect(new RegExp(parameters.ExternalId.AllowedPattern).test('x')).toBe(false);
    expect(new RegExp(parameters.TenantId.AllowedPattern).test('acme')).toBe(true);
    expect(new RegExp(parameters.TenantId.AllowedPattern).test('acme/../globex')).toBe(false);
  });

  it('needs no CDK bootstrap in the customer account: no bootstrap parameter, rule or asset', () => {
    // Prepare
    const { template } = synthesizeCustomer();

    // Act
    const json = template.toJSON();

    // Assess
    expect(Object.keys(json.Parameters).sort()).toEqual(['ExternalId', 'PlatformAccountId', 'TenantId']);
    expect(json.Rules).toBeUndefined();
    expect(
      Object.values(json.Resources)
        .map((r) => (r as { Type: string }).Type)
        .sort(),
      // The role, and the Athena route's workgroup and Glue database (no bucket, no asset).
    ).toEqual(['AWS::Athena::WorkGroup', 'AWS::Glue::Database', 'AWS::IAM::Policy', 'AWS::IAM::Role']);
  });

  it('synthesizes to the template alone: no asset, no bootstrap version, no role to assume, a body CloudFormation takes inline', () => {
    // Prepare
    const app = newApp();
    new CustomerAccessStack(app, 'ExternalToolsCustomerAccess');

    // Act
    const assembly = app.synth();
    const artifact = assembly.getStackByName('ExternalToolsCustomerAccess');

    // Assess: what `cdk deploy` would need from `cdk bootstrap` is absent.
    expect(assembly.artifacts.map((a) => a.manifest.type).sort()).toEqual([
      'aws:cloudformation:stack',
      'cdk:tree',
    ]);
    expect(artifact.assets).toEqual([]);
    expect(artifact.dependencies).toEqual([]);
    expect(artifact.assumeRoleArn).toBeUndefined();
    expect(artifact.cloudFormationExecutionRoleArn).toBeUndefined();
    expect(artifact.requiresBootstrapStackVersion).toBeUndefined();
    expect(artifact.stackTemplateAssetObjectUrl).toBeUndefined();
    // CloudFormation takes a TemplateBody up to 51,200 bytes (User Guide, "CloudFormation quotas").
    expect(JSON.stringify(artifact.template).length).toBeLessThan(51_200);
  });

  it('refuses an asset: nothing bundled or uploaded may join the customer stack', () => {
    // Prepare
    const stack = new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess');

    // Act, Assess
    expect(() =>
      stack.synthesizer.addFileAsset({
        sourceHash: 'abc',
        fileName: 'index.js',
        packaging: FileAssetPackaging.FILE,
      }),
    ).toThrow(
      'ExternalToolsCustomerAccess deploys without CDK bootstrap and holds no assets: remove the file asset index.js',
    );
  });

  it('outputs the role ARN to seed as aws_default', () => {
    // Prepare
    const { template, roleId } = synthesizeCustomer();

    // Act
    const output = template.findOutputs('AuditRoleArn').AuditRoleArn;

    // Assess
    expect(output?.Value).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    expect(output?.Description).toContain('role_arn');
  });
});
