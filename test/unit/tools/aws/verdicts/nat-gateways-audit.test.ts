/**
 * Issue 9 for aws_nat_gateways_audit: kind 10 (no datapoints is not zero
 * traffic), kind 5 (deleted gateways), kind 11 (prices per region) and kind 9,
 * on the NAT gateway AWS documents.
 */
import {
  CloudWatchClient,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { DescribeNatGatewaysCommand, EC2Client, type NatGateway } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import {
  type NatGatewaysAuditValue,
  natGatewaysAuditTool,
} from '../../../../../functions/tools/aws/nat-gateways-audit';
import { DOCUMENTED_NAT_GATEWAYS } from '../../../../helpers/aws-documented-examples';
import { expectSuccess, runAwsTool } from '../../../../helpers/aws-tool';

const ec2Mock = mockClient(EC2Client);
const cloudwatchMock = mockClient(CloudWatchClient);

const NOW = Date.parse('2026-11-30T10:30:00.000Z');

async function audited(regions: string[]) {
  return expectSuccess<NatGatewaysAuditValue>(await runAwsTool(natGatewaysAuditTool, { regions }));
}

/** A gateway as DescribeNatGateways lists it (EC2 API reference, "NatGateway"), months old. */
function gateway(id: string, state: NatGateway['State'] = 'available'): NatGateway {
  return {
    NatGatewayId: id,
    State: state,
    ConnectivityType: 'public',
    CreateTime: new Date('2026-01-01T00:00:00Z'),
  };
}

/**
 * GetMetricData answering each query with `values(gatewayId, metric)` and `status`
 * (CloudWatch API reference, "MetricDataResult").
 */
function metrics(values: (gatewayId: string, metric: string) => number[], status = 'Complete') {
  return (input: GetMetricDataCommandInput) => ({
    MetricDataResults: (input.MetricDataQueries ?? []).map((query): MetricDataResult => {
      const metric = query.MetricStat?.Metric;
      const points = values(metric?.Dimensions?.[0]?.Value ?? '', metric?.MetricName ?? '');
      return {
        Id: query.Id,
        Label: metric?.MetricName,
        Timestamps: points.map((_, day) => new Date(NOW - (day + 1) * 86_400_000)),
        Values: points,
        StatusCode: status as MetricDataResult['StatusCode'],
      };
    }),
  });
}

beforeEach(() => {
  ec2Mock.reset();
  cloudwatchMock.reset();
  jest.spyOn(Date, 'now').mockReturnValue(NOW);
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('aws_nat_gateways_audit: no data is not zero (issue 9, kind 10)', () => {
  it('does not call a gateway with no CloudWatch datapoints idle: its traffic is unknown', async () => {
    // Prepare: the case, beside a gateway whose datapoints are real zeros.
    ec2Mock
      .on(DescribeNatGatewaysCommand)
      .resolves({ NatGateways: [gateway('nat-0nodata00000001'), gateway('nat-0zeros000000002')] });
    cloudwatchMock
      .on(GetMetricDataCommand)
      .callsFake(metrics((id) => (id === 'nat-0zeros000000002' ? [0, 0, 0] : [])));

    // Act
    const { value, summary } = await audited(['us-east-1']);

    // Assess
    expect(value.natGateways.map((g) => [g.natGatewayId, g.traffic, g.processedBytes, g.idle])).toEqual([
      ['nat-0nodata00000001', 'no_datapoints', null, null],
      ['nat-0zeros000000002', 'measured', 0, true],
    ]);
    expect(value).toMatchObject({ idleGateways: 1, gatewaysWithoutMetrics: 1, gatewaysWithoutDatapoints: 1 });
    expect(value.findings.top.map((f) => f.resource)).toEqual(['nat-0zeros000000002']);
    expect(summary).toContain('traffic unknown for 1');
  });

  it('treats queries CloudWatch answers Forbidden as unavailable, not as zero', async () => {
    // Prepare
    ec2Mock.on(DescribeNatGatewaysCommand).resolves({ NatGateways: [gateway('nat-0forbidden00001')] });
    cloudwatchMock.on(GetMetricDataCommand).callsFake(metrics(() => [], 'Forbidden'));

    // Act
    const { value } = await audited(['us-east-1']);

    // Assess
    expect(value.natGateways[0]).toMatchObject({ traffic: 'unavailable', processedBytes: null, idle: null });
    expect(value.findings.total).toBe(0);
  });
});

describe('aws_nat_gateways_audit counts gateways on their way out apart (issue 9, kinds 5 and 9)', () => {
  it('leaves deleted, deleting and pending gateways out of the audit and the cost, counted by state', async () => {
    // Prepare
    ec2Mock.on(DescribeNatGatewaysCommand).resolves({
      NatGateways: [
        gateway('nat-0live0000000001'),
        gateway('nat-0gone0000000002', 'deleted'),
        gateway('nat-0going000000003', 'deleting'),
        gateway('nat-0new00000000004', 'pending'),
        gateway('nat-0live0000000001'),
      ],
    });
    cloudwatchMock.on(GetMetricDataCommand).callsFake(metrics(() => [5 * 1024 ** 3]));

    // Act
    const { value } = await audited(['us-east-1']);

    // Assess
    expect(value).toMatchObject({
      gateways: 1,
      notAvailableByState: { deleted: 1, deleting: 1, pending: 1 },
      duplicatesSkipped: 1,
      // 730 h × $0.045, plus 10 GiB (5 GiB per metric) in 14 days → 21.7 GB a month × $0.045.
      estimatedMonthlyUsd: 33.83,
    });
    expect(value.natGateways.map((g) => g.natGatewayId)).toEqual(['nat-0live0000000001']);
    const queried =
      cloudwatchMock.commandCalls(GetMetricDataCommand)[0]?.args[0].input.MetricDataQueries ?? [];
    expect(new Set(queried.map((q) => q.MetricStat?.Metric?.Dimensions?.[0]?.Value))).toEqual(
      new Set(['nat-0live0000000001']),
    );
  });
});

describe('aws_nat_gateways_audit prices each region by its own price (issue 9, kind 11)', () => {
  it('prices Tokyo at its rate and says "estimate unavailable" for a region outside the table', async () => {
    // Prepare: one idle gateway in ap-northeast-1, one in me-south-1 (not in the table).
    ec2Mock.on(DescribeNatGatewaysCommand).resolves({ NatGateways: [gateway('nat-0idle0000000001')] });
    cloudwatchMock.on(GetMetricDataCommand).callsFake(metrics(() => [0]));

    // Act
    const { value, summary } = await audited(['ap-northeast-1', 'me-south-1']);

    // Assess
    const byRegion = Object.fromEntries(value.natGateways.map((g) => [g.region, g]));
    expect(byRegion['ap-northeast-1']?.estimatedMonthlyUsd).toBe(45.26); // 730 h × $0.062
    expect(byRegion['me-south-1']?.estimatedMonthlyUsd).toBeNull();
    const findings = Object.fromEntries(value.findings.top.map((f) => [f.region, f]));
    expect(findings['ap-northeast-1']?.monthlyCost).toEqual({
      usd: 45.26,
      priceSource: 'Amazon VPC pricing, NAT Gateway, ap-northeast-1 (price table 2026-11)',
    });
    expect(findings['me-south-1']?.monthlyCost).toBeUndefined();
    expect(findings['me-south-1']?.details).toMatchObject({ estimate: 'unavailable' });
    expect(findings['me-south-1']?.title).toContain('costs an unknown amount (no price for me-south-1)');
    expect(value).toMatchObject({ gatewaysWithoutPrice: 1, estimatedMonthlyUsd: 45.26 });
    expect(summary).toContain('price unavailable for 1');
  });
});

describe('aws_nat_gateways_audit on the NAT gateway AWS documents', () => {
  it('audits the documented gateway with its traffic', async () => {
    // Prepare
    ec2Mock.on(DescribeNatGatewaysCommand).resolves({ NatGateways: DOCUMENTED_NAT_GATEWAYS });
    cloudwatchMock.on(GetMetricDataCommand).callsFake(metrics(() => [20 * 1024 ** 3]));

    // Act
    const { value } = await audited(['us-east-1']);

    // Assess
    expect(value.natGateways).toEqual([
      expect.objectContaining({
        natGatewayId: 'nat-05dba92075d71c408',
        vpcId: 'vpc-1a2b3c4d',
        connectivityType: 'public', // absent in the documented answer
        traffic: 'measured',
        idle: false,
      }),
    ]);
    expect(value.findings.total).toBe(0);
  });
});
