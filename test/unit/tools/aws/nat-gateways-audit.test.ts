import {
  CloudWatchClient,
  CloudWatchServiceException,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { DescribeNatGatewaysCommand, EC2Client, type NatGateway } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { CREATED } from '../../../../bench/aws-fixtures';
import { redact } from '../../../../functions/runtime/redact';
import {
  type NatGatewaysAuditValue,
  natGatewaysAuditTool,
} from '../../../../functions/tools/aws/nat-gateways-audit';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';
import { ec2Error } from '../../../helpers/aws-errors';
import { expectSuccess, runAwsTool } from '../../../helpers/aws-tool';
import { mockedClientRegion } from '../../../helpers/ec2-pages';

/**
 * `aws_nat_gateways_audit`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** CloudWatch GetMetricData (CloudWatch API reference): 2 GB a day for every query, 14 days. */
function twoGigabytesADay(input: GetMetricDataCommandInput) {
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

/** The cases of `aws_nat_gateways_audit`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_nat_gateways_audit',
    clients: [EC2Client, CloudWatchClient],
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
      stubOf(CloudWatchClient).on(GetMetricDataCommand).callsFake(twoGigabytesADay);
    },
  },
];

const ec2Mock = mockClient(EC2Client);
const cloudwatchMock = mockClient(CloudWatchClient);

/** A call that must have succeeded (the tenant's aws_default: the AWS docs' example keys). */
async function succeeded(args: Record<string, unknown>) {
  return expectSuccess<NatGatewaysAuditValue>(await runAwsTool(natGatewaysAuditTool, args));
}

const NOW = Date.parse('2024-06-15T10:30:00.000Z');
const GIB = 1024 ** 3;

/** A DescribeNatGateways item as the EC2 API reference shows it ("NatGateway"). */
function gateway(id: string, created: string, connectivityType: 'public' | 'private' = 'public'): NatGateway {
  return {
    NatGatewayId: id,
    CreateTime: new Date(created),
    State: 'available',
    ConnectivityType: connectivityType,
    SubnetId: 'subnet-0123456789abcdef0',
    VpcId: 'vpc-0123456789abcdef0',
    NatGatewayAddresses: [
      {
        AllocationId: connectivityType === 'public' ? 'eipalloc-0123456789abcdef0' : undefined,
        NetworkInterfaceId: 'eni-0123456789abcdef0',
        PrivateIp: '10.0.0.12',
        ...(connectivityType === 'public' ? { PublicIp: '203.0.113.12' } : {}),
        IsPrimary: true,
        Status: 'succeeded',
      },
    ],
    Tags: [{ Key: 'Name', Value: id }],
  };
}

/** Daily `Sum` datapoints per gateway and metric, as CloudWatch would return them. */
const TRAFFIC: Record<string, Record<string, number[]>> = {
  'nat-0aaaaaaaaaaaaaaa1': { BytesInFromSource: [1_000_000, 2_000_000], BytesInFromDestination: [500_000] },
  'nat-0bbbbbbbbbbbbbbb2': { BytesInFromSource: [200 * GIB], BytesInFromDestination: [136 * GIB] },
  'nat-0ccccccccccccccc3': {},
};

/** Answers GetMetricData from {@link TRAFFIC}, one result per query as the CloudWatch API reference shows. */
function metricData(input: GetMetricDataCommandInput) {
  const results: MetricDataResult[] = (input.MetricDataQueries ?? []).map((query) => {
    const metric = query.MetricStat?.Metric;
    const gatewayId = metric?.Dimensions?.[0]?.Value ?? '';
    const values = TRAFFIC[gatewayId]?.[metric?.MetricName ?? ''] ?? [];
    return {
      Id: query.Id,
      Label: metric?.MetricName,
      Timestamps: values.map((_, day) => new Date(Date.parse('2024-06-01T10:00:00.000Z') + day * 86_400_000)),
      Values: values,
      StatusCode: 'Complete',
    };
  });
  return { MetricDataResults: results, Messages: [] };
}

beforeEach(() => {
  ec2Mock.reset();
  cloudwatchMock.reset();
  jest.spyOn(Date, 'now').mockReturnValue(NOW);
  ec2Mock.on(DescribeNatGatewaysCommand).resolves({
    NatGateways: [
      gateway('nat-0aaaaaaaaaaaaaaa1', '2024-01-01T00:00:00.000Z'),
      gateway('nat-0bbbbbbbbbbbbbbb2', '2024-02-01T00:00:00.000Z'),
      gateway('nat-0ccccccccccccccc3', '2024-06-15T00:00:00.000Z', 'private'),
    ],
  });
  cloudwatchMock.on(GetMetricDataCommand).callsFake(metricData);
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('aws_nat_gateways_audit', () => {
  it('sums processed bytes over the window, prices each gateway and flags the idle one (us-east-1 prices)', async () => {
    // Act
    const { value, truncated, summary } = await succeeded({ regions: ['us-east-1'] });

    // Assess
    expect(truncated).toBe(false);
    expect(redact(value)).toEqual(value); // no field name or value is masked on its way out
    expect(value).toMatchObject({
      gateways: 3,
      idleGateways: 1,
      // nat-0ccc3 has no datapoint at all (10 hours old): unknown, never zero.
      gatewaysWithoutMetrics: 1,
      gatewaysWithoutDatapoints: 1,
      byConnectivityType: { public: 2, private: 1 },
      processedBytes: 3_500_000 + 336 * GIB,
      estimatedMonthlyUsd: 131.4, // 3 × 730 h × $0.045, plus 336 GiB in 336 h → 730 GB/month × $0.045
      window: { start: '2024-06-01T10:00:00.000Z', end: '2024-06-15T10:00:00.000Z', days: 14 },
      idleBytesThreshold: GIB,
      priceSource:
        'Amazon VPC pricing, NAT Gateway, per region (price table 2026-11); estimate unavailable outside the table',
    });
    expect(
      value.natGateways.map((g) => [
        g.natGatewayId,
        g.estimatedMonthlyUsd,
        g.observedDays,
        g.idle,
        g.traffic,
      ]),
    ).toEqual([
      ['nat-0bbbbbbbbbbbbbbb2', 65.7, 14, false, 'measured'],
      ['nat-0aaaaaaaaaaaaaaa1', 32.85, 14, true, 'measured'],
      ['nat-0ccccccccccccccc3', 32.85, 0.42, null, 'no_datapoints'], // 10 hours old, no datapoint: not judged
    ]);
    expect(value.findings).toMatchObject({ total: 1, estimatedMonthlyCostUsd: 32.85 });
    expect(value.findings.top[0]).toMatchObject({
      id: findingId('nat_gateway_idle', 'us-east-1', 'nat-0aaaaaaaaaaaaaaa1'),
      check: 'nat_gateway_idle',
      severity: 'medium',
      resource: 'nat-0aaaaaaaaaaaaaaa1',
      title:
        'NAT gateway nat-0aaaaaaaaaaaaaaa1 processed 3.3 MiB in 14 days (idle at or below 1073741824 bytes) ' +
        'and costs about $32.85/month',
      monthlyCost: {
        usd: 32.85,
        priceSource: 'Amazon VPC pricing, NAT Gateway, us-east-1 (price table 2026-11)',
      },
      details: { processedBytes: 3_500_000 },
    });
    expect(summary).toBe(
      '3 NAT gateways (1 idle over 14 days, ~$131.40/month in all, traffic unknown for 1) in 1 region: ' +
        '1 finding (0 critical, 0 high), ' +
        '~$32.85/month to save',
    );
    // One GetMetricData request: two daily Sum queries per gateway over the window.
    const calls = cloudwatchMock.commandCalls(GetMetricDataCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]?.args[0].input;
    expect(input?.StartTime).toEqual(new Date('2024-06-01T10:00:00.000Z'));
    expect(input?.EndTime).toEqual(new Date('2024-06-15T10:00:00.000Z'));
    expect(input?.MetricDataQueries).toHaveLength(6);
    expect(input?.MetricDataQueries?.[1]).toEqual({
      Id: 'g0m1',
      MetricStat: {
        Metric: {
          Namespace: 'AWS/NATGateway',
          MetricName: 'BytesInFromDestination',
          Dimensions: [{ Name: 'NatGatewayId', Value: 'nat-0aaaaaaaaaaaaaaa1' }],
        },
        Period: 86_400,
        Stat: 'Sum',
      },
      ReturnData: true,
    });
    // Every state is listed, so gateways on their way out can be counted apart.
    expect(ec2Mock.commandCalls(DescribeNatGatewaysCommand)[0]?.args[0].input).toEqual({ MaxResults: 1000 });
  });

  it('does not judge a gateway whose metric queries CloudWatch left unanswered (Messages: metrics exceeded)', async () => {
    // Prepare: GetMetricData runs "as much of the operation as possible" and says why in Messages
    // (CloudWatch API reference, "GetMetricData"): here BytesInFromDestination of nat-0aaa1 is missing.
    cloudwatchMock.on(GetMetricDataCommand).callsFake((input: GetMetricDataCommandInput) => {
      const answer = metricData(input);
      return {
        MetricDataResults: answer.MetricDataResults.filter((result) => result.Id !== 'g0m1'),
        Messages: [{ Code: 'MaxMetricsExceeded', Value: 'Maximum number of allowed metrics exceeded' }],
      };
    });

    // Act
    const { value, summary } = await succeeded({ regions: ['us-east-1'] });

    // Assess: half of nat-0aaa1's traffic is not its traffic; it is unknown, not idle.
    const first = value.natGateways.find((g) => g.natGatewayId === 'nat-0aaaaaaaaaaaaaaa1');
    expect(first).toMatchObject({ traffic: 'unavailable', processedBytes: null, idle: null });
    expect(value.natGateways.find((g) => g.natGatewayId === 'nat-0bbbbbbbbbbbbbbb2')).toMatchObject({
      traffic: 'measured',
      processedBytes: 336 * GIB,
      idle: false,
    });
    expect(value).toMatchObject({ idleGateways: 0, gatewaysWithoutMetrics: 2, gatewaysWithoutDatapoints: 1 });
    expect(value.findings.total).toBe(0);
    const [region] = value.regions;
    expect(region && 'partialErrors' in region ? region.partialErrors : undefined).toEqual([
      {
        what: 'CloudWatch GetMetricData',
        error: {
          code: 'upstream_error',
          message:
            "CloudWatch left 1 of the gateways' metric queries unanswered " +
            '(MaxMetricsExceeded: Maximum number of allowed metrics exceeded): their traffic is unknown',
          retryable: true,
          service: 'cloudwatch',
        },
      },
    ]);
    expect(summary).toContain('CloudWatch GetMetricData failed in 1 region');
  });

  it('gives the same finding ids on every run', async () => {
    // Act
    const first = await succeeded({ regions: ['eu-west-1'], days: 30 });
    const second = await succeeded({ regions: ['eu-west-1'], days: 30 });

    // Assess
    expect(first.value.findings.top.map((f) => f.id)).toEqual(second.value.findings.top.map((f) => f.id));
    expect(first.value.findings.top.map((f) => f.id)).toEqual([
      findingId('nat_gateway_idle', 'eu-west-1', 'nat-0aaaaaaaaaaaaaaa1'),
    ]);
  });

  it('reports a denied region, and CloudWatch failures as partial errors of their region', async () => {
    // Prepare
    ec2Mock.on(DescribeNatGatewaysCommand).callsFake(async (_input, getClient) => {
      if ((await mockedClientRegion(getClient)) === 'us-east-1') {
        throw ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', {
          httpStatusCode: 403,
        });
      }
      return { NatGateways: [gateway('nat-0aaaaaaaaaaaaaaa1', '2024-01-01T00:00:00.000Z')] };
    });
    cloudwatchMock.on(GetMetricDataCommand).callsFake(async (input, getClient) => {
      if ((await mockedClientRegion(getClient)) === 'us-west-2') {
        throw new CloudWatchServiceException({
          name: 'Throttling',
          message: 'Rate exceeded',
          $fault: 'client',
          $metadata: { httpStatusCode: 400, requestId: 'req-throttled' },
        });
      }
      return metricData(input);
    });

    // Act
    const { value, truncated, summary } = await succeeded({
      regions: ['eu-west-1', 'us-east-1', 'us-west-2'],
    });

    // Assess
    expect(truncated).toBe(false);
    expect(value).toMatchObject({ gateways: 2, idleGateways: 1, gatewaysWithoutMetrics: 1 });
    expect(summary).toMatch(
      /, traffic unknown for 1\) in 3 regions: .*; 1 region failed; CloudWatch GetMetricData failed in 1 region$/,
    );
    expect(value.regions).toEqual([
      expect.objectContaining({ region: 'eu-west-1', gateways: 1, idleGateways: 1 }),
      { region: 'us-east-1', error: expect.objectContaining({ code: 'access_denied', service: 'ec2' }) },
      expect.objectContaining({
        region: 'us-west-2',
        gateways: 1,
        idleGateways: 0,
        gatewaysWithoutMetrics: 1,
        estimatedMonthlyUsd: 32.85, // the hourly charge is known without metrics (us-west-2: $0.045)
        partialErrors: [
          {
            what: 'CloudWatch GetMetricData',
            error: expect.objectContaining({ code: 'throttled', retryable: true, service: 'cloudwatch' }),
          },
        ],
      }),
    ]);
    expect(value.natGateways.find((g) => g.region === 'us-west-2')).toMatchObject({
      processedBytes: null,
      traffic: 'unavailable',
      idle: null,
    });
  });

  it('stops at the page cap and marks the result truncated', async () => {
    // Prepare: every page points at one more.
    ec2Mock.on(DescribeNatGatewaysCommand).callsFake(async (input: { NextToken?: string }) => {
      const page = Number(input.NextToken ?? '0');
      return {
        NatGateways: [gateway(`nat-${String(page).padStart(17, '0')}`, '2024-01-01T00:00:00.000Z')],
        NextToken: String(page + 1),
      };
    });

    // Act
    const { value, truncated, summary } = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    expect(truncated).toBe(true);
    expect(value.gateways).toBe(10);
    expect(value.regions[0]).toMatchObject({ region: 'eu-west-1', stoppedBy: 'page_cap' });
    expect(summary).toMatch(/; partial$/);
  });

  it('rejects a window longer than 90 days before any AWS call', async () => {
    // Act
    const result = await runAwsTool(natGatewaysAuditTool, { regions: ['eu-west-1'], days: 91 });

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(ec2Mock.calls()).toHaveLength(0);
  });
});
