import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { DEFAULT_RESULT_INLINE_BYTES } from '../../functions/runtime/result-limits';
import { RunWorkspaceBucket } from '../../lib/run-workspace-bucket';
import { TenantRunData } from '../../lib/tenant-secret-readers';
import { logicalIdOf, roleOf, synthesizePlatform } from '../helpers/cdk';

type Resource = { Properties: Record<string, unknown> };

/** A bare stack holding one RunWorkspaceBucket, a tool role it keeps off (`denyTool`), and the run data of a table. */
function bareBucket(props: ConstructorParameters<typeof RunWorkspaceBucket>[2] = {}, denyTool = false) {
  const stack = new Stack(new App(), 'Bare');
  const workspace = new RunWorkspaceBucket(stack, 'RunWorkspace', props);
  const role = new Role(stack, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  if (denyTool) workspace.denyToolRole(role);
  const table = new Table(stack, 'Records', {
    partitionKey: { name: 'tenant_id', type: AttributeType.STRING },
  });
  const runData = new TenantRunData(stack, 'RunData', { bucket: workspace.bucket, table });
  return { stack, workspace, role, runData, template: Template.fromStack(stack) };
}

/** The statements of the policies attached to the role of logical id `role`. */
function statementsOf(template: Template, role: string): Record<string, unknown>[] {
  return Object.values({
    ...template.findResources('AWS::IAM::Policy'),
    ...template.findResources('AWS::IAM::ManagedPolicy'),
  })
    .filter((policy) =>
      ((policy.Properties as { Roles?: { Ref?: string }[] }).Roles ?? []).some((ref) => ref.Ref === role),
    )
    .flatMap(
      (policy) =>
        (policy.Properties as { PolicyDocument: { Statement: Record<string, unknown>[] } }).PolicyDocument
          .Statement,
    );
}

function resource(template: Template, logicalId: string): Resource {
  return template.toJSON().Resources[logicalId] as Resource;
}

describe('the run-workspace bucket', () => {
  it('is encrypted with S3-managed keys, blocks public access, disables ACLs and is not versioned', () => {
    // Prepare
    const { workspace, template } = bareBucket();

    // Act
    const buckets = [workspace.bucket, workspace.accessLogsBucket].map(
      (bucket) => resource(template, logicalIdOf(bucket)).Properties,
    );

    // Assess
    for (const bucket of buckets) {
      expect(bucket).toMatchObject({
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      });
      expect(bucket.VersioningConfiguration).toBeUndefined();
      expect(bucket.AccessControl).toBeUndefined();
    }
  });

  it('denies every request without TLS 1.2, on both buckets', () => {
    // Prepare
    const { workspace, template } = bareBucket();

    // Act, Assess
    for (const bucket of [workspace.bucket, workspace.accessLogsBucket]) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logicalIdOf(bucket) },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } },
            }),
          ]),
        },
      });
    }
  });

  it('logs server access to its logs bucket, delivered under a bucket policy for this bucket and account only', () => {
    // Prepare
    const { workspace, template } = bareBucket();
    const bucketId = logicalIdOf(workspace.bucket);
    const logsId = logicalIdOf(workspace.accessLogsBucket);

    // Act
    const logging = resource(template, bucketId).Properties.LoggingConfiguration;

    // Assess
    expect(logging).toEqual({ DestinationBucketName: { Ref: logsId }, LogFilePrefix: 'run-workspace/' });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logsId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Action: 's3:PutObject',
            Principal: { Service: 'logging.s3.amazonaws.com' },
            Condition: {
              ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucketId, 'Arn'] } },
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            },
          }),
        ]),
      },
    });
  });

  it('expires scratch/ after 7 days and keeps runs/ unless a retention is given', () => {
    // Prepare, Act
    const defaults = bareBucket();
    const retained = bareBucket({
      runRetention: Duration.days(400),
      scratchRetention: Duration.days(2),
      accessLogRetention: Duration.days(90),
    });
    const rules = ({ workspace, template }: ReturnType<typeof bareBucket>) => ({
      bucket: (
        resource(template, logicalIdOf(workspace.bucket)).Properties.LifecycleConfiguration as {
          Rules: unknown;
        }
      ).Rules,
      logs: (
        resource(template, logicalIdOf(workspace.accessLogsBucket)).Properties.LifecycleConfiguration as {
          Rules: unknown;
        }
      ).Rules,
    });

    // Assess
    expect(rules(defaults)).toEqual({
      bucket: [
        { Id: 'expire-scratch', Prefix: 'scratch/', ExpirationInDays: 7, Status: 'Enabled' },
        {
          Id: 'abort-incomplete-uploads',
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          Status: 'Enabled',
        },
      ],
      logs: [{ Id: 'expire-access-logs', ExpirationInDays: 365, Status: 'Enabled' }],
    });
    expect(rules(retained)).toEqual({
      bucket: [
        { Id: 'expire-scratch', Prefix: 'scratch/', ExpirationInDays: 2, Status: 'Enabled' },
        {
          Id: 'abort-incomplete-uploads',
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          Status: 'Enabled',
        },
        { Id: 'expire-runs', Prefix: 'runs/', ExpirationInDays: 400, Status: 'Enabled' },
      ],
      logs: [{ Id: 'expire-access-logs', ExpirationInDays: 90, Status: 'Enabled' }],
    });
  });

  it('refuses a retention that is not a whole number of days', () => {
    expect(() => bareBucket({ runRetention: Duration.hours(36) })).toThrow(
      'runRetention must be a whole number of days, at least 1',
    );
  });

  it('is retained when the stack is deleted, unless told otherwise', () => {
    // Prepare
    const { workspace, stack } = bareBucket();
    const template = Template.fromStack(stack).toJSON();

    // Act, Assess
    for (const bucket of [workspace.bucket, workspace.accessLogsBucket]) {
      expect(template.Resources[logicalIdOf(bucket)]).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    }
  });

  it('gives the run-data role its session tenant’s runs/ and scratch/ prefixes only, listings under them, and its records', () => {
    // Prepare
    const { workspace, runData, template } = bareBucket();
    const bucketArn = { 'Fn::GetAtt': [logicalIdOf(workspace.bucket), 'Arn'] };
    const objects = (prefix: string) => ({
      'Fn::Join': ['', [bucketArn, `/${prefix}\${aws:PrincipalTag/etp-tenant}/*`]],
    });
    const tagged = { Null: { 'aws:PrincipalTag/etp-tenant': 'false' } };

    // Act
    const statements = statementsOf(template, logicalIdOf(runData.role));

    // Assess
    expect(statements).toEqual([
      {
        Sid: 'OwnTenantWorkspaces',
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject'],
        Resource: [objects('runs/'), objects('scratch/')],
        Condition: tagged,
      },
      {
        Sid: 'ListOwnTenantWorkspaces',
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: bucketArn,
        Condition: {
          ...tagged,
          StringLike: {
            's3:prefix': [
              'runs/${aws:PrincipalTag/etp-tenant}/*',
              'scratch/${aws:PrincipalTag/etp-tenant}/*',
            ],
          },
        },
      },
      {
        Sid: 'OwnTenantRunRecords',
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Records/), 'Arn'] },
        Condition: {
          ...tagged,
          'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['${aws:PrincipalTag/etp-tenant}'] },
        },
      },
    ]);
  });

  it('keeps a tool role off the bucket: no listing and no object, whatever else it is allowed', () => {
    // Prepare
    const { workspace, role, template } = bareBucket({}, true);
    const bucketArn = { 'Fn::GetAtt': [logicalIdOf(workspace.bucket), 'Arn'] };

    // Act
    const statements = statementsOf(template, logicalIdOf(role));

    // Assess
    expect(statements).toEqual([
      {
        Sid: 'DenyWorkspaceListing',
        Effect: 'Deny',
        Action: ['s3:ListBucket', 's3:ListBucketVersions', 's3:ListBucketMultipartUploads'],
        Resource: bucketArn,
      },
      {
        Sid: 'DenyWorkspaceObjects',
        Effect: 'Deny',
        Action: ['s3:GetObject', 's3:GetObjectVersion', 's3:PutObject', 's3:DeleteObject'],
        Resource: { 'Fn::Join': ['', [bucketArn, '/*']] },
      },
    ]);
  });
});

describe('the platform and its run-workspace bucket', () => {
  it("gives the dispatcher the bucket's name, the inline budget and the run-data role, and no right of its own on the bucket", () => {
    // Prepare
    const { stack, template } = synthesizePlatform();
    const dispatcherId = logicalIdOf(stack.platform.dispatcher.lambdaFunction);
    const bucketId = logicalIdOf(stack.platform.runWorkspace.bucket);

    // Act
    const variables = (resource(template, dispatcherId).Properties.Environment as { Variables: unknown })
      .Variables;
    const statements = statementsOf(template, roleOf(template, dispatcherId));

    // Assess
    expect(variables).toMatchObject({
      RUN_BUCKET: { Ref: bucketId },
      RESULT_INLINE_BYTES: String(DEFAULT_RESULT_INLINE_BYTES),
      RUN_DATA_ROLE: { 'Fn::GetAtt': [logicalIdOf(stack.platform.runData.role), 'Arn'] },
    });
    expect(statements.flatMap((statement) => [statement.Action].flat())).not.toContainEqual(
      expect.stringMatching(/^s3:/),
    );
    // CDK merges the dispatcher's sts statements into one: the run-data role is among its resources.
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: ['sts:AssumeRole', 'sts:SetSourceIdentity', 'sts:TagSession'],
        Resource: expect.arrayContaining([
          { 'Fn::GetAtt': [logicalIdOf(stack.platform.runData.role), 'Arn'] },
        ]),
      }),
    );
  });
  it('takes the retentions and the inline budget as props (the scenarios’ budget caps it), and refuses a budget the dispatcher would ignore', () => {
    // Prepare, Act
    const { stack, template } = synthesizePlatform({
      runWorkspace: { runRetention: Duration.days(30) },
      resultInlineBytes: 16 * 1024,
    });

    // Assess
    const dispatcher = resource(template, logicalIdOf(stack.platform.dispatcher.lambdaFunction));
    expect(
      (dispatcher.Properties.Environment as { Variables: Record<string, unknown> }).Variables
        .RESULT_INLINE_BYTES,
    ).toBe(String(Math.min(16 * 1024, stack.platform.inlineResultBytes)));
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Id: 'expire-runs', ExpirationInDays: 30 })]),
      },
    });
    expect(() => synthesizePlatform({ resultInlineBytes: 4096 })).toThrow(
      'resultInlineBytes 4096 is not a whole number of bytes from 8 KiB to 64 KiB',
    );
  });
});
