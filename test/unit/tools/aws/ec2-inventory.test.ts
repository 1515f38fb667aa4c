import {
  DescribeInstancesCommand,
  type DescribeInstancesCommandInput,
  type DescribeInstancesCommandOutput,
  DescribeRegionsCommand,
  EC2Client,
  EC2ServiceException,
  type Instance,
} from '@aws-sdk/client-ec2';
import { AssumeRoleCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { BENCH_ACCOUNT } from '../../../../bench/aws-fixtures';
import { clearAssumedRoleCache } from '../../../../functions/runtime/aws/credentials';
import type { ToolResult } from '../../../../functions/runtime/result';
import { ec2InventoryTool, type InventoryInstance } from '../../../../functions/tools/aws/ec2-inventory';
import { type ApiCallCase, arrangeRegions } from '../../../helpers/api-call-case';
import { sdkTimeoutError } from '../../../helpers/aws-errors';
import {
  awsToolServices,
  EXAMPLE_AWS_SECRET,
  expectFailure,
  expectSuccess,
  runAwsTool,
} from '../../../helpers/aws-tool';
import { describeInstancesResponder } from '../../../helpers/ec2-pages';

/**
 * `aws_ec2_inventory`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** The cases of `aws_ec2_inventory`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_ec2_inventory',
    clients: [EC2Client],
    account: '10,000 instances in 17 regions, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf)
        .on(DescribeInstancesCommand)
        .callsFake(describeInstancesResponder(BENCH_ACCOUNT));
    },
  },
];

const ec2Mock = mockClient(EC2Client);
const stsMock = mockClient(STSClient);

/** One call, the tenant's `aws_default` being `awsSecret`. */
function inventory(
  args: unknown,
  awsSecret: Record<string, unknown> = EXAMPLE_AWS_SECRET,
): Promise<ToolResult> {
  return runAwsTool(ec2InventoryTool, args, { services: awsToolServices(awsSecret) });
}

/** An instance as DescribeInstances returns it (EC2 API reference, "Instance"). */
function instance(
  id: string,
  state: 'pending' | 'running' | 'stopped' | 'terminated',
  type: string,
  launched: string,
  extra: Partial<Instance> = {},
): Instance {
  const codes = { pending: 0, running: 16, terminated: 48, stopped: 80 };
  return {
    InstanceId: id,
    InstanceType: type as Instance['InstanceType'],
    State: { Code: codes[state], Name: state },
    LaunchTime: new Date(launched),
    ImageId: 'ami-0abcdef1234567890',
    PlatformDetails: 'Linux/UNIX',
    ...extra,
  };
}

/** Per region, the DescribeInstances pages in order (each page's reservations). */
type Account = Record<string, Instance[][]>;

const ACCOUNT: Account = {
  'eu-west-1': [
    [
      instance('i-0aa0000000000001', 'running', 't3.micro', '2023-03-01T09:00:00.000Z', {
        Tags: [
          { Key: 'Name', Value: 'web-1' },
          { Key: 'team', Value: 'shop' },
        ],
        PrivateIpAddress: '10.0.1.10',
        PublicIpAddress: '203.0.113.10',
      }),
      instance('i-0aa0000000000002', 'stopped', 'm5.large', '2021-06-15T12:30:00.000Z', {
        Tags: [{ Key: 'Name', Value: 'batch' }],
        PrivateIpAddress: '10.0.1.11',
      }),
    ],
    [
      instance('i-0aa0000000000003', 'running', 't3.micro', '2020-01-10T00:00:00.000Z', {
        PlatformDetails: 'Windows',
        PrivateIpAddress: '10.0.2.20',
      }),
    ],
  ],
  'us-east-1': [
    [
      instance('i-0bb0000000000001', 'running', 'm5.large', '2022-08-01T08:00:00.000Z'),
      instance('i-0bb0000000000002', 'terminated', 't3.micro', '2019-01-01T00:00:00.000Z'),
      instance('i-0bb0000000000003', 'stopped', 'c6g.xlarge', '2024-02-29T23:59:59.000Z'),
    ],
  ],
};

/**
 * The region of the client that sent a mocked command. `getClient` answers the
 * client of the latest `send`, so it must be read before anything is awaited:
 * regions run concurrently.
 */
function regionOf(getClient: () => EC2Client): Promise<string> {
  return getClient().config.region();
}

/**
 * Answers DescribeInstances from `account` for the calling client's region, one
 * page per call; `NextToken` is `<region>#<next page>` while pages remain. Each
 * page splits its instances over two reservations, as launches do.
 */
function serve(account: Account) {
  return async (input: DescribeInstancesCommandInput, getClient: () => EC2Client) => {
    const region = await regionOf(getClient);
    const pages = account[region] ?? [[]];
    const index = input.NextToken ? Number(input.NextToken.split('#')[1]) : 0;
    const instances = pages[index] ?? [];
    const output: DescribeInstancesCommandOutput = {
      $metadata: { httpStatusCode: 200, requestId: `req-${region}-${index}` },
      Reservations: [
        {
          ReservationId: `r-${region}-${index}-a`,
          OwnerId: '123456789012',
          Instances: instances.slice(0, 1),
        },
        { ReservationId: `r-${region}-${index}-b`, OwnerId: '123456789012', Instances: instances.slice(1) },
      ],
      ...(index + 1 < pages.length ? { NextToken: `${region}#${index + 1}` } : {}),
    };
    return output;
  };
}

function ec2Error(name: string, message: string, httpStatusCode: number): EC2ServiceException {
  return new EC2ServiceException({
    name,
    message,
    $fault: 'client',
    $metadata: { httpStatusCode, requestId: '5d9b4d6e-0000-4c4f-9d3d-1c2e3f4a5b6c' },
  });
}

interface InventoryValue {
  totalInstances: number;
  byState: Record<string, number>;
  byInstanceType: Record<string, number>;
  instances: InventoryInstance[];
  regions: Record<string, unknown>[];
  skippedRegions: string[];
}

const inventoryOf = (result: ToolResult) => expectSuccess(result).value as InventoryValue;

beforeEach(() => {
  ec2Mock.reset();
  stsMock.reset();
  clearAssumedRoleCache();
  // The harness logs each failure (stderr): keep the output to the test results.
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('aws_ec2_inventory', () => {
  it('counts instances by state and type across two regions, following NextToken', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).callsFake(serve(ACCOUNT));

    // Act
    const result = expectSuccess(await inventory({ regions: ['eu-west-1', 'us-east-1'] }));

    // Assess
    const value = result.value as InventoryValue;
    // The terminated instance is counted apart, in no total (issue 9, kind 5).
    expect(value.totalInstances).toBe(5);
    expect(value.byState).toEqual({ running: 3, stopped: 2 });
    expect(value.byInstanceType).toEqual({ 't3.micro': 2, 'm5.large': 2, 'c6g.xlarge': 1 });
    expect(value).toMatchObject({ endedInstances: 1, endedByState: { terminated: 1 } });
    expect(value.regions).toEqual([
      { region: 'eu-west-1', instanceCount: 3, pages: 2 },
      { region: 'us-east-1', instanceCount: 2, endedInstances: 1, pages: 1 },
    ]);
    expect(value.skippedRegions).toEqual([]);
    expect(result.truncated).toBe(false);
    expect(result.summary).toBe(
      '5 EC2 instances in 2 regions (3 running; 1 terminated or shutting down, not counted)',
    );
    const inputs = ec2Mock.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input);
    expect(inputs).toEqual(
      expect.arrayContaining([
        { MaxResults: 1000 },
        { MaxResults: 1000, NextToken: 'eu-west-1#1' },
        { MaxResults: 1000 },
      ]),
    );
    expect(inputs).toHaveLength(3);
  });

  it('lists the top N instances running first, oldest first, with their fields', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).callsFake(serve(ACCOUNT));

    // Act
    const value = inventoryOf(await inventory({ regions: ['eu-west-1', 'us-east-1'], topN: 4 }));

    // Assess
    expect(value.instances.map((i) => i.instanceId)).toEqual([
      'i-0aa0000000000003', // running, launched 2020
      'i-0bb0000000000001', // running, 2022
      'i-0aa0000000000001', // running, 2023
      'i-0aa0000000000002', // stopped, 2021: the oldest of the rest (the terminated one is never listed)
    ]);
    expect(value.instances[2]).toEqual({
      instanceId: 'i-0aa0000000000001',
      region: 'eu-west-1',
      name: 'web-1',
      instanceType: 't3.micro',
      state: 'running',
      launchTime: '2023-03-01T09:00:00.000Z',
      privateIpAddress: '10.0.1.10',
      publicIpAddress: '203.0.113.10',
      platform: 'Linux/UNIX',
    });
    expect(value.instances[0]).toMatchObject({ name: null, platform: 'Windows', publicIpAddress: null });
    // Counts cover every live instance, not only the listed ones.
    expect(value.totalInstances).toBe(5);
  });

  it('reports a region that denies access in that region only', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).callsFake(async (input, getClient) => {
      const client = getClient();
      if ((await regionOf(() => client)) === 'us-east-1') {
        throw ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', 403);
      }
      return serve(ACCOUNT)(input, () => client);
    });

    // Act
    const result = expectSuccess(await inventory({ regions: ['eu-west-1', 'us-east-1'] }));

    // Assess
    const value = result.value as InventoryValue;
    expect(value.regions).toEqual([
      { region: 'eu-west-1', instanceCount: 3, pages: 2 },
      {
        region: 'us-east-1',
        error: {
          code: 'access_denied',
          message: 'UnauthorizedOperation: You are not authorized to perform this operation.',
          retryable: false,
          service: 'ec2',
          details: {
            awsError: 'UnauthorizedOperation',
            requestId: '5d9b4d6e-0000-4c4f-9d3d-1c2e3f4a5b6c',
            httpStatusCode: 403,
          },
        },
      },
    ]);
    expect(value.byState).toEqual({ running: 2, stopped: 1 });
    expect(result.summary).toBe('3 EC2 instances in 2 regions (2 running); 1 region failed');
  });

  it('expands regions "all" through DescribeRegions, leaving out regions not opted in', async () => {
    // Prepare
    ec2Mock.on(DescribeRegionsCommand).resolves({
      Regions: [
        {
          RegionName: 'us-east-1',
          Endpoint: 'ec2.us-east-1.amazonaws.com',
          OptInStatus: 'opt-in-not-required',
        },
        { RegionName: 'me-south-1', Endpoint: 'ec2.me-south-1.amazonaws.com', OptInStatus: 'opted-in' },
        { RegionName: 'ap-east-1', Endpoint: 'ec2.ap-east-1.amazonaws.com', OptInStatus: 'not-opted-in' },
        {
          RegionName: 'eu-west-1',
          Endpoint: 'ec2.eu-west-1.amazonaws.com',
          OptInStatus: 'opt-in-not-required',
        },
      ],
    });
    const calledRegions: string[] = [];
    ec2Mock.on(DescribeInstancesCommand).callsFake(async (input, getClient) => {
      const client = getClient();
      calledRegions.push(await regionOf(() => client));
      return serve(ACCOUNT)(input, () => client);
    });

    // Act
    const result = expectSuccess(await inventory({ regions: 'all' }));

    // Assess
    const value = result.value as InventoryValue;
    expect(value.regions.map((r) => r.region)).toEqual(['eu-west-1', 'me-south-1', 'us-east-1']);
    expect(value.regions[1]).toEqual({ region: 'me-south-1', instanceCount: 0, pages: 1 });
    expect(calledRegions).not.toContain('ap-east-1');
    expect(ec2Mock.commandCalls(DescribeRegionsCommand).map((c) => c.args[0].input)).toEqual([
      { AllRegions: false },
    ]);
    expect(result.summary).toBe(
      '5 EC2 instances in 3 regions (3 running; 1 terminated or shutting down, not counted)',
    );
  });

  it('uses the tenant region when regions is omitted', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).callsFake(serve(ACCOUNT));

    // Act
    const value = inventoryOf(await inventory({}, { ...EXAMPLE_AWS_SECRET, region: 'us-east-1' }));

    // Assess
    expect(value.regions).toEqual([{ region: 'us-east-1', instanceCount: 2, endedInstances: 1, pages: 1 }]);
  });

  it('fails once with auth_failed when the credentials cannot be obtained, calling EC2 in no region', async () => {
    // Prepare
    stsMock.on(AssumeRoleCommand).rejects(
      new STSServiceException({
        name: 'InvalidClientTokenId',
        message: 'The security token included in the request is invalid.',
        $fault: 'client',
        $metadata: { httpStatusCode: 403, requestId: 'c6104cbe-af31-11e0-8154-cbc7ccf896c7' },
      }),
    );
    ec2Mock.on(DescribeInstancesCommand).callsFake(serve(ACCOUNT));

    // Act
    const result = expectFailure(
      await inventory(
        { regions: ['eu-west-1', 'us-east-1', 'us-west-2'] },
        { role_arn: 'arn:aws:iam::210987654321:role/etp-audit', external_id: 'etp-tenant-default' },
      ),
    );

    // Assess: an STS failure, labeled sts although the tool calls EC2.
    expect(result.error).toEqual({
      code: 'auth_failed',
      message: 'InvalidClientTokenId: The security token included in the request is invalid.',
      retryable: false,
      service: 'sts',
      details: {
        awsError: 'InvalidClientTokenId',
        requestId: 'c6104cbe-af31-11e0-8154-cbc7ccf896c7',
        httpStatusCode: 403,
      },
    });
    expect(stsMock.commandCalls(AssumeRoleCommand)).toHaveLength(1);
    expect(ec2Mock.calls()).toHaveLength(0);
  });

  it('reports an AssumeRole that timed out as an sts timeout, not an ec2 one', async () => {
    // Prepare
    stsMock.on(AssumeRoleCommand).rejects(sdkTimeoutError());
    ec2Mock.on(DescribeInstancesCommand).callsFake(serve(ACCOUNT));

    // Act
    const result = expectFailure(
      await inventory(
        { regions: ['eu-west-1'] },
        { role_arn: 'arn:aws:iam::210987654321:role/etp-audit', external_id: 'etp-tenant-default' },
      ),
    );

    // Assess
    expect(result.error).toMatchObject({ code: 'timeout', retryable: true, service: 'sts' });
    expect(result.error.message).toContain('the request socket timed out');
    expect(ec2Mock.calls()).toHaveLength(0);
  });

  it('assumes the tenant role once for every region, with the run as session name', async () => {
    // Prepare
    stsMock.on(AssumeRoleCommand).resolves({
      Credentials: {
        AccessKeyId: 'ASIAIOSFODNN7EXAMPLE',
        SecretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY',
        SessionToken: 'FwoGZXIvYXdzEXAMPLE',
        Expiration: new Date(Date.now() + 3_600_000),
      },
    });
    ec2Mock.on(DescribeInstancesCommand).callsFake(serve(ACCOUNT));

    // Act
    const value = inventoryOf(
      await inventory(
        { regions: ['eu-west-1', 'us-east-1'] },
        { role_arn: 'arn:aws:iam::210987654321:role/etp-audit', external_id: 'etp-tenant-default' },
      ),
    );

    // Assess
    expect(value.totalInstances).toBe(5);
    expect(stsMock.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input)).toEqual([
      {
        RoleArn: 'arn:aws:iam::210987654321:role/etp-audit',
        ExternalId: 'etp-tenant-default',
        RoleSessionName: 'etp-run-2024-05-01T00-00-00Z',
        DurationSeconds: 3600,
        SourceIdentity: 'etp.default',
        Tags: [
          { Key: 'etp-tenant', Value: 'default' },
          { Key: 'etp-scenario', Value: 'aws_pulse' },
          { Key: 'etp-run', Value: 'run-2024-05-01T00-00-00Z' },
        ],
      },
    ]);
  });

  it('stops at the page cap of 100 pages per region and marks the result truncated', async () => {
    // Prepare
    let served = 0;
    ec2Mock.on(DescribeInstancesCommand).callsFake(async () => {
      served++;
      return {
        Reservations: [
          {
            Instances: [
              instance(`i-${String(served).padStart(17, '0')}`, 'running', 't3.nano', '2024-01-01'),
            ],
          },
        ],
        NextToken: `token-${served}`,
      };
    });

    // Act
    const result = expectSuccess(await inventory({ regions: ['eu-west-1'], topN: 3 }));

    // Assess
    const value = result.value as InventoryValue;
    expect(result.truncated).toBe(true);
    expect(value.regions).toEqual([
      { region: 'eu-west-1', instanceCount: 100, pages: 100, stoppedBy: 'page_cap', nextToken: 'token-100' },
    ]);
    expect(value.instances).toHaveLength(3);
    expect(served).toBe(100);
    expect(result.summary).toBe('100 EC2 instances in 1 region (100 running); partial');
  });

  it('keeps the pages read when EC2 throttles a later page, with the token to resume from', async () => {
    // Prepare: two pages, then RequestLimitExceeded (after the SDK's own retries)
    ec2Mock
      .on(DescribeInstancesCommand)
      .resolvesOnce({
        Reservations: [{ Instances: [instance('i-0dd0000000000001', 'running', 't3.nano', '2024-01-01')] }],
        NextToken: 'page-2',
      })
      .resolvesOnce({
        Reservations: [{ Instances: [instance('i-0dd0000000000002', 'stopped', 't3.nano', '2024-01-02')] }],
        NextToken: 'page-3',
      })
      .rejects(ec2Error('RequestLimitExceeded', 'Request limit exceeded.', 503));

    // Act
    const result = expectSuccess(await inventory({ regions: ['eu-west-1'], topN: 5 }));

    // Assess: the two instances read, truncated, stoppedBy throttled, the next token and the error
    const value = result.value as InventoryValue;
    expect(result.truncated).toBe(true);
    expect(value.totalInstances).toBe(2);
    expect(value.regions).toEqual([
      {
        region: 'eu-west-1',
        instanceCount: 2,
        pages: 2,
        stoppedBy: 'throttled',
        nextToken: 'page-3',
        stopError: expect.objectContaining({
          code: 'throttled',
          retryable: true,
          details: expect.objectContaining({ awsError: 'RequestLimitExceeded' }),
        }),
      },
    ]);
    expect(result.summary).toBe('2 EC2 instances in 1 region (1 running); partial');
  });

  it('stops when a page repeats the previous NextToken instead of looping', async () => {
    // Prepare
    ec2Mock.on(DescribeInstancesCommand).resolves({
      Reservations: [{ Instances: [instance('i-0cc0000000000001', 'running', 't3.nano', '2024-01-01')] }],
      NextToken: 'same-token',
    });

    // Act
    const result = expectSuccess(await inventory({ regions: ['eu-west-1'] }));

    // Assess
    expect((result.value as InventoryValue).regions).toEqual([
      // The repeated page lists the same instance again: counted once.
      { region: 'eu-west-1', instanceCount: 1, duplicatesSkipped: 1, pages: 2, stoppedBy: 'repeated_token' },
    ]);
    expect(result.truncated).toBe(true);
  });
});
