/**
 * Generated EC2 accounts for scale tests and the benchmark: DescribeInstances
 * pages with the response shape of the EC2 API reference ("DescribeInstances",
 * "Reservation", "Instance"), built lazily page by page so a 10,000-instance
 * account costs memory only while a page is in flight, as real responses do.
 *
 * Instance attributes follow the instance's ordinal in the whole account (regions
 * in the order given), so account-wide counts are exact and easy to state:
 * state cycles over {@link STATE_CYCLE}, type over {@link INSTANCE_TYPE_CYCLE}.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  DescribeInstancesCommandInput,
  DescribeInstancesCommandOutput,
  Instance,
  InstanceStateName,
  Reservation,
} from '@aws-sdk/client-ec2';

/**
 * The 17 commercial regions enabled by default in every account (no opt-in),
 * as DescribeRegions lists them (AWS docs, "Specify which AWS Regions your account can use").
 */
export const DEFAULT_ENABLED_REGIONS: readonly string[] = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-central-1',
  'eu-north-1',
  'ap-south-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-southeast-1',
  'ap-southeast-2',
  'sa-east-1',
];

/** DescribeInstances returns at most 1,000 instances a page (EC2 API reference, "DescribeInstances", MaxResults). */
export const DESCRIBE_INSTANCES_MAX_RESULTS = 1000;

/** Instance states by account ordinal, repeating: 7 in 10 running, 2 stopped, 1 terminated. */
export const STATE_CYCLE: readonly InstanceStateName[] = [
  'running',
  'running',
  'stopped',
  'running',
  'running',
  'terminated',
  'running',
  'stopped',
  'running',
  'running',
];

/** Instance types by account ordinal, repeating: 3 in 8 t3.micro, 2 t3.large, 1 each of the others. */
export const INSTANCE_TYPE_CYCLE: readonly string[] = [
  't3.micro',
  't3.large',
  'm5.xlarge',
  't3.micro',
  'c5.2xlarge',
  't3.large',
  'r6g.large',
  't3.micro',
];

/** State codes (EC2 API reference, "InstanceState": the low byte). */
const STATE_CODES: Readonly<Record<string, number>> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};

/** Instances launched together share a reservation; a page never splits one. */
const INSTANCES_PER_RESERVATION = 2;

const OWNER_ID = '123456789012';

/** A generated account: how many instances each region holds, and the page size its API uses. */
export interface Ec2Account {
  /** Region → instance count, in the order ordinals are assigned. */
  readonly instancesByRegion: Readonly<Record<string, number>>;
  /** Instances per DescribeInstances page. @default {@link DESCRIBE_INSTANCES_MAX_RESULTS} */
  readonly pageSize: number;
}

/**
 * An account of `total` instances spread unevenly over `regions`, Zipf-like: the
 * k-th region holds about 1/k of the first's share (the first takes the rounding
 * remainder), the way real accounts concentrate in one or two home regions.
 *
 * @example
 * unevenAccount(10_000, DEFAULT_ENABLED_REGIONS).instancesByRegion['us-east-1']; // 2,915
 */
export function unevenAccount(
  total: number,
  regions: readonly string[],
  pageSize: number = DESCRIBE_INSTANCES_MAX_RESULTS,
): Ec2Account {
  const weights = regions.map((_, k) => 1 / (k + 1));
  const weightSum = weights.reduce((sum, w) => sum + w, 0);
  const counts = weights.map((w) => Math.floor((total * w) / weightSum));
  counts[0] = (counts[0] ?? 0) + total - counts.reduce((sum, c) => sum + c, 0);
  return {
    instancesByRegion: Object.fromEntries(regions.map((region, k) => [region, counts[k] ?? 0])),
    pageSize,
  };
}

/** Pages DescribeInstances returns for `region`: at least one, empty when the region holds nothing. */
export function pagesIn(account: Ec2Account, region: string): number {
  return Math.max(1, Math.ceil((account.instancesByRegion[region] ?? 0) / account.pageSize));
}

/** Total instances in the account. */
export function instanceCount(account: Ec2Account): number {
  return Object.values(account.instancesByRegion).reduce((sum, n) => sum + n, 0);
}

function firstOrdinalOf(account: Ec2Account, region: string): number {
  let ordinal = 0;
  for (const [name, count] of Object.entries(account.instancesByRegion)) {
    if (name === region) return ordinal;
    ordinal += count;
  }
  throw new Error(`Region ${region} is not in the generated account`);
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** One instance with the fields DescribeInstances returns for an EBS-backed VPC instance. */
function instanceAt(region: string, ordinal: number): Instance {
  const state = STATE_CYCLE[ordinal % STATE_CYCLE.length] as InstanceStateName;
  const instanceType = INSTANCE_TYPE_CYCLE[ordinal % INSTANCE_TYPE_CYCLE.length] as string;
  const privateIp = `10.${(ordinal >> 16) & 255}.${(ordinal >> 8) & 255}.${ordinal & 255}`;
  const instanceId = `i-${hex(ordinal, 17)}`;
  const running = state === 'running';
  return {
    AmiLaunchIndex: 0,
    ImageId: 'ami-0abcdef1234567890',
    InstanceId: instanceId,
    InstanceType: instanceType as Instance['InstanceType'],
    KeyName: 'ops',
    // One launch a minute from 2024-01-01: distinct, ordered, reproducible.
    LaunchTime: new Date(Date.UTC(2024, 0, 1) + ordinal * 60_000),
    Monitoring: { State: 'disabled' },
    Placement: { AvailabilityZone: `${region}a`, GroupName: '', Tenancy: 'default' },
    PrivateDnsName: `ip-${privateIp.replaceAll('.', '-')}.${region}.compute.internal`,
    PrivateIpAddress: privateIp,
    ProductCodes: [],
    PublicDnsName: '',
    ...(running && ordinal % 4 === 0
      ? { PublicIpAddress: `203.0.${(ordinal >> 8) & 255}.${ordinal & 255}` }
      : {}),
    State: { Code: STATE_CODES[state], Name: state },
    StateTransitionReason: running ? '' : 'User initiated (2024-06-01 12:00:00 GMT)',
    SubnetId: 'subnet-0123456789abcdef0',
    VpcId: 'vpc-0123456789abcdef0',
    Architecture: instanceType.startsWith('r6g') ? 'arm64' : 'x86_64',
    BlockDeviceMappings: [
      {
        DeviceName: '/dev/xvda',
        Ebs: {
          AttachTime: new Date(Date.UTC(2024, 0, 1) + ordinal * 60_000),
          DeleteOnTermination: true,
          Status: 'attached',
          VolumeId: `vol-${hex(ordinal, 17)}`,
        },
      },
    ],
    ClientToken: '',
    EbsOptimized: true,
    EnaSupport: true,
    Hypervisor: 'xen',
    NetworkInterfaces: [
      {
        Attachment: { AttachmentId: `eni-attach-${hex(ordinal, 17)}`, DeviceIndex: 0, Status: 'attached' },
        Description: '',
        Groups: [{ GroupName: 'default', GroupId: 'sg-0123456789abcdef0' }],
        MacAddress: '02:00:00:00:00:00',
        NetworkInterfaceId: `eni-${hex(ordinal, 17)}`,
        OwnerId: OWNER_ID,
        PrivateIpAddress: privateIp,
        SourceDestCheck: true,
        Status: 'in-use',
        SubnetId: 'subnet-0123456789abcdef0',
        VpcId: 'vpc-0123456789abcdef0',
      },
    ],
    RootDeviceName: '/dev/xvda',
    RootDeviceType: 'ebs',
    SecurityGroups: [{ GroupName: 'default', GroupId: 'sg-0123456789abcdef0' }],
    SourceDestCheck: true,
    Tags: [
      { Key: 'Name', Value: `app-${ordinal}` },
      { Key: 'Environment', Value: ordinal % 3 === 0 ? 'production' : 'staging' },
    ],
    VirtualizationType: 'hvm',
    CpuOptions: { CoreCount: 1, ThreadsPerCore: 2 },
    PlatformDetails: 'Linux/UNIX',
    UsageOperation: 'RunInstances',
    MetadataOptions: { State: 'applied', HttpTokens: 'required', HttpEndpoint: 'enabled' },
  };
}

/** Token for `page` (0-based) of `region`; the region is in it so a token from elsewhere fails loudly. */
function tokenFor(region: string, page: number): string {
  return `${region}/page/${page}`;
}

/**
 * The DescribeInstances page that answers `NextToken` (undefined: the first page)
 * in `region`, with `NextToken` set unless it is the last page.
 *
 * @throws Error for a token that this account did not issue for this region.
 */
export function describeInstancesPage(
  account: Ec2Account,
  region: string,
  nextToken?: string,
): DescribeInstancesCommandOutput {
  const page = nextToken === undefined ? 0 : Number(nextToken.slice(`${region}/page/`.length));
  if (nextToken !== undefined && (nextToken !== tokenFor(region, page) || page >= pagesIn(account, region))) {
    throw new Error(`NextToken ${nextToken} was not issued for ${region}`);
  }
  const inRegion = account.instancesByRegion[region] ?? 0;
  const first = page * account.pageSize;
  const last = Math.min(inRegion, first + account.pageSize);
  const base = firstOrdinalOf(account, region);
  const reservations: Reservation[] = [];
  for (let index = first; index < last; index += INSTANCES_PER_RESERVATION) {
    const instances: Instance[] = [];
    for (let i = index; i < Math.min(last, index + INSTANCES_PER_RESERVATION); i++) {
      instances.push(instanceAt(region, base + i));
    }
    reservations.push({
      ReservationId: `r-${hex(base + index, 17)}`,
      OwnerId: OWNER_ID,
      Groups: [],
      Instances: instances,
    });
  }
  const more = page + 1 < pagesIn(account, region);
  return {
    $metadata: { httpStatusCode: 200, requestId: `req-${region}-${page}`, attempts: 1 },
    Reservations: reservations,
    ...(more ? { NextToken: tokenFor(region, page + 1) } : {}),
  };
}

/** What {@link describeInstancesResponder} simulates besides the data. */
export interface ResponderOptions {
  /** Delay before each page resolves, in ms (network and service time). @default 0 */
  readonly latencyMs?: number;
  /**
   * Generate each page once and answer later calls with the same object, so a
   * benchmark's timed runs spend no CPU on generation (the pages then stay in memory).
   * @default false
   */
  readonly reusePages?: boolean;
}

/** The client as aws-sdk-client-mock's `callsFake` hands it over: only its resolved region is read. */
interface RegionalClient {
  readonly config: { region: string | (() => Promise<string>) };
}

/**
 * The region of the SDK client that sent a mocked command (`getClient` of
 * aws-sdk-client-mock's `callsFake`): regional tools create one client per region.
 */
export async function mockedClientRegion(getClient: () => unknown): Promise<string> {
  const { region } = (getClient() as RegionalClient).config;
  return typeof region === 'function' ? region() : region;
}

/**
 * A `callsFake` implementation for `mockClient(EC2Client).on(DescribeInstancesCommand)`:
 * answers each call from the account, for the region of the client that sent it,
 * after `latencyMs`.
 *
 * @example
 * ec2Mock.on(DescribeInstancesCommand).callsFake(describeInstancesResponder(account, { latencyMs: 50 }));
 */
export function describeInstancesResponder(
  account: Ec2Account,
  options: ResponderOptions = {},
): (
  input: DescribeInstancesCommandInput,
  getClient: () => unknown,
) => Promise<DescribeInstancesCommandOutput> {
  const generated = new Map<string, DescribeInstancesCommandOutput>();
  return async (input, getClient) => {
    const name = await mockedClientRegion(getClient);
    if (options.latencyMs) await sleep(options.latencyMs);
    if (!options.reusePages) return describeInstancesPage(account, name, input.NextToken);
    const key = `${name} ${input.NextToken ?? ''}`;
    let page = generated.get(key);
    if (!page) {
      page = describeInstancesPage(account, name, input.NextToken);
      generated.set(key, page);
    }
    return page;
  };
}
