/**
 * A generated account of about 1,000 resources for the aws_pulse benchmark
 * (bench/scenario-run.ts): every AWS audit answered with the API references'
 * shapes (bench/api-call-cases.ts for the small parts), the resource-heavy ones
 * generated at scale in four home regions of the 17 enabled by default, with a
 * realistic share of findings (unattached volumes, unassociated addresses,
 * groups open to the internet, unhardened databases, stale IAM keys).
 */
import {
  DescribeAddressesCommand,
  DescribeInstancesCommand,
  DescribeNetworkInterfacesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSnapshotsCommand,
  DescribeVolumesCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { GetCredentialReportCommand, IAMClient } from '@aws-sdk/client-iam';
import { DescribeDBInstancesCommand, RDSClient } from '@aws-sdk/client-rds';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { CREDENTIAL_REPORT_HEADER, credentialReportOutput } from '../test/helpers/credential-report';
import { describeInstancesResponder, mockedClientRegion } from '../test/helpers/ec2-pages';
import { API_CALL_CASES, type StubOf } from './api-call-cases';
import { ACCOUNT_ID, CREATED, rdsInstance } from './aws-fixtures';

/** Where the account's resources live: its home regions (the other enabled regions are empty). */
export const HOME_REGIONS = ['us-east-1', 'eu-west-1', 'us-west-2', 'ap-southeast-2'] as const;

/** How many resources of each kind the account holds (about 1,000 in all). */
export const ACCOUNT_SIZE = {
  instances: 400,
  volumes: 200,
  snapshots: 40,
  addresses: 40,
  securityGroups: 120,
  networkInterfaces: 60,
  databases: 40,
  buckets: 60,
  iamUsers: 40,
} as const;

/** The resource count of {@link ACCOUNT_SIZE} (NAT gateways, the trail and cost data come from the small cases). */
export const RESOURCE_COUNT = Object.values(ACCOUNT_SIZE).reduce((sum, n) => sum + n, 0);

/** `n` items spread over the home regions: the items of `region`, each with its global index. */
function inRegion<T>(n: number, region: string, make: (index: number) => T): T[] {
  const slot = HOME_REGIONS.indexOf(region as (typeof HOME_REGIONS)[number]);
  if (slot < 0) return [];
  return Array.from({ length: n }, (_, index) => index)
    .filter((index) => index % HOME_REGIONS.length === slot)
    .map(make);
}

/** Answers per region of the client that asked. */
function perRegion<T>(make: (region: string) => T) {
  return async (_input: unknown, getClient: () => unknown): Promise<T> =>
    make(await mockedClientRegion(getClient));
}

function volumes(region: string) {
  return {
    Volumes: inRegion(ACCOUNT_SIZE.volumes, region, (n) => {
      const attached = n % 5 !== 0;
      return {
        VolumeId: `vol-${String(n).padStart(17, '0')}`,
        Size: 50 + (n % 10) * 50,
        VolumeType: n % 3 === 0 ? ('gp2' as const) : ('gp3' as const),
        State: attached ? ('in-use' as const) : ('available' as const),
        Encrypted: n % 7 !== 0,
        AvailabilityZone: `${region}a`,
        CreateTime: CREATED,
        Iops: 3000,
        Attachments: attached
          ? [
              {
                VolumeId: `vol-${String(n).padStart(17, '0')}`,
                InstanceId: `i-${String(n).padStart(17, '0')}`,
                State: 'attached' as const,
                AttachTime: CREATED,
                Device: '/dev/xvda',
                DeleteOnTermination: true,
              },
            ]
          : [],
      };
    }),
  };
}

function snapshots(region: string) {
  return {
    Snapshots: inRegion(ACCOUNT_SIZE.snapshots, region, (n) => ({
      SnapshotId: `snap-${String(n).padStart(17, '0')}`,
      VolumeId: `vol-${String(n).padStart(17, '0')}`,
      VolumeSize: 100,
      State: 'completed' as const,
      StartTime: CREATED,
      Encrypted: n % 4 !== 0,
      OwnerId: ACCOUNT_ID,
      Description: `backup ${n}`,
    })),
  };
}

function addresses(region: string) {
  return {
    Addresses: inRegion(ACCOUNT_SIZE.addresses, region, (n) => ({
      PublicIp: `198.51.${Math.floor(n / 250)}.${n % 250}`,
      AllocationId: `eipalloc-${String(n).padStart(17, '0')}`,
      ...(n % 4 === 0
        ? {}
        : { AssociationId: `eipassoc-${n}`, InstanceId: `i-${String(n).padStart(17, '0')}` }),
      Domain: 'vpc' as const,
      PublicIpv4Pool: 'amazon',
      NetworkBorderGroup: region,
    })),
  };
}

const rule = (port: number, cidr: string) => ({
  IpProtocol: 'tcp',
  FromPort: port,
  ToPort: port,
  IpRanges: [{ CidrIp: cidr }],
  Ipv6Ranges: [],
  PrefixListIds: [],
  UserIdGroupPairs: [],
});

function securityGroups(region: string) {
  return {
    SecurityGroups: inRegion(ACCOUNT_SIZE.securityGroups, region, (n) => ({
      GroupId: `sg-${String(n).padStart(17, '0')}`,
      GroupName: `group-${n}`,
      Description: `group ${n}`,
      OwnerId: ACCOUNT_ID,
      VpcId: 'vpc-0123456789abcdef0',
      IpPermissions: [
        rule(443, '10.0.0.0/8'),
        ...(n % 6 === 0 ? [rule(n % 12 === 0 ? 22 : 3389, '0.0.0.0/0')] : []),
      ],
      IpPermissionsEgress: [],
    })),
  };
}

function networkInterfaces(region: string) {
  return {
    NetworkInterfaces: inRegion(ACCOUNT_SIZE.networkInterfaces, region, (n) => ({
      NetworkInterfaceId: `eni-${String(n).padStart(17, '0')}`,
      Status: 'in-use' as const,
      Groups: [{ GroupId: `sg-${String(n).padStart(17, '0')}`, GroupName: `group-${n}` }],
      AvailabilityZone: `${region}a`,
      VpcId: 'vpc-0123456789abcdef0',
      SubnetId: 'subnet-0123456789abcdef0',
    })),
  };
}

function databases(region: string) {
  return {
    DBInstances: inRegion(ACCOUNT_SIZE.databases, region, (n) =>
      rdsInstance(`db-${n}`, region, n % 3 !== 0, n % 2 ? 'postgres' : 'mysql'),
    ),
  };
}

/** A credential report row per user: every fifth with an old active key, every third without MFA. */
function credentialReport(): string {
  const users = Array.from({ length: ACCOUNT_SIZE.iamUsers }, (_, n) => {
    const mfa = n % 3 !== 0;
    const staleKey = n % 5 === 0;
    return [
      `user-${n}`,
      `arn:aws:iam::${ACCOUNT_ID}:user/user-${n}`,
      '2021-02-01T00:00:00+00:00',
      'true',
      '2024-06-01T08:00:00+00:00',
      '2024-01-01T00:00:00+00:00',
      'N/A',
      String(mfa),
      'true',
      staleKey ? '2021-02-01T00:00:00+00:00' : '2024-05-01T00:00:00+00:00',
      '2024-06-01T08:00:00+00:00',
      'us-east-1',
      's3',
      'false',
      'N/A',
      'N/A',
      'N/A',
      'N/A',
      'false',
      'N/A',
      'false',
      'N/A',
    ].join(',');
  });
  return [
    CREDENTIAL_REPORT_HEADER,
    `<root_account>,arn:aws:iam::${ACCOUNT_ID}:root,2020-01-01T00:00:00+00:00,not_supported,2024-05-01T10:00:00+00:00,not_supported,not_supported,true,false,N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A`,
    ...users,
  ].join('\n');
}

/**
 * Sets the responses of every AWS call of the AWS audits: the small cases of
 * bench/api-call-cases.ts first, then the generated resources over them.
 */
export function arrangeAccount(stubOf: StubOf): void {
  for (const testCase of API_CALL_CASES) testCase.arrange(stubOf);
  const instancesByRegion = Object.fromEntries(
    HOME_REGIONS.map((region) => [region, ACCOUNT_SIZE.instances / HOME_REGIONS.length]),
  );
  stubOf(EC2Client)
    .on(DescribeInstancesCommand)
    .callsFake(describeInstancesResponder({ instancesByRegion, pageSize: 1000 }))
    .on(DescribeVolumesCommand)
    .callsFake(perRegion(volumes))
    .on(DescribeSnapshotsCommand)
    .callsFake(perRegion(snapshots))
    .on(DescribeAddressesCommand)
    .callsFake(perRegion(addresses))
    .on(DescribeSecurityGroupsCommand)
    .callsFake(perRegion(securityGroups))
    .on(DescribeNetworkInterfacesCommand)
    .callsFake(perRegion(networkInterfaces));
  stubOf(RDSClient).on(DescribeDBInstancesCommand).callsFake(perRegion(databases));
  stubOf(S3Client)
    .on(ListBucketsCommand)
    .resolves({
      Buckets: Array.from({ length: ACCOUNT_SIZE.buckets }, (_, n) => ({
        Name: `acme-data-${n}`,
        CreationDate: CREATED,
        BucketRegion: HOME_REGIONS[n % HOME_REGIONS.length],
      })),
      Owner: { ID: 'a1b2c3d4e5f6' },
    });
  stubOf(IAMClient)
    .on(GetCredentialReportCommand)
    .resolves(credentialReportOutput(credentialReport(), new Date()));
}
