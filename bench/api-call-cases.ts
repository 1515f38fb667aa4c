/**
 * One representative run per AWS tool, for counting its AWS API calls
 * (bench/api-calls.ts). The account: the 17 regions enabled by default
 * (`regions: "all"`), workloads in two home regions (us-east-1, eu-west-1),
 * 10,000 EC2 instances, 12 S3 buckets, one multi-region trail, three IAM users.
 * Responses have the shapes of the AWS API references (each named below).
 * Adding a tool is adding one entry to {@link API_CALL_CASES}.
 */
import {
  CloudTrailClient,
  DescribeTrailsCommand,
  GetEventSelectorsCommand,
  GetTrailStatusCommand,
} from '@aws-sdk/client-cloudtrail';
import {
  CloudWatchClient,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
} from '@aws-sdk/client-cloudwatch';
import {
  ComputeOptimizerClient,
  GetEBSVolumeRecommendationsCommand,
  GetEC2InstanceRecommendationsCommand,
  GetLambdaFunctionRecommendationsCommand,
} from '@aws-sdk/client-compute-optimizer';
import {
  CostExplorerClient,
  GetAnomaliesCommand,
  GetCostAndUsageCommand,
  type GetCostAndUsageCommandInput,
} from '@aws-sdk/client-cost-explorer';
import {
  DescribeAddressesCommand,
  DescribeInstancesCommand,
  DescribeNatGatewaysCommand,
  DescribeNetworkInterfacesCommand,
  DescribeRegionsCommand,
  DescribeSecurityGroupsCommand,
  DescribeSnapshotsCommand,
  DescribeVolumesCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import {
  AccountNotManagementOrDelegatedAdministratorException,
  GenerateCredentialReportCommand,
  GetAccountPasswordPolicyCommand,
  GetAccountSummaryCommand,
  GetCredentialReportCommand,
  IAMClient,
  ListOrganizationsFeaturesCommand,
} from '@aws-sdk/client-iam';
import { DescribeDBInstancesCommand, RDSClient } from '@aws-sdk/client-rds';
import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  ListBucketsCommand,
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
import {
  CREDENTIAL_REPORT_HEADER,
  credentialReportOutput,
  STRONG_PASSWORD_POLICY,
} from '../test/helpers/credential-report';
import {
  DEFAULT_ENABLED_REGIONS,
  describeInstancesResponder,
  mockedClientRegion,
} from '../test/helpers/ec2-pages';
import { ACCOUNT_ID, BENCH_ACCOUNT, CREATED, rdsInstance } from './aws-fixtures';

/** An SDK v3 client class, as `mockClient` takes it. */
export type ClientClass = Parameters<typeof mockClient>[0];

/** Returns the stub of a client class, reset before each case (a class is mocked once per process). */
export type StubOf = (client: ClientClass) => ReturnType<typeof mockClient>;

/** Every SDK client the AWS audit tools use: what a run of all of them stubs. */
export const AUDIT_CLIENTS: readonly ClientClass[] = [
  EC2Client,
  STSClient,
  CloudTrailClient,
  S3Client,
  S3ControlClient,
  IAMClient,
  CostExplorerClient,
  ComputeOptimizerClient,
  RDSClient,
  CloudWatchClient,
];

/**
 * Stubs of SDK client classes (aws-sdk-client-mock): `clients` stubbed at once,
 * so no call of theirs can leave the process, any other on first `stubOf`.
 *
 * @param clients - stubbed at once. @default AUDIT_CLIENTS
 * @returns the stubs made so far (to reset or count) and `stubOf`.
 */
export function clientStubs(clients: readonly ClientClass[] = AUDIT_CLIENTS): {
  readonly stubs: ReadonlyMap<ClientClass, ReturnType<typeof mockClient>>;
  readonly stubOf: StubOf;
} {
  const stubs = new Map(clients.map((client) => [client, mockClient(client)]));
  const stubOf: StubOf = (client) => {
    let stub = stubs.get(client);
    if (!stub) {
      stub = mockClient(client);
      stubs.set(client, stub);
    }
    return stub;
  };
  return { stubs, stubOf };
}

/** One tool's representative run. */
export interface ApiCallCase {
  readonly tool: string;
  /** What the responses describe, in a few words. */
  readonly account: string;
  readonly args: Record<string, unknown>;
  /** Sets the responses of every call the tool makes. */
  arrange(stubOf: StubOf): void;
}

const HOME_REGIONS: readonly string[] = ['us-east-1', 'eu-west-1'];

/** A `callsFake` answering `home(region)` in the home regions and `elsewhere` in the others. */
function byRegion<T>(home: (region: string) => T, elsewhere: T) {
  return async (_input: unknown, getClient: () => unknown): Promise<T> => {
    const region = await mockedClientRegion(getClient);
    return HOME_REGIONS.includes(region) ? home(region) : elsewhere;
  };
}

/** EC2 DescribeRegions (EC2 API reference, "DescribeRegions"): the 17 default regions. */
function arrangeRegions(stubOf: StubOf): ReturnType<StubOf> {
  return stubOf(EC2Client)
    .on(DescribeRegionsCommand)
    .resolves({
      Regions: DEFAULT_ENABLED_REGIONS.map((region) => ({
        RegionName: region,
        Endpoint: `ec2.${region}.amazonaws.com`,
        OptInStatus: 'opt-in-not-required',
      })),
    });
}

/** STS GetCallerIdentity (STS API reference) for the audit role. */
function arrangeCaller(stubOf: StubOf): void {
  stubOf(STSClient)
    .on(GetCallerIdentityCommand)
    .resolves({
      Account: ACCOUNT_ID,
      Arn: `arn:aws:sts::${ACCOUNT_ID}:assumed-role/etp-audit/etp-run-1`,
      UserId: 'AROAEXAMPLEROLEID:etp-run-1',
    });
}

/** EC2 "Volume": one attached gp2, one unattached gp3, one unencrypted gp2 per home region. */
function volumes(region: string) {
  const volume = (
    n: number,
    type: 'gp2' | 'gp3',
    sizeGiB: number,
    encrypted: boolean,
    attached: boolean,
  ) => ({
    VolumeId: `vol-0${region.replaceAll('-', '')}${n}`,
    Size: sizeGiB,
    VolumeType: type,
    State: attached ? ('in-use' as const) : ('available' as const),
    Encrypted: encrypted,
    AvailabilityZone: `${region}a`,
    CreateTime: CREATED,
    Iops: type === 'gp3' ? 3000 : sizeGiB * 3,
    ...(type === 'gp3' ? { Throughput: 125 } : {}),
    Attachments: attached
      ? [
          {
            VolumeId: `vol-0${region.replaceAll('-', '')}${n}`,
            InstanceId: `i-0${region.replaceAll('-', '')}${n}`,
            Device: '/dev/xvda',
            State: 'attached' as const,
            AttachTime: CREATED,
            DeleteOnTermination: true,
          },
        ]
      : [],
  });
  return {
    Volumes: [
      volume(1, 'gp2', 100, true, true),
      volume(2, 'gp3', 500, true, false),
      volume(3, 'gp2', 50, false, true),
    ],
  };
}

/** EC2 "SecurityGroup": default, a bastion with SSH open to 0.0.0.0/0, a web group with 443 open over IPv4 and IPv6. */
function securityGroups(region: string) {
  const group = (id: string, name: string, permissions: object[]) => ({
    GroupId: id,
    GroupName: name,
    Description: `${name} (${region})`,
    OwnerId: ACCOUNT_ID,
    VpcId: 'vpc-0123456789abcdef0',
    IpPermissions: permissions,
    IpPermissionsEgress: [
      {
        IpProtocol: '-1',
        IpRanges: [{ CidrIp: '0.0.0.0/0' }],
        Ipv6Ranges: [],
        PrefixListIds: [],
        UserIdGroupPairs: [],
      },
    ],
  });
  const open = (port: number, ipv6: boolean) => ({
    IpProtocol: 'tcp',
    FromPort: port,
    ToPort: port,
    IpRanges: [{ CidrIp: '0.0.0.0/0' }],
    Ipv6Ranges: ipv6 ? [{ CidrIpv6: '::/0' }] : [],
    PrefixListIds: [],
    UserIdGroupPairs: [],
  });
  return {
    SecurityGroups: [
      group('sg-0000000000000000a', 'default', []),
      group('sg-0000000000000000b', 'bastion', [open(22, false)]),
      group('sg-0000000000000000c', 'web', [open(443, true)]),
    ],
  };
}

/** A credential report (IAM User Guide, "Getting credential reports"): the root user and three users. */
const CREDENTIAL_REPORT_CSV = [
  CREDENTIAL_REPORT_HEADER,
  `<root_account>,arn:aws:iam::${ACCOUNT_ID}:root,2020-01-01T00:00:00+00:00,not_supported,2024-05-01T10:00:00+00:00,not_supported,not_supported,true,false,N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  `alice,arn:aws:iam::${ACCOUNT_ID}:user/alice,2021-02-01T00:00:00+00:00,true,2024-06-01T08:00:00+00:00,2024-01-01T00:00:00+00:00,N/A,true,true,2021-02-01T00:00:00+00:00,2024-06-01T08:00:00+00:00,us-east-1,s3,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  `bob,arn:aws:iam::${ACCOUNT_ID}:user/bob,2022-03-01T00:00:00+00:00,true,no_information,2022-03-01T00:00:00+00:00,N/A,false,false,N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
  `ci,arn:aws:iam::${ACCOUNT_ID}:user/ci,2023-04-01T00:00:00+00:00,false,N/A,N/A,N/A,false,true,2023-04-01T00:00:00+00:00,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
].join('\n');

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

/** A Cost Explorer result per period asked (Cost Explorer API reference, "GetCostAndUsage"), grouped by service. */
function costAndUsage(input: GetCostAndUsageCommandInput) {
  const cost = (amount: string) => ({ UnblendedCost: { Amount: amount, Unit: 'USD' } });
  return {
    ResultsByTime: [
      {
        TimePeriod: input.TimePeriod,
        Total: {},
        Groups: [
          { Keys: ['Amazon Elastic Compute Cloud - Compute'], Metrics: cost('1834.20') },
          { Keys: ['Amazon Relational Database Service'], Metrics: cost('612.75') },
          { Keys: ['Amazon Simple Storage Service'], Metrics: cost('148.02') },
          { Keys: ['EC2 - Other'], Metrics: cost('96.40') },
        ],
        Estimated: false,
      },
    ],
    GroupDefinitions: [{ Type: 'DIMENSION' as const, Key: 'SERVICE' }],
    DimensionValueAttributes: [],
  };
}

/** CloudWatch GetMetricData (CloudWatch API reference): 2 GB a day for every query, 14 days. */
function metricData(input: GetMetricDataCommandInput) {
  return {
    MetricDataResults: (input.MetricDataQueries ?? []).map((query) => ({
      Id: query.Id,
      Label: query.Id,
      Timestamps: Array.from({ length: 14 }, (_, day) => new Date(Date.UTC(2024, 5, day + 1))),
      Values: Array.from({ length: 14 }, () => 2e9),
      StatusCode: 'Complete' as const,
    })),
  };
}

/** One entry per AWS tool. */
export const API_CALL_CASES: readonly ApiCallCase[] = [
  {
    tool: 'aws_ec2_inventory',
    account: '10,000 instances in 17 regions, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeInstancesCommand)
        .callsFake(describeInstancesResponder(BENCH_ACCOUNT));
    },
  },
  {
    tool: 'aws_ebs_inventory',
    account: '3 volumes in each of 2 regions, 1 public snapshot, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeVolumesCommand)
        .callsFake(byRegion(volumes, { Volumes: [] }))
        .on(DescribeSnapshotsCommand)
        .callsFake(
          byRegion(
            (region) => ({
              Snapshots:
                region === 'us-east-1'
                  ? [
                      {
                        SnapshotId: 'snap-0123456789abcdef0',
                        VolumeId: 'vol-0useast11',
                        VolumeSize: 100,
                        State: 'completed' as const,
                        StartTime: CREATED,
                        Encrypted: false,
                        OwnerId: ACCOUNT_ID,
                        Description: 'golden image',
                      },
                    ]
                  : [],
            }),
            { Snapshots: [] },
          ),
        );
    },
  },
  {
    tool: 'aws_eips_audit',
    account: '2 addresses in each of 2 regions, one unassociated, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeAddressesCommand)
        .callsFake(
          byRegion(
            (region) => ({
              Addresses: [
                {
                  PublicIp: region === 'us-east-1' ? '198.51.100.10' : '203.0.113.10',
                  AllocationId: `eipalloc-0${region.replaceAll('-', '')}1`,
                  AssociationId: `eipassoc-0${region.replaceAll('-', '')}1`,
                  InstanceId: `i-0${region.replaceAll('-', '')}1`,
                  Domain: 'vpc' as const,
                  PublicIpv4Pool: 'amazon',
                  NetworkBorderGroup: region,
                },
                {
                  PublicIp: region === 'us-east-1' ? '198.51.100.11' : '203.0.113.11',
                  AllocationId: `eipalloc-0${region.replaceAll('-', '')}2`,
                  Domain: 'vpc' as const,
                  PublicIpv4Pool: 'amazon',
                  NetworkBorderGroup: region,
                },
              ],
            }),
            { Addresses: [] },
          ),
        );
    },
  },
  {
    tool: 'aws_security_groups_audit',
    account: '3 groups and 2 interfaces in each of 2 regions, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeSecurityGroupsCommand)
        .callsFake(byRegion(securityGroups, { SecurityGroups: [] }))
        .on(DescribeNetworkInterfacesCommand)
        .callsFake(
          byRegion(
            (region) => ({
              NetworkInterfaces: ['a', 'b'].map((group, n) => ({
                NetworkInterfaceId: `eni-0${region.replaceAll('-', '')}${n}`,
                Status: 'in-use' as const,
                Groups: [
                  { GroupId: `sg-000000000000000${group}`, GroupName: group === 'a' ? 'default' : 'bastion' },
                ],
                AvailabilityZone: `${region}a`,
                VpcId: 'vpc-0123456789abcdef0',
                SubnetId: 'subnet-0123456789abcdef0',
              })),
            }),
            { NetworkInterfaces: [] },
          ),
        );
    },
  },
  {
    tool: 'aws_nat_gateways_audit',
    account: '2 NAT gateways in us-east-1, 1 in eu-west-1, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeNatGatewaysCommand)
        .callsFake(
          byRegion(
            (region) => ({
              NatGateways: Array.from({ length: region === 'us-east-1' ? 2 : 1 }, (_, n) => ({
                NatGatewayId: `nat-0${region.replaceAll('-', '')}${n}`,
                State: 'available' as const,
                ConnectivityType: 'public' as const,
                VpcId: 'vpc-0123456789abcdef0',
                SubnetId: 'subnet-0123456789abcdef0',
                CreateTime: CREATED,
                NatGatewayAddresses: [
                  {
                    AllocationId: `eipalloc-0nat${n}`,
                    PublicIp: `198.51.100.${20 + n}`,
                    PrivateIp: `10.0.0.${20 + n}`,
                    IsPrimary: true,
                    Status: 'succeeded' as const,
                  },
                ],
                Tags: [{ Key: 'Name', Value: `nat-${n}` }],
              })),
            }),
            { NatGateways: [] },
          ),
        );
      stubOf(CloudWatchClient).on(GetMetricDataCommand).callsFake(metricData);
    },
  },
  {
    tool: 'aws_rds_inventory',
    account: '2 DB instances in each of 2 regions, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf);
      stubOf(RDSClient)
        .on(DescribeDBInstancesCommand)
        .callsFake(
          byRegion(
            (region) => ({
              DBInstances: [
                { id: 'orders', hardened: true },
                { id: 'reporting', hardened: false },
              ].map(({ id, hardened }) => rdsInstance(`${id}-db`, region, hardened)),
            }),
            { DBInstances: [] },
          ),
        );
    },
  },
  {
    tool: 'aws_cloudtrail_coverage',
    account: 'one logging multi-region trail homed in us-east-1, 17 regions',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeCaller(stubOf);
      arrangeRegions(stubOf);
      const trailArn = `arn:aws:cloudtrail:us-east-1:${ACCOUNT_ID}:trail/management-events`;
      stubOf(CloudTrailClient)
        .on(DescribeTrailsCommand)
        .resolves({
          trailList: [
            {
              Name: 'management-events',
              TrailARN: trailArn,
              HomeRegion: 'us-east-1',
              S3BucketName: 'acme-cloudtrail-logs',
              IsMultiRegionTrail: true,
              IsOrganizationTrail: false,
              IncludeGlobalServiceEvents: true,
              LogFileValidationEnabled: true,
              KmsKeyId: `arn:aws:kms:us-east-1:${ACCOUNT_ID}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
              HasCustomEventSelectors: false,
              HasInsightSelectors: false,
            },
          ],
        })
        .on(GetTrailStatusCommand)
        .resolves({ IsLogging: true, LatestDeliveryTime: CREATED })
        .on(GetEventSelectorsCommand)
        .resolves({
          TrailARN: trailArn,
          EventSelectors: [{ ReadWriteType: 'All', IncludeManagementEvents: true, DataResources: [] }],
        });
    },
  },
  {
    tool: 'aws_s3_inventory',
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
  {
    tool: 'aws_iam_audit',
    account: 'root and 3 users, a fresh credential report, a password policy',
    args: {},
    arrange: (stubOf) => {
      arrangeCaller(stubOf);
      stubOf(IAMClient)
        .on(GenerateCredentialReportCommand)
        .resolves({
          State: 'COMPLETE',
          Description: 'No report exists. Starting a new report generation task',
        })
        .on(GetCredentialReportCommand)
        .resolves(credentialReportOutput(CREDENTIAL_REPORT_CSV, new Date()))
        .on(GetAccountPasswordPolicyCommand)
        .resolves({ PasswordPolicy: STRONG_PASSWORD_POLICY })
        // The facts that decide whether the root MFA control applies (IAM API reference).
        .on(GetAccountSummaryCommand)
        .resolves({
          SummaryMap: {
            Users: 3,
            AccountMFAEnabled: 1,
            AccountAccessKeysPresent: 0,
            AccountPasswordPresent: 1,
          },
        })
        .on(ListOrganizationsFeaturesCommand)
        .rejects(
          new AccountNotManagementOrDelegatedAdministratorException({
            message:
              'The request was rejected because the account making the request is not the management account',
            $metadata: { httpStatusCode: 400 },
          }),
        );
    },
  },
  {
    tool: 'aws_cost_breakdown',
    account: '4 services billed, previous period compared',
    args: {},
    arrange: (stubOf) => {
      stubOf(CostExplorerClient).on(GetCostAndUsageCommand).callsFake(costAndUsage);
    },
  },
  {
    tool: 'aws_cost_anomalies',
    account: 'one anomaly with one root cause',
    args: {},
    arrange: (stubOf) => {
      stubOf(CostExplorerClient)
        .on(GetAnomaliesCommand)
        .resolves({
          Anomalies: [
            {
              AnomalyId: '00000000-0000-0000-0000-000000000001',
              AnomalyStartDate: '2024-06-10',
              AnomalyEndDate: '2024-06-12',
              DimensionValue: 'Amazon Elastic Compute Cloud - Compute',
              RootCauses: [
                {
                  Service: 'Amazon Elastic Compute Cloud - Compute',
                  Region: 'us-east-1',
                  LinkedAccount: ACCOUNT_ID,
                  LinkedAccountName: 'acme-prod',
                  UsageType: 'BoxUsage:m5.xlarge',
                },
              ],
              AnomalyScore: { MaxScore: 0.91, CurrentScore: 0.4 },
              Impact: {
                MaxImpact: 310.5,
                TotalImpact: 512.25,
                TotalActualSpend: 1012.25,
                TotalExpectedSpend: 500,
                TotalImpactPercentage: 102.45,
              },
              MonitorArn: `arn:aws:ce::${ACCOUNT_ID}:anomalymonitor/11111111-2222-3333-4444-555555555555`,
              Feedback: 'YES',
            },
          ],
        });
    },
  },
  {
    tool: 'aws_compute_optimizer_recs',
    account: 'enrolled, nothing to recommend, 17 regions',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf);
      stubOf(ComputeOptimizerClient)
        .on(GetEC2InstanceRecommendationsCommand)
        .resolves({ instanceRecommendations: [], errors: [] })
        .on(GetEBSVolumeRecommendationsCommand)
        .resolves({ volumeRecommendations: [], errors: [] })
        .on(GetLambdaFunctionRecommendationsCommand)
        .resolves({ lambdaFunctionRecommendations: [] });
    },
  },
];
