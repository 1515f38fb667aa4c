/**
 * AWS's own documented example responses, transcribed as the SDK hands them to
 * a tool (timestamps as `Date`, as the SDK deserializes them). Each names where
 * it was read: the example embedded in the installed SDK's model documentation
 * (`node_modules/@aws-sdk/client-<service>/dist-types/commands/<Command>.d.ts`,
 * "response is"), or the AWS CLI Command Reference example (aws/aws-cli,
 * `awscli/examples/<service>/<command>.rst`, "Output"). The tests run every tool
 * on at least one of these, so its verdicts hold on shapes AWS documents, not
 * only on shapes we wrote.
 */
import type { GetTrailStatusCommandOutput, Trail } from '@aws-sdk/client-cloudtrail';
import type { GetCostAndUsageCommandOutput } from '@aws-sdk/client-cost-explorer';
import type {
  Address,
  Instance,
  NatGateway,
  NetworkInterface,
  SecurityGroup,
  Volume,
} from '@aws-sdk/client-ec2';
import type { ListOrganizationsFeaturesCommandOutput, PasswordPolicy } from '@aws-sdk/client-iam';
import type { DBInstance } from '@aws-sdk/client-rds';
import type { Bucket, GetBucketVersioningCommandOutput, OwnershipControls } from '@aws-sdk/client-s3';

/** `@aws-sdk/client-ec2` DescribeVolumesCommand, "To describe all volumes". */
export const DOCUMENTED_VOLUMES: Volume[] = [
  {
    Attachments: [
      {
        AttachTime: new Date('2013-12-18T22:35:00.000Z'),
        DeleteOnTermination: true,
        Device: '/dev/sda1',
        InstanceId: 'i-1234567890abcdef0',
        State: 'attached',
        VolumeId: 'vol-049df61146c4d7901',
      },
    ],
    AvailabilityZone: 'us-east-1a',
    CreateTime: new Date('2013-12-18T22:35:00.084Z'),
    Size: 8,
    SnapshotId: 'snap-1234567890abcdef0',
    State: 'in-use',
    VolumeId: 'vol-049df61146c4d7901',
    VolumeType: 'standard',
  },
];

/** `@aws-sdk/client-ec2` DescribeAddressesCommand, "To describe your Elastic IP addresses". */
export const DOCUMENTED_ADDRESSES: Address[] = [
  { Domain: 'standard', InstanceId: 'i-1234567890abcdef0', PublicIp: '198.51.100.0' },
  {
    AllocationId: 'eipalloc-12345678',
    AssociationId: 'eipassoc-12345678',
    Domain: 'vpc',
    InstanceId: 'i-1234567890abcdef0',
    NetworkInterfaceId: 'eni-12345678',
    NetworkInterfaceOwnerId: '123456789012',
    PrivateIpAddress: '10.0.1.241',
    PublicIp: '203.0.113.0',
  },
];

/** `@aws-sdk/client-ec2` DescribeNatGatewaysCommand, "To describe a NAT gateway". */
export const DOCUMENTED_NAT_GATEWAYS: NatGateway[] = [
  {
    CreateTime: new Date('2015-12-01T12:26:55.983Z'),
    NatGatewayAddresses: [
      {
        AllocationId: 'eipalloc-89c620ec',
        NetworkInterfaceId: 'eni-9dec76cd',
        PrivateIp: '10.0.0.149',
        PublicIp: '198.11.222.333',
      },
    ],
    NatGatewayId: 'nat-05dba92075d71c408',
    State: 'available',
    SubnetId: 'subnet-847e4dc2',
    VpcId: 'vpc-1a2b3c4d',
  },
];

/** `@aws-sdk/client-ec2` DescribeNetworkInterfacesCommand, "To describe a network interface" (trimmed to the fields the tools read). */
export const DOCUMENTED_NETWORK_INTERFACES: NetworkInterface[] = [
  {
    AvailabilityZone: 'us-east-1d',
    Description: 'my network interface',
    Groups: [{ GroupId: 'sg-8637d3e3', GroupName: 'default' }],
    NetworkInterfaceId: 'eni-e5aa89a3',
    OwnerId: '123456789012',
    PrivateIpAddress: '10.0.1.17',
    Status: 'in-use',
    SubnetId: 'subnet-b61f49f0',
    VpcId: 'vpc-a01106c2',
  },
];

/**
 * AWS CLI Command Reference, `ec2 describe-security-groups`, "To describe a
 * security group for EC2-VPC": all traffic from the group itself, SSH from
 * 203.0.113.0/24 — nothing open to the internet.
 */
export const DOCUMENTED_SECURITY_GROUPS: SecurityGroup[] = [
  {
    IpPermissionsEgress: [
      { IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }], UserIdGroupPairs: [], PrefixListIds: [] },
    ],
    Description: 'My security group',
    Tags: [{ Value: 'SG1', Key: 'Name' }],
    IpPermissions: [
      {
        IpProtocol: '-1',
        IpRanges: [],
        UserIdGroupPairs: [{ UserId: '123456789012', GroupId: 'sg-903004f8' }],
        PrefixListIds: [],
      },
      {
        PrefixListIds: [],
        FromPort: 22,
        IpRanges: [{ CidrIp: '203.0.113.0/24' }],
        ToPort: 22,
        IpProtocol: 'tcp',
        UserIdGroupPairs: [],
      },
    ],
    GroupName: 'MySecurityGroup',
    VpcId: 'vpc-1a2b3c4d',
    OwnerId: '123456789012',
    GroupId: 'sg-903004f8',
  },
];

/**
 * AWS CLI Command Reference, `ec2 describe-instances`, Example 8 ("the output is
 * truncated to show only the relevant pieces"): instances with no `State` at all.
 */
export const DOCUMENTED_INSTANCES: Instance[] = [
  {
    InstanceId: 'i-0123a456700123456',
    InstanceType: 'r4.large',
    Placement: {
      AvailabilityZone: 'us-east-1c',
      GroupName: 'HDFS-Group-A',
      PartitionNumber: 7,
      Tenancy: 'default',
    },
  },
  {
    InstanceId: 'i-9876a543210987654',
    InstanceType: 'r4.large',
    Placement: {
      AvailabilityZone: 'us-east-1c',
      GroupName: 'HDFS-Group-A',
      PartitionNumber: 7,
      Tenancy: 'default',
    },
  },
];

/**
 * `@aws-sdk/client-rds` DescribeDBInstancesCommand, "To describe a DB instance":
 * no StorageEncrypted, PubliclyAccessible, BackupRetentionPeriod, MultiAZ or
 * DeletionProtection in the answer.
 */
export const DOCUMENTED_DB_INSTANCES: DBInstance[] = [
  {
    DBInstanceClass: 'db.t3.small',
    DBInstanceIdentifier: 'mydbinstancecf',
    DBInstanceStatus: 'available',
    Endpoint: {
      Address: 'mydbinstancecf.abcexample.us-east-1.rds.amazonaws.com',
      HostedZoneId: 'Z2R2ITUGPM61AM',
      Port: 3306,
    },
    Engine: 'mysql',
    MasterUsername: 'admin',
  },
];

/** `@aws-sdk/client-s3` ListBucketsCommand, "To list all buckets". */
export const DOCUMENTED_BUCKETS: Bucket[] = [
  { CreationDate: new Date('2012-02-15T21:03:02.000Z'), Name: 'examplebucket' },
  { CreationDate: new Date('2011-07-24T19:33:50.000Z'), Name: 'examplebucket2' },
  { CreationDate: new Date('2010-12-17T00:56:49.000Z'), Name: 'examplebucket3' },
];
export const DOCUMENTED_BUCKETS_OWNER = {
  DisplayName: 'own-display-name',
  ID: 'examplee7a2f25102679df27bb0ae12b3f85be6f290b936c4393484be31',
};

/** AWS CLI Command Reference, `s3api get-bucket-location`. */
export const DOCUMENTED_BUCKET_LOCATION = { LocationConstraint: 'us-west-2' as const };

/** `@aws-sdk/client-s3` GetBucketVersioningCommand, "To get bucket versioning configuration". */
export const DOCUMENTED_BUCKET_VERSIONING: Pick<GetBucketVersioningCommandOutput, 'MFADelete' | 'Status'> = {
  MFADelete: 'Disabled',
  Status: 'Enabled',
};

/** AWS CLI Command Reference, `s3api get-bucket-ownership-controls`. */
export const DOCUMENTED_OWNERSHIP_CONTROLS: OwnershipControls = {
  Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }],
};

/**
 * `@aws-sdk/client-iam` GetAccountSummaryCommand, "To get information about IAM
 * entity quotas and usage in the current account" (SummaryMap; no
 * AccountPasswordPresent in this example).
 */
export const DOCUMENTED_ACCOUNT_SUMMARY: Record<string, number> = {
  AccessKeysPerUserQuota: 2,
  AccountAccessKeysPresent: 1,
  AccountMFAEnabled: 0,
  AccountSigningCertificatesPresent: 0,
  AttachedPoliciesPerGroupQuota: 10,
  AttachedPoliciesPerRoleQuota: 10,
  AttachedPoliciesPerUserQuota: 10,
  GlobalEndpointTokenVersion: 2,
  GroupPolicySizeQuota: 5120,
  Groups: 15,
  GroupsPerUserQuota: 10,
  GroupsQuota: 100,
  MFADevices: 6,
  MFADevicesInUse: 3,
  Policies: 8,
  PoliciesQuota: 1000,
  PolicySizeQuota: 5120,
  PolicyVersionsInUse: 22,
  PolicyVersionsInUseQuota: 10000,
  ServerCertificates: 1,
  ServerCertificatesQuota: 20,
  SigningCertificatesPerUserQuota: 2,
  UserPolicySizeQuota: 2048,
  Users: 27,
  UsersQuota: 5000,
  VersionsPerPolicyQuota: 5,
};

/** `@aws-sdk/client-iam` GetAccountPasswordPolicyCommand, "To see the current account password policy". */
export const DOCUMENTED_PASSWORD_POLICY: PasswordPolicy = {
  AllowUsersToChangePassword: false,
  ExpirePasswords: false,
  HardExpiry: false,
  MaxPasswordAge: 90,
  MinimumPasswordLength: 8,
  PasswordReusePrevention: 12,
  RequireLowercaseCharacters: false,
  RequireNumbers: true,
  RequireSymbols: true,
  RequireUppercaseCharacters: false,
};

/**
 * AWS CLI Command Reference, `iam list-organizations-features`: the management
 * account's view of centralized root access.
 */
export const DOCUMENTED_ORGANIZATIONS_FEATURES: Pick<
  ListOrganizationsFeaturesCommandOutput,
  'EnabledFeatures' | 'OrganizationId'
> = {
  EnabledFeatures: ['RootCredentialsManagement', 'RootSessions'],
  OrganizationId: 'o-aa111bb222',
};

/** AWS CLI Command Reference, `cloudtrail describe-trails`, "To describe a trail" (Trail1, Trail2). */
export const DOCUMENTED_TRAILS: Trail[] = [
  {
    IncludeGlobalServiceEvents: true,
    Name: 'Trail1',
    TrailARN: 'arn:aws:cloudtrail:us-east-1:123456789012:trail/Trail1',
    LogFileValidationEnabled: false,
    IsMultiRegionTrail: false,
    S3BucketName: 'my-bucket',
    CloudWatchLogsRoleArn: 'arn:aws:iam::123456789012:role/CloudTrail_CloudWatchLogs_Role',
    CloudWatchLogsLogGroupArn: 'arn:aws:logs:us-east-1:123456789012:log-group:CloudTrail:*',
    SnsTopicName: 'my-topic',
    HomeRegion: 'us-east-1',
  },
  {
    IncludeGlobalServiceEvents: true,
    Name: 'Trail2',
    S3KeyPrefix: 'my-prefix',
    TrailARN: 'arn:aws:cloudtrail:us-east-1:123456789012:trail/Trail2',
    LogFileValidationEnabled: false,
    IsMultiRegionTrail: false,
    S3BucketName: 'my-bucket',
    KmsKeyId: 'arn:aws:kms:us-east-1:123456789012:key/4c5ae5ac-3c13-421e-8335-c7868ef6a769',
    HomeRegion: 'us-east-1',
  },
];

/**
 * AWS CLI Command Reference, `cloudtrail get-trail-status`, "To get the status
 * of a trail" (epoch seconds as the CLI prints them, turned into Dates).
 */
export const DOCUMENTED_TRAIL_STATUS: Omit<GetTrailStatusCommandOutput, '$metadata'> = {
  LatestNotificationTime: new Date(1454022144869),
  LatestNotificationAttemptSucceeded: '2016-01-28T23:02:24Z',
  LatestDeliveryAttemptTime: '2016-01-28T23:02:24Z',
  LatestDeliveryTime: new Date(1454022144869),
  TimeLoggingStarted: '2015-11-06T18:36:38Z',
  LatestDeliveryAttemptSucceeded: '2016-01-28T23:02:24Z',
  IsLogging: true,
  LatestCloudWatchLogsDeliveryTime: new Date(1454022144918),
  StartLoggingTime: new Date(1446834998695),
  StopLoggingTime: new Date(1446834996933),
  LatestNotificationAttemptTime: '2016-01-28T23:02:24Z',
  TimeLoggingStopped: '2015-11-06T18:36:36Z',
};

/** AWS CLI Command Reference, `cloudtrail get-event-selectors`, "To view the event selector settings for a trail". */
export const DOCUMENTED_EVENT_SELECTORS = {
  EventSelectors: [{ IncludeManagementEvents: true, DataResources: [], ReadWriteType: 'All' as const }],
  TrailARN: 'arn:aws:cloudtrail:us-east-1:123456789012:trail/Trail1',
};

/**
 * AWS CLI Command Reference, `ce get-cost-and-usage`, "To retrieve the S3 usage
 * of an account for the month of September 2017" (grouped by SERVICE and the
 * Environment tag; `Total` empty, as Cost Explorer answers grouped queries).
 */
export const DOCUMENTED_COST_AND_USAGE: Omit<GetCostAndUsageCommandOutput, '$metadata'> = {
  GroupDefinitions: [
    { Type: 'DIMENSION', Key: 'SERVICE' },
    { Type: 'TAG', Key: 'Environment' },
  ],
  ResultsByTime: [
    {
      Estimated: false,
      TimePeriod: { Start: '2017-09-01', End: '2017-10-01' },
      Total: {},
      Groups: [
        {
          Keys: ['Amazon Simple Storage Service', 'Environment$'],
          Metrics: {
            BlendedCost: { Amount: '40.3527508453', Unit: 'USD' },
            UnblendedCost: { Amount: '40.3543773134', Unit: 'USD' },
            UsageQuantity: { Amount: '9312771.098461578', Unit: 'N/A' },
          },
        },
        {
          Keys: ['Amazon Simple Storage Service', 'Environment$Dev'],
          Metrics: {
            BlendedCost: { Amount: '0.2682364644', Unit: 'USD' },
            UnblendedCost: { Amount: '0.2682364644', Unit: 'USD' },
            UsageQuantity: { Amount: '22403.4395271182', Unit: 'N/A' },
          },
        },
      ],
    },
  ],
};
