import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLocationCommand,
  type GetBucketLocationCommandOutput,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  ListBucketsCommand,
  type ListBucketsCommandOutput,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import {
  GetAccessPointPolicyStatusCommand,
  GetPublicAccessBlockCommand as GetAccountPublicAccessBlockCommand,
  ListAccessPointsCommand,
  NoSuchPublicAccessBlockConfiguration,
  S3ControlClient,
} from '@aws-sdk/client-s3-control';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { ACCOUNT_ID, CREATED } from '../../../../bench/aws-fixtures';
import { type Deadline, deadlineIn } from '../../../../functions/runtime/deadline';
import { redact } from '../../../../functions/runtime/redact';
import { regionFromLocationConstraint } from '../../../../functions/tools/aws/s3/bucket-settings';
import { type S3InventoryValue, s3InventoryTool } from '../../../../functions/tools/aws/s3-inventory';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import { type ApiCallCase, arrangeCaller, byRegion, type StubOf } from '../../../helpers/api-call-case';
import { responseMetadata } from '../../../helpers/aws-errors';
import { defaultChainToolServices, expectSuccess, runAwsTool } from '../../../helpers/aws-tool';

/**
 * `aws_s3_inventory`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** The 12 buckets of the account: 8 in us-east-1, 4 in eu-west-1 (S3 API reference, "ListBuckets"). */
const BUCKETS = Array.from({ length: 12 }, (_, n) => ({
  Name: `acme-data-${n}`,
  CreationDate: CREATED,
  BucketRegion: n < 8 ? 'us-east-1' : 'eu-west-1',
}));

/** All four Block Public Access flags on (S3 API reference, "PublicAccessBlockConfiguration"). */
const ALL_BLOCKED = {
  BlockPublicAcls: true,
  IgnorePublicAcls: true,
  BlockPublicPolicy: true,
  RestrictPublicBuckets: true,
};

/**
 * The 12 buckets' S3 answers: SSE-S3, `bucketBlock` at bucket level, versioning
 * on, private policies (S3 API reference, each Get* action). Returns the stub to
 * add more answers.
 */
function arrangeBucketSettings(stubOf: StubOf, bucketBlock: typeof ALL_BLOCKED): ReturnType<StubOf> {
  return stubOf(S3Client)
    .on(ListBucketsCommand)
    .resolves({ Buckets: BUCKETS, Owner: { ID: 'a1b2c3d4e5f6' } })
    .on(GetBucketEncryptionCommand)
    .resolves({
      ServerSideEncryptionConfiguration: {
        Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' }, BucketKeyEnabled: false }],
      },
    })
    .on(GetPublicAccessBlockCommand)
    .resolves({ PublicAccessBlockConfiguration: bucketBlock })
    .on(GetBucketVersioningCommand)
    .resolves({ Status: 'Enabled' })
    .on(GetBucketPolicyStatusCommand)
    .resolves({ PolicyStatus: { IsPublic: false } });
}

/** The cases of `aws_s3_inventory`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_s3_inventory',
    clients: [STSClient, S3Client, S3ControlClient],
    account:
      '12 buckets in 2 regions, account Block Public Access on (ACLs ignored: not read), no access points',
    args: {},
    arrange: (stubOf) => {
      arrangeCaller(stubOf);
      arrangeBucketSettings(stubOf, ALL_BLOCKED);
      stubOf(S3ControlClient)
        .on(GetAccountPublicAccessBlockCommand)
        .resolves({ PublicAccessBlockConfiguration: ALL_BLOCKED })
        .on(ListAccessPointsCommand)
        .resolves({ AccessPointList: [] });
    },
  },
  {
    tool: 'aws_s3_inventory',
    clients: [STSClient, S3Client, S3ControlClient],
    account:
      '12 buckets in 2 regions, no account Block Public Access, 10 with ACLs disabled, 2 legacy buckets with ACLs, one internet access point',
    args: {},
    arrange: (stubOf) => {
      arrangeCaller(stubOf);
      // Bucket-level Block Public Access restricts policies but leaves ACLs alone: ACLs could apply.
      arrangeBucketSettings(stubOf, { ...ALL_BLOCKED, IgnorePublicAcls: false })
        .on(GetBucketOwnershipControlsCommand)
        .callsFake(async (input: { Bucket?: string }) => {
          if (input.Bucket === 'acme-data-0' || input.Bucket === 'acme-data-8') {
            throw new S3ServiceException({
              name: 'OwnershipControlsNotFoundError',
              message: 'The bucket ownership controls were not found',
              $fault: 'client',
              $metadata: { httpStatusCode: 404 },
            });
          }
          return { OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] } };
        })
        .on(GetBucketAclCommand)
        .resolves({
          Owner: { ID: 'a1b2c3d4e5f6' },
          Grants: [{ Grantee: { Type: 'CanonicalUser', ID: 'a1b2c3d4e5f6' }, Permission: 'FULL_CONTROL' }],
        });
      stubOf(S3ControlClient)
        .on(GetAccountPublicAccessBlockCommand)
        .rejects(
          new NoSuchPublicAccessBlockConfiguration({
            message: 'The public access block configuration was not found',
            $metadata: { httpStatusCode: 404 },
          }),
        )
        .on(ListAccessPointsCommand)
        .callsFake(
          byRegion(
            (region) => ({
              AccessPointList:
                region === 'us-east-1'
                  ? [
                      {
                        Name: 'partners',
                        NetworkOrigin: 'Internet',
                        Bucket: 'acme-data-1',
                        BucketAccountId: ACCOUNT_ID,
                      },
                    ]
                  : [],
            }),
            { AccessPointList: [] },
          ),
        )
        .on(GetAccessPointPolicyStatusCommand)
        .resolves({ PolicyStatus: { IsPublic: false } });
    },
  },
];

const stsMock = mockClient(STSClient);
const s3Mock = mockClient(S3Client);
const s3ControlMock = mockClient(S3ControlClient);

const ACCOUNT = '123456789012';

// No aws_default row: the tool uses the default credential chain, which the mocked clients never call.
const services = defaultChainToolServices();

async function runS3(deadline?: Deadline) {
  return runAwsTool(s3InventoryTool, {}, { services, deadline });
}

async function succeeded(deadline?: Deadline) {
  return expectSuccess<S3InventoryValue>(await runS3(deadline));
}

/** An S3 error as the SDK throws errors S3 does not model (S3 API reference, "List of error codes"). */
function s3Error(code: string, httpStatusCode: number, message = code): S3ServiceException {
  return new S3ServiceException({
    name: code,
    message,
    $fault: 'client',
    $metadata: responseMetadata(httpStatusCode),
  });
}

const accessDenied = () => s3Error('AccessDenied', 403, 'Access Denied');

/** S3 Control's modeled NoSuchPublicAccessBlockConfiguration (HTTP 404): the account has no configuration. */
const noAccountConfiguration = () =>
  new NoSuchPublicAccessBlockConfiguration({
    message: 'The public access block configuration was not found',
    $metadata: responseMetadata(404),
  });

/** A ListBuckets page (S3 API reference, "ListBuckets": Buckets, Owner, ContinuationToken). */
function listPage(buckets: { name: string; region?: string }[], next?: string): ListBucketsCommandOutput {
  return {
    Buckets: buckets.map((b) => ({
      Name: b.name,
      CreationDate: new Date('2023-04-01T10:00:00.000Z'),
      ...(b.region ? { BucketRegion: b.region } : {}),
    })),
    Owner: { ID: '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be' },
    ...(next ? { ContinuationToken: next } : {}),
    $metadata: responseMetadata(200),
  };
}

const ALL_ON = {
  BlockPublicAcls: true,
  IgnorePublicAcls: true,
  BlockPublicPolicy: true,
  RestrictPublicBuckets: true,
};

/** Every bucket well configured: SSE-S3, Block Public Access on, versioning on, private policy. */
function wellConfigured(): void {
  stsMock.on(GetCallerIdentityCommand).resolves({
    UserId: 'AIDAEXAMPLEUSERID0001',
    Account: ACCOUNT,
    Arn: `arn:aws:iam::${ACCOUNT}:user/auditor`,
  });
  s3ControlMock.on(GetAccountPublicAccessBlockCommand).resolves({ PublicAccessBlockConfiguration: ALL_ON });
  s3ControlMock.on(ListAccessPointsCommand).resolves({ AccessPointList: [] });
  s3Mock
    .on(GetBucketEncryptionCommand)
    .resolves({
      ServerSideEncryptionConfiguration: {
        Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' }, BucketKeyEnabled: false }],
      },
    })
    .on(GetPublicAccessBlockCommand)
    .resolves({ PublicAccessBlockConfiguration: ALL_ON })
    .on(GetBucketVersioningCommand)
    .resolves({ Status: 'Enabled', MFADelete: 'Disabled' })
    .on(GetBucketPolicyStatusCommand)
    .resolves({ PolicyStatus: { IsPublic: false } });
}

/** The region of the client that sent the first call of `command` for `bucket`. */
async function regionOfCall(
  command:
    | typeof GetBucketEncryptionCommand
    | typeof GetBucketPolicyStatusCommand
    | typeof GetBucketVersioningCommand,
  bucket: string,
): Promise<string> {
  const call = s3Mock
    .calls()
    .find((c) => c.args[0] instanceof command && (c.args[0].input as { Bucket?: string }).Bucket === bucket);
  if (!call) throw new Error(`no ${command.name} call for ${bucket}`);
  return (call.thisValue as S3Client).config.region();
}

function bucketNamed(value: S3InventoryValue, name: string) {
  const bucket = value.buckets.find((b) => b.name === name);
  if (!bucket) throw new Error(`bucket ${name} is not listed`);
  return bucket;
}

beforeEach(() => {
  stsMock.reset();
  s3Mock.reset();
  s3ControlMock.reset();
  wellConfigured();
});

describe('aws_s3_inventory', () => {
  it('reports each bucket with its region and settings, reading them in the bucket’s region', async () => {
    // Prepare
    s3Mock.on(ListBucketsCommand).resolves(
      listPage([
        { name: 'logs-eu', region: 'eu-west-1' },
        { name: 'site-us', region: 'us-west-2' },
      ]),
    );
    s3Mock
      .on(GetBucketEncryptionCommand, { Bucket: 'site-us' })
      .resolves({
        ServerSideEncryptionConfiguration: {
          Rules: [
            {
              ApplyServerSideEncryptionByDefault: {
                SSEAlgorithm: 'aws:kms',
                KMSMasterKeyID: 'arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
              },
              BucketKeyEnabled: true,
            },
          ],
        },
      })
      .on(GetBucketVersioningCommand, { Bucket: 'site-us' })
      .resolves({});

    // Act
    const result = await succeeded();

    // Assess
    expect(result.truncated).toBe(false);
    expect(result.value).toMatchObject({
      accountId: ACCOUNT,
      totalBuckets: 2,
      bucketsRead: 2,
      bucketsWithErrors: 0,
      byRegion: { 'eu-west-1': 1, 'us-west-2': 1 },
      encryption: { enabled: 2 },
      versioning: { Enabled: 1, Disabled: 1 },
      policy: { not_public: 2 },
      listing: { pages: 1 },
      skippedBuckets: 0,
    });
    expect(bucketNamed(result.value, 'site-us')).toEqual({
      name: 'site-us',
      arn: 'arn:aws:s3:::site-us',
      region: 'us-west-2',
      createdAt: '2023-04-01T10:00:00.000Z',
      encryption: {
        status: 'enabled',
        algorithm: 'aws:kms',
        kmsKeyId: 'arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
        bucketKeyEnabled: true,
      },
      publicAccessBlock: {
        status: 'configured',
        blockPublicAcls: true,
        ignorePublicAcls: true,
        blockPublicPolicy: true,
        restrictPublicBuckets: true,
      },
      versioning: { status: 'Disabled', mfaDelete: false },
      policy: { status: 'not_public' },
      // Public ACLs are ignored account-wide: neither Object Ownership nor the ACL is read.
      ownership: { status: 'not_read', aclsDisabled: null },
      acl: { status: 'not_read', publicGrants: [] },
      accessPoints: [],
      exposure: { verdict: 'not_public', paths: [], unknown: [] },
    });
    expect(result.value.exposure).toEqual({ not_public: 2 });
    expect(result.value.accessPoints).toEqual([
      { region: 'eu-west-1', count: 0 },
      { region: 'us-west-2', count: 0 },
    ]);
    expect(result.value.findings.top.map((f) => [f.check, f.severity, f.resource, f.region])).toEqual([
      ['s3_bucket_versioning_disabled', 'low', 'arn:aws:s3:::site-us', 'us-west-2'],
    ]);
    expect(result.value.findings.top[0]?.id).toBe(
      findingId('s3_bucket_versioning_disabled', 'us-west-2', 'arn:aws:s3:::site-us', ACCOUNT),
    );
    await expect(regionOfCall(GetBucketEncryptionCommand, 'logs-eu')).resolves.toBe('eu-west-1');
    await expect(regionOfCall(GetBucketPolicyStatusCommand, 'site-us')).resolves.toBe('us-west-2');
    // ListBuckets gave the regions: no GetBucketLocation; 1 STS + 1 ListBuckets + 4 per bucket, and
    // S3 Control: the account's Block Public Access + one ListAccessPoints per bucket region.
    expect(s3Mock.commandCalls(GetBucketLocationCommand)).toHaveLength(0);
    expect(s3Mock.calls()).toHaveLength(1 + 4 * 2);
    expect(s3ControlMock.calls()).toHaveLength(1 + 2);
    expect(stsMock.calls()).toHaveLength(1);
    expect(s3ControlMock.commandCalls(GetAccountPublicAccessBlockCommand)[0]?.args[0].input).toEqual({
      AccountId: ACCOUNT,
    });
    // Nothing the inventory returns is masked by redaction: no field name or check looks like a secret.
    expect(redact(result.value)).toEqual(JSON.parse(JSON.stringify(result.value)));
    expect(result.summary).toBe(
      '2 S3 buckets in 2 regions: 0 public (ACL, policy or access point), 0 without default encryption; 1 finding (0 critical, 0 high)',
    );
  });

  it('follows ListBuckets continuation tokens with MaxBuckets', async () => {
    // Prepare: the paginator reuses one input object, so each request is copied when sent.
    const sent: unknown[] = [];
    s3Mock.on(ListBucketsCommand).callsFake((input: { ContinuationToken?: string }) => {
      sent.push({ ...input });
      return input.ContinuationToken === 'token-2'
        ? listPage([{ name: 'b', region: 'eu-west-1' }])
        : listPage([{ name: 'a', region: 'eu-west-1' }], 'token-2');
    });

    // Act
    const result = await succeeded();

    // Assess
    expect(result.value.totalBuckets).toBe(2);
    expect(result.value.listing).toEqual({ pages: 2 });
    expect(sent).toEqual([
      { MaxBuckets: 1000, ContinuationToken: undefined },
      { MaxBuckets: 1000, ContinuationToken: 'token-2' },
    ]);
  });

  it('stops listing when S3 repeats a continuation token, and marks the result truncated', async () => {
    // Prepare
    s3Mock.on(ListBucketsCommand).resolves(listPage([{ name: 'loop', region: 'eu-west-1' }], 'same'));

    // Act
    const result = await succeeded();

    // Assess
    expect(result.truncated).toBe(true);
    expect(result.value.listing).toEqual({ pages: 2, stoppedBy: 'repeated_token' });
    expect(s3Mock.commandCalls(ListBucketsCommand)).toHaveLength(2);
  });

  it.each([
    [undefined, 'us-east-1'],
    [null, 'us-east-1'],
    ['', 'us-east-1'],
    ['EU', 'eu-west-1'],
    ['ap-southeast-2', 'ap-southeast-2'],
  ])('maps LocationConstraint %p to %s', (constraint, region) => {
    // Act + Assess
    expect(regionFromLocationConstraint(constraint)).toBe(region);
  });

  it('asks GetBucketLocation when ListBuckets gives no region, and reads each bucket there', async () => {
    // Prepare: absent, null and "" all mean us-east-1; "EU" is eu-west-1.
    s3Mock
      .on(ListBucketsCommand)
      .resolves(listPage([{ name: 'absent' }, { name: 'null' }, { name: 'empty' }, { name: 'legacy-eu' }]));
    const location = (constraint: unknown) =>
      ({ LocationConstraint: constraint }) as GetBucketLocationCommandOutput;
    s3Mock
      .on(GetBucketLocationCommand, { Bucket: 'absent' })
      .resolves({})
      .on(GetBucketLocationCommand, { Bucket: 'null' })
      .resolves(location(null))
      .on(GetBucketLocationCommand, { Bucket: 'empty' })
      .resolves(location(''))
      .on(GetBucketLocationCommand, { Bucket: 'legacy-eu' })
      .resolves(location('EU'));

    // Act
    const result = await succeeded();

    // Assess
    expect(result.value.buckets.map((b) => [b.name, b.region])).toEqual([
      ['absent', 'us-east-1'],
      ['empty', 'us-east-1'],
      ['legacy-eu', 'eu-west-1'],
      ['null', 'us-east-1'],
    ]);
    expect(result.value.byRegion).toEqual({ 'us-east-1': 3, 'eu-west-1': 1 });
    await expect(regionOfCall(GetBucketEncryptionCommand, 'legacy-eu')).resolves.toBe('eu-west-1');
    await expect(regionOfCall(GetBucketVersioningCommand, 'null')).resolves.toBe('us-east-1');
    expect(s3Mock.calls()).toHaveLength(1 + 5 * 4);
  });

  it('reports a bucket whose region cannot be read with its error and leaves its settings unknown', async () => {
    // Prepare
    s3Mock.on(ListBucketsCommand).resolves(listPage([{ name: 'locked' }]));
    s3Mock.on(GetBucketLocationCommand).rejects(accessDenied());

    // Act
    const result = await succeeded();

    // Assess
    const bucket = bucketNamed(result.value, 'locked');
    expect(bucket.region).toBeNull();
    expect(bucket.error).toMatchObject({ code: 'access_denied', service: 's3', retryable: false });
    expect([bucket.encryption.status, bucket.versioning.status, bucket.policy.status]).toEqual([
      'unknown',
      'unknown',
      'unknown',
    ]);
    expect(s3Mock.commandCalls(GetBucketEncryptionCommand)).toHaveLength(0);
    expect(result.value.bucketsWithErrors).toBe(1);
    expect(result.value.bucketsUnreadable).toBe(1);
    expect(result.value.findings.total).toBe(0);
    expect(result.summary).toMatch(/; 1 bucket unreadable$/);
  });

  it('says buckets are unreadable, not partly, when every setting of theirs is denied', async () => {
    // Prepare
    s3Mock.on(ListBucketsCommand).resolves(
      listPage([
        { name: 'locked-1', region: 'eu-west-1' },
        { name: 'locked-2', region: 'eu-west-1' },
        { name: 'half', region: 'eu-west-1' },
      ]),
    );
    for (const command of [
      GetBucketEncryptionCommand,
      GetBucketVersioningCommand,
      GetBucketPolicyStatusCommand,
    ]) {
      s3Mock.on(command).rejects(accessDenied());
    }
    s3Mock.on(GetPublicAccessBlockCommand).rejects(accessDenied());
    s3Mock
      .on(GetPublicAccessBlockCommand, { Bucket: 'half' })
      .resolves({ PublicAccessBlockConfiguration: ALL_ON });

    // Act
    const result = await succeeded();

    // Assess
    expect(result.value).toMatchObject({ totalBuckets: 3, bucketsWithErrors: 3, bucketsUnreadable: 2 });
    expect(result.summary).toMatch(/; 2 buckets unreadable, 1 partly unreadable$/);
  });

  describe('default encryption', () => {
    it('reads ServerSideEncryptionConfigurationNotFoundError as no default encryption, a medium finding', async () => {
      // Prepare
      s3Mock.on(ListBucketsCommand).resolves(listPage([{ name: 'plain', region: 'eu-west-1' }]));
      s3Mock
        .on(GetBucketEncryptionCommand)
        .rejects(
          s3Error(
            'ServerSideEncryptionConfigurationNotFoundError',
            404,
            'The server side encryption configuration was not found',
          ),
        );

      // Act
      const result = await succeeded();

      // Assess
      const bucket = bucketNamed(result.value, 'plain');
      expect(bucket.encryption).toEqual({
        status: 'none',
        algorithm: null,
        kmsKeyId: null,
        bucketKeyEnabled: false,
      });
      expect(result.value.encryption).toEqual({ none: 1 });
      expect(result.value.findings.top.map((f) => [f.check, f.severity])).toEqual([
        ['s3_bucket_no_default_encryption', 'medium'],
      ]);
    });

    it('reports AccessDenied on one bucket as unknown for that bucket only', async () => {
      // Prepare
      s3Mock.on(ListBucketsCommand).resolves(
        listPage([
          { name: 'fine-1', region: 'eu-west-1' },
          { name: 'denied', region: 'eu-west-1' },
          { name: 'fine-2', region: 'eu-west-1' },
        ]),
      );
      s3Mock.on(GetBucketEncryptionCommand, { Bucket: 'denied' }).rejects(accessDenied());

      // Act
      const result = await succeeded();

      // Assess
      const denied = bucketNamed(result.value, 'denied');
      expect(denied.encryption).toMatchObject({ status: 'unknown', algorithm: null });
      expect(denied.encryption.error).toMatchObject({
        code: 'access_denied',
        retryable: false,
        service: 's3',
        details: { awsError: 'AccessDenied', httpStatusCode: 403 },
      });
      expect(denied.versioning.status).toBe('Enabled');
      expect(bucketNamed(result.value, 'fine-1').encryption).toEqual({
        status: 'enabled',
        algorithm: 'AES256',
        kmsKeyId: null,
        bucketKeyEnabled: false,
      });
      expect(bucketNamed(result.value, 'fine-2').encryption.status).toBe('enabled');
      expect(result.value.encryption).toEqual({ enabled: 2, unknown: 1 });
      expect(result.value.bucketsWithErrors).toBe(1);
      // Unknown raises no finding; the bucket with the error is listed first.
      expect(result.value.findings.total).toBe(0);
      expect(result.value.buckets[0]?.name).toBe('denied');
      expect(result.summary).toContain('1 bucket partly unreadable');
    });

    it('does not crash on a rule carrying only BucketKeyEnabled: no default algorithm', async () => {
      // Prepare
      s3Mock.on(ListBucketsCommand).resolves(listPage([{ name: 'key-only', region: 'eu-west-1' }]));
      s3Mock
        .on(GetBucketEncryptionCommand)
        .resolves({ ServerSideEncryptionConfiguration: { Rules: [{ BucketKeyEnabled: true }] } });

      // Act
      const result = await succeeded();

      // Assess
      expect(bucketNamed(result.value, 'key-only').encryption).toEqual({
        status: 'none',
        algorithm: null,
        kmsKeyId: null,
        bucketKeyEnabled: true,
      });
    });
  });

  describe('Block Public Access', () => {
    it('reads NoSuchPublicAccessBlockConfiguration as all four switches off, not configured', async () => {
      // Prepare: neither the bucket nor the account has a configuration.
      s3Mock.on(ListBucketsCommand).resolves(listPage([{ name: 'open', region: 'eu-west-1' }]));
      s3Mock
        .on(GetPublicAccessBlockCommand)
        .rejects(
          s3Error(
            'NoSuchPublicAccessBlockConfiguration',
            404,
            'The public access block configuration was not found',
          ),
        );
      s3ControlMock.on(GetAccountPublicAccessBlockCommand).rejects(noAccountConfiguration());

      // Act
      const result = await succeeded();

      // Assess
      const notConfigured = {
        status: 'not_configured',
        blockPublicAcls: false,
        ignorePublicAcls: false,
        blockPublicPolicy: false,
        restrictPublicBuckets: false,
      };
      expect(bucketNamed(result.value, 'open').publicAccessBlock).toEqual(notConfigured);
      expect(result.value.accountPublicAccessBlock).toEqual(notConfigured);
      expect(result.value.findings.top.map((f) => [f.check, f.severity, f.resource])).toEqual([
        ['s3_account_block_public_access_off', 'high', ACCOUNT],
        ['s3_bucket_block_public_access_off', 'medium', 'arn:aws:s3:::open'],
      ]);
      expect(redact(result.value.findings)).toEqual(JSON.parse(JSON.stringify(result.value.findings)));
      expect(result.value.findings.top[1]?.details).toEqual({
        switchesOff: ['blockPublicAcls', 'ignorePublicAcls', 'blockPublicPolicy', 'restrictPublicBuckets'],
        bucketLevel: 'not_configured',
      });
    });

    it('raises no bucket finding when the account level turns every switch on', async () => {
      // Prepare
      s3Mock.on(ListBucketsCommand).resolves(listPage([{ name: 'covered', region: 'eu-west-1' }]));
      s3Mock.on(GetPublicAccessBlockCommand).rejects(s3Error('NoSuchPublicAccessBlockConfiguration', 404));

      // Act
      const result = await succeeded();

      // Assess
      expect(bucketNamed(result.value, 'covered').publicAccessBlock.status).toBe('not_configured');
      expect(result.value.findings.total).toBe(0);
    });

    it('reports the account level as unknown when S3 Control denies it, and still reads the buckets', async () => {
      // Prepare
      s3Mock.on(ListBucketsCommand).resolves(listPage([{ name: 'b', region: 'eu-west-1' }]));
      s3ControlMock.on(GetAccountPublicAccessBlockCommand).rejects(accessDenied());

      // Act
      const result = await succeeded();

      // Assess
      expect(result.value.accountPublicAccessBlock).toMatchObject({
        status: 'unknown',
        error: { code: 'access_denied' },
      });
      expect(result.summary).toContain('; account-level Block Public Access unknown (access_denied)');
      expect(result.value.bucketsRead).toBe(1);
      expect(result.value.findings.total).toBe(0);
    });
  });

  describe('bucket policy', () => {
    it('rates a public policy critical, high when RestrictPublicBuckets blocks it, and NoSuchBucketPolicy not public', async () => {
      // Prepare
      s3ControlMock.on(GetAccountPublicAccessBlockCommand).rejects(noAccountConfiguration());
      s3Mock.on(ListBucketsCommand).resolves(
        listPage([
          { name: 'public', region: 'eu-west-1' },
          { name: 'restricted', region: 'eu-west-1' },
          { name: 'no-policy', region: 'eu-west-1' },
        ]),
      );
      s3Mock
        .on(GetPublicAccessBlockCommand, { Bucket: 'public' })
        .resolves({
          PublicAccessBlockConfiguration: {
            ...ALL_ON,
            BlockPublicPolicy: false,
            RestrictPublicBuckets: false,
          },
        })
        .on(GetBucketPolicyStatusCommand, { Bucket: 'public' })
        .resolves({ PolicyStatus: { IsPublic: true } })
        .on(GetBucketPolicyStatusCommand, { Bucket: 'restricted' })
        .resolves({ PolicyStatus: { IsPublic: true } })
        .on(GetBucketPolicyStatusCommand, { Bucket: 'no-policy' })
        .rejects(s3Error('NoSuchBucketPolicy', 404, 'The bucket policy does not exist'));

      // Act
      const result = await succeeded();

      // Assess
      expect(result.value.accountPublicAccessBlock.status).toBe('not_configured');
      expect(result.value.policy).toEqual({ public: 2, no_policy: 1 });
      expect(bucketNamed(result.value, 'no-policy').policy).toEqual({ status: 'no_policy' });
      const policyFindings = result.value.findings.top.filter((f) => f.check === 's3_bucket_policy_public');
      expect(policyFindings.map((f) => [f.resource, f.severity])).toEqual([
        ['arn:aws:s3:::public', 'critical'],
        ['arn:aws:s3:::restricted', 'high'],
      ]);
      expect(result.value.buckets[0]?.name).toBe('public');
    });
  });

  it('reads at most 8 buckets at a time', async () => {
    // Prepare
    const names = Array.from({ length: 30 }, (_, i) => `bucket-${String(i).padStart(2, '0')}`);
    s3Mock.on(ListBucketsCommand).resolves(listPage(names.map((name) => ({ name, region: 'eu-west-1' }))));
    let inFlight = 0;
    let peak = 0;
    s3Mock.on(GetBucketVersioningCommand).callsFake(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return { Status: 'Enabled' };
    });

    // Act
    const result = await succeeded();

    // Assess
    expect(result.value.bucketsRead).toBe(30);
    expect(peak).toBe(8);
  });

  it('skips the buckets left when the deadline passes and marks the result truncated', async () => {
    // Prepare: the deadline passes while the first bucket is read.
    let expired = false;
    const real = deadlineIn(60_000);
    const deadline: Deadline = { ...real, expired: () => expired };
    s3Mock
      .on(ListBucketsCommand)
      .resolves(
        listPage(
          ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((name) => ({ name, region: 'eu-west-1' })),
        ),
      );
    s3Mock.on(GetBucketVersioningCommand).callsFake(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1)); // all 8 workers have started by now
      expired = true;
      return { Status: 'Enabled' };
    });

    // Act
    const result = await succeeded(deadline);

    // Assess
    expect(result.truncated).toBe(true);
    expect(result.value.totalBuckets).toBe(10);
    expect(result.value.bucketsRead).toBe(8);
    expect(result.value.skippedBuckets).toBe(2);
    expect(result.summary).toMatch(/; partial$/);
  });

  it('fails with access_denied when ListBuckets is denied', async () => {
    // Prepare
    s3Mock.on(ListBucketsCommand).rejects(accessDenied());

    // Act
    const result = await runS3();

    // Assess
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'access_denied', service: 's3', retryable: false },
    });
  });
});
