/**
 * Issue 9, kind 4 ("public" decided from one access path) for aws_s3_inventory:
 * one exposure verdict per bucket from ACL grants, Object Ownership, the policy
 * status, access points and both Block Public Access levels; and the S3 examples
 * AWS documents.
 */
import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLocationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  type Grant,
  ListBucketsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import {
  GetAccessPointCommand,
  GetAccessPointPolicyStatusCommand,
  GetPublicAccessBlockCommand as GetAccountPublicAccessBlockCommand,
  ListAccessPointsCommand,
  NoSuchPublicAccessBlockConfiguration,
  S3ControlClient,
} from '@aws-sdk/client-s3-control';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { redact } from '../../../../../functions/runtime/redact';
import { bucketExposure } from '../../../../../functions/tools/aws/s3/exposure';
import { PUBLIC_ACCESS_BLOCK_NOT_CONFIGURED } from '../../../../../functions/tools/aws/s3/public-access-block';
import { type S3InventoryValue, s3InventoryTool } from '../../../../../functions/tools/aws/s3-inventory';
import { s3InventorySpec } from '../../../../../functions/tools/aws/s3-inventory.meta';
import { findingId } from '../../../../../functions/tools/aws/shared/findings';
import {
  DOCUMENTED_BUCKET_LOCATION,
  DOCUMENTED_BUCKET_VERSIONING,
  DOCUMENTED_BUCKETS,
  DOCUMENTED_BUCKETS_OWNER,
  DOCUMENTED_OWNERSHIP_CONTROLS,
} from '../../../../helpers/aws-documented-examples';
import { responseMetadata } from '../../../../helpers/aws-errors';
import { defaultChainToolServices, expectSuccess, runAwsTool } from '../../../../helpers/aws-tool';

const stsMock = mockClient(STSClient);
const s3Mock = mockClient(S3Client);
const s3ControlMock = mockClient(S3ControlClient);

const ACCOUNT = '123456789012';
const services = defaultChainToolServices();
const ALL_ON = {
  BlockPublicAcls: true,
  IgnorePublicAcls: true,
  BlockPublicPolicy: true,
  RestrictPublicBuckets: true,
};

async function inventory() {
  return expectSuccess<S3InventoryValue>(await runAwsTool(s3InventoryTool, {}, { services }));
}

function s3Error(code: string, httpStatusCode: number): S3ServiceException {
  return new S3ServiceException({
    name: code,
    message: code,
    $fault: 'client',
    $metadata: responseMetadata(httpStatusCode),
  });
}

const noConfiguration = () =>
  new NoSuchPublicAccessBlockConfiguration({
    message: 'The public access block configuration was not found',
    $metadata: responseMetadata(404),
  });

/** A grant of the bucket ACL (S3 API reference, "Grant", "Grantee": xsi:type Group with its URI). */
function groupGrant(group: 'AllUsers' | 'AuthenticatedUsers', permission: Grant['Permission']): Grant {
  return {
    Grantee: { Type: 'Group', URI: `http://acs.amazonaws.com/groups/global/${group}` },
    Permission: permission,
  };
}

const OWNER_GRANT: Grant = {
  Grantee: { Type: 'CanonicalUser', ID: '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be' },
  Permission: 'FULL_CONTROL',
};

/**
 * One bucket in eu-west-1 with no Block Public Access at either level, no
 * policy, ACLs enabled (no ownership controls: a bucket from before 2023).
 */
function exposedAccount(grants: Grant[]): void {
  stsMock
    .on(GetCallerIdentityCommand)
    .resolves({ Account: ACCOUNT, Arn: `arn:aws:iam::${ACCOUNT}:user/auditor` });
  s3ControlMock.on(GetAccountPublicAccessBlockCommand).rejects(noConfiguration());
  s3ControlMock.on(ListAccessPointsCommand).resolves({ AccessPointList: [] });
  s3Mock
    .on(ListBucketsCommand)
    .resolves({
      Buckets: [{ Name: 'legacy-site', BucketRegion: 'eu-west-1', CreationDate: new Date('2019-05-01') }],
    })
    .on(GetBucketEncryptionCommand)
    .resolves({
      ServerSideEncryptionConfiguration: {
        Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    })
    .on(GetPublicAccessBlockCommand)
    .rejects(s3Error('NoSuchPublicAccessBlockConfiguration', 404))
    .on(GetBucketVersioningCommand)
    .resolves({ Status: 'Enabled' })
    .on(GetBucketPolicyStatusCommand)
    .rejects(s3Error('NoSuchBucketPolicy', 404))
    .on(GetBucketOwnershipControlsCommand)
    .rejects(s3Error('OwnershipControlsNotFoundError', 404))
    .on(GetBucketAclCommand)
    .resolves({ Owner: { ID: OWNER_GRANT.Grantee?.ID }, Grants: [OWNER_GRANT, ...grants] });
}

const BUCKET_ARN = 'arn:aws:s3:::legacy-site';

beforeEach(() => {
  stsMock.reset();
  s3Mock.reset();
  s3ControlMock.reset();
});

describe('aws_s3_inventory judges exposure from every path (issue 9, kind 4)', () => {
  it('reports a bucket public through an AllUsers READ grant when nothing blocks it', async () => {
    // Prepare: the case.
    exposedAccount([groupGrant('AllUsers', 'READ')]);

    // Act
    const { value, summary } = await inventory();

    // Assess
    const bucket = value.buckets[0];
    expect(bucket?.acl).toEqual({
      status: 'read',
      publicGrants: [{ grantee: 'AllUsers', permission: 'READ' }],
    });
    expect(bucket?.exposure).toEqual({
      verdict: 'public',
      paths: [{ via: 'bucket_acl', what: 'AllUsers: READ', effective: true, blockedBy: [] }],
      unknown: [],
    });
    expect(value.exposure).toEqual({ public: 1 });
    const finding = value.findings.top.find((f) => f.check === 's3_bucket_acl_public');
    expect(finding).toMatchObject({
      id: findingId('s3_bucket_acl_public', 'eu-west-1', `${BUCKET_ARN}#acl-AllUsers`, ACCOUNT),
      severity: 'critical',
      title: "Bucket legacy-site's ACL grants READ to everyone (AllUsers)",
      controls: { securityHub: ['S3.12', 'S3.2'], cis: [] },
    });
    expect(summary).toMatch(/^1 S3 bucket in 1 region: 1 public \(ACL, policy or access point\), 0 without/);
    expect(redact(value)).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('reports AuthenticatedUsers WRITE as public write (S3.3)', async () => {
    // Prepare
    exposedAccount([groupGrant('AuthenticatedUsers', 'WRITE')]);

    // Act
    const { value } = await inventory();

    // Assess
    expect(value.buckets[0]?.exposure.verdict).toBe('public');
    expect(value.findings.top.find((f) => f.check === 's3_bucket_acl_public')).toMatchObject({
      title: "Bucket legacy-site's ACL grants WRITE to every AWS account (AuthenticatedUsers)",
      controls: { securityHub: ['S3.12', 'S3.3'], cis: [] },
    });
  });

  it('does not read the ACL of a bucket whose Object Ownership disables ACLs: not public', async () => {
    // Prepare
    exposedAccount([groupGrant('AllUsers', 'READ')]);
    s3Mock
      .on(GetBucketOwnershipControlsCommand)
      .resolves({ OwnershipControls: DOCUMENTED_OWNERSHIP_CONTROLS });

    // Act
    const { value } = await inventory();

    // Assess
    expect(value.buckets[0]).toMatchObject({
      ownership: { status: 'BucketOwnerEnforced', aclsDisabled: true },
      acl: { status: 'not_read', publicGrants: [] },
      exposure: { verdict: 'not_public', paths: [], unknown: [] },
    });
    expect(s3Mock.commandCalls(GetBucketAclCommand)).toHaveLength(0);
    expect(value.findings.byCheck.s3_bucket_acl_public).toBeUndefined();
  });

  it('reads neither ownership nor the ACL when the account ignores public ACLs', async () => {
    // Prepare
    exposedAccount([groupGrant('AllUsers', 'FULL_CONTROL')]);
    s3ControlMock.on(GetAccountPublicAccessBlockCommand).resolves({ PublicAccessBlockConfiguration: ALL_ON });

    // Act
    const { value } = await inventory();

    // Assess
    expect(value.buckets[0]?.exposure.verdict).toBe('not_public');
    expect(s3Mock.commandCalls(GetBucketOwnershipControlsCommand)).toHaveLength(0);
    expect(s3Mock.commandCalls(GetBucketAclCommand)).toHaveLength(0);
  });

  it('says unknown, not "not public", when the ACL that could grant access cannot be read', async () => {
    // Prepare
    exposedAccount([]);
    s3Mock.on(GetBucketAclCommand).rejects(s3Error('AccessDenied', 403));

    // Act
    const { value, summary } = await inventory();

    // Assess
    expect(value.buckets[0]?.exposure).toEqual({ verdict: 'unknown', paths: [], unknown: ['bucket ACL'] });
    expect(value.buckets[0]?.acl).toMatchObject({ status: 'unknown', error: { code: 'access_denied' } });
    expect(summary).toContain('1 of unknown exposure');
  });

  it('finds a public access point, critical while no Block Public Access level restricts it', async () => {
    // Prepare: the bucket's own policy is private; an internet access point's policy is public.
    exposedAccount([]);
    const pointArn = `arn:aws:s3:eu-west-1:${ACCOUNT}:accesspoint/partners`;
    s3ControlMock.on(ListAccessPointsCommand).resolves({
      AccessPointList: [
        {
          Name: 'partners',
          NetworkOrigin: 'Internet',
          Bucket: 'legacy-site',
          AccessPointArn: pointArn,
          BucketAccountId: ACCOUNT,
        },
        {
          Name: 'internal',
          NetworkOrigin: 'VPC',
          VpcConfiguration: { VpcId: 'vpc-1a2b3c4d' },
          Bucket: 'legacy-site',
          BucketAccountId: ACCOUNT,
        },
        {
          Name: 'other-account',
          NetworkOrigin: 'Internet',
          Bucket: 'their-bucket',
          BucketAccountId: '444455556666',
        },
      ],
    });
    s3ControlMock.on(GetAccessPointPolicyStatusCommand).resolves({ PolicyStatus: { IsPublic: true } });
    s3ControlMock.on(GetAccessPointCommand).resolves({
      Name: 'partners',
      PublicAccessBlockConfiguration: { ...ALL_ON, RestrictPublicBuckets: false, BlockPublicPolicy: false },
    });

    // Act
    const { value } = await inventory();

    // Assess
    expect(value.buckets[0]?.exposure).toEqual({
      verdict: 'public',
      paths: [{ via: 'access_point', what: 'partners', effective: true, blockedBy: [] }],
      unknown: [],
    });
    expect(value.findings.top.find((f) => f.check === 's3_access_point_public')).toMatchObject({
      resource: pointArn,
      severity: 'critical',
      controls: { securityHub: ['S3.19'], cis: [] },
    });
    // Only the internet access point of our bucket is read further.
    expect(s3ControlMock.commandCalls(GetAccessPointPolicyStatusCommand).map((c) => c.args[0].input)).toEqual(
      [{ AccountId: ACCOUNT, Name: 'partners' }],
    );
    expect(value.accessPoints).toEqual([{ region: 'eu-west-1', count: 2 }]);
  });

  it('reports the same access point as blocked (high) when the account restricts public buckets', async () => {
    // Prepare
    exposedAccount([]);
    s3ControlMock
      .on(GetAccountPublicAccessBlockCommand)
      .resolves({ PublicAccessBlockConfiguration: { ...ALL_ON, IgnorePublicAcls: false } });
    s3ControlMock.on(ListAccessPointsCommand).resolves({
      AccessPointList: [
        { Name: 'partners', NetworkOrigin: 'Internet', Bucket: 'legacy-site', BucketAccountId: ACCOUNT },
      ],
    });
    s3ControlMock.on(GetAccessPointPolicyStatusCommand).resolves({ PolicyStatus: { IsPublic: true } });
    s3ControlMock
      .on(GetAccessPointCommand)
      .resolves({ Name: 'partners', PublicAccessBlockConfiguration: ALL_ON });

    // Act
    const { value } = await inventory();

    // Assess
    expect(value.buckets[0]?.exposure.verdict).toBe('blocked');
    expect(value.findings.top.find((f) => f.check === 's3_access_point_public')).toMatchObject({
      severity: 'high',
      title: expect.stringContaining(
        'blocked only by account RestrictPublicBuckets and access point RestrictPublicBuckets',
      ),
    });
  });

  it('leaves exposure unknown where a region’s access points cannot be listed', async () => {
    // Prepare
    exposedAccount([]);
    s3ControlMock.on(ListAccessPointsCommand).rejects(
      new S3ServiceException({
        name: 'AccessDenied',
        message: 'Access Denied',
        $fault: 'client',
        $metadata: responseMetadata(403),
      }),
    );

    // Act
    const { value } = await inventory();

    // Assess
    expect(value.buckets[0]?.exposure).toEqual({ verdict: 'unknown', paths: [], unknown: ['access points'] });
    expect(value.accessPoints).toEqual([
      { region: 'eu-west-1', error: expect.objectContaining({ code: 'access_denied' }) },
    ]);
  });

  it('keeps the bucket policy finding’s id, now judged by the verdict', async () => {
    // Prepare
    exposedAccount([]);
    s3Mock.on(GetBucketPolicyStatusCommand).resolves({ PolicyStatus: { IsPublic: true } });

    // Act
    const { value } = await inventory();

    // Assess
    expect(value.findings.top.find((f) => f.check === 's3_bucket_policy_public')).toMatchObject({
      id: findingId('s3_bucket_policy_public', 'eu-west-1', BUCKET_ARN, ACCOUNT),
      severity: 'critical',
      controls: { securityHub: ['S3.2', 'S3.3'], cis: [] },
    });
  });

  it('lists the new reads in its spec (Get/List only)', () => {
    expect(s3InventorySpec.iam[0]?.actions).toEqual(
      expect.arrayContaining([
        's3:GetBucketAcl',
        's3:GetBucketOwnershipControls',
        's3:ListAccessPoints',
        's3:GetAccessPointPolicyStatus',
        's3:GetAccessPoint',
      ]),
    );
  });
});

describe('bucketExposure()', () => {
  it('cannot tell an ACL grant’s effect while the bucket’s Block Public Access is unreadable', () => {
    // Act
    const exposure = bucketExposure(
      {
        publicAccessBlock: { ...PUBLIC_ACCESS_BLOCK_NOT_CONFIGURED, status: 'unknown' },
        policy: { status: 'no_policy' },
        ownership: { status: 'ObjectWriter', aclsDisabled: false },
        acl: { status: 'read', publicGrants: [{ grantee: 'AllUsers', permission: 'READ' }] },
      },
      PUBLIC_ACCESS_BLOCK_NOT_CONFIGURED,
      [],
    );

    // Assess
    expect(exposure).toEqual({
      verdict: 'unknown',
      paths: [{ via: 'bucket_acl', what: 'AllUsers: READ', effective: null, blockedBy: [] }],
      unknown: [],
    });
  });
});

describe('aws_s3_inventory on the S3 examples AWS documents', () => {
  it('holds on the documented ListBuckets, GetBucketVersioning and GetBucketOwnershipControls answers', async () => {
    // Prepare: ListBuckets without BucketRegion (so GetBucketLocation, documented: us-west-2), versioning
    // Enabled, ownership BucketOwnerEnforced, Block Public Access off at both levels, no policy.
    stsMock
      .on(GetCallerIdentityCommand)
      .resolves({ Account: ACCOUNT, Arn: `arn:aws:iam::${ACCOUNT}:user/auditor` });
    s3ControlMock.on(GetAccountPublicAccessBlockCommand).rejects(noConfiguration());
    s3ControlMock.on(ListAccessPointsCommand).resolves({ AccessPointList: [] });
    s3Mock
      .on(ListBucketsCommand)
      .resolves({ Buckets: DOCUMENTED_BUCKETS, Owner: DOCUMENTED_BUCKETS_OWNER })
      .on(GetBucketLocationCommand)
      .resolves(DOCUMENTED_BUCKET_LOCATION)
      .on(GetBucketEncryptionCommand)
      .resolves({
        ServerSideEncryptionConfiguration: {
          Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
      })
      .on(GetPublicAccessBlockCommand)
      .rejects(s3Error('NoSuchPublicAccessBlockConfiguration', 404))
      .on(GetBucketVersioningCommand)
      .resolves(DOCUMENTED_BUCKET_VERSIONING)
      .on(GetBucketPolicyStatusCommand)
      .rejects(s3Error('NoSuchBucketPolicy', 404))
      .on(GetBucketOwnershipControlsCommand)
      .resolves({ OwnershipControls: DOCUMENTED_OWNERSHIP_CONTROLS });

    // Act
    const { value } = await inventory();

    // Assess
    expect(value.totalBuckets).toBe(3);
    expect(value.byRegion).toEqual({ 'us-west-2': 3 });
    expect(value.exposure).toEqual({ not_public: 3 });
    expect(value.versioning).toEqual({ Enabled: 3 });
    expect(value.findings.byCheck).toEqual({
      s3_account_block_public_access_off: 1,
      s3_bucket_block_public_access_off: 3,
    });
    expect(value.findings.byControl).toEqual({
      'SecurityHub:S3.1': 1,
      'SecurityHub:S3.8': 3,
      'CIS-3.0.0:2.1.4': 4,
    });
    expect(s3Mock.commandCalls(GetBucketAclCommand)).toHaveLength(0); // ACLs disabled: nothing to read
  });
});
