/**
 * Issue 9 for the Cost Explorer tools: kind 1 (feedback in any spelling) and
 * kind 9 (an anomaly answered twice) for aws_cost_anomalies; the documented
 * GetCostAndUsage example for aws_cost_breakdown. AWS documents GetAnomalies by
 * its response syntax only (no example values), which the anomaly fixture follows.
 */
import {
  type Anomaly,
  CostExplorerClient,
  GetAnomaliesCommand,
  GetCostAndUsageCommand,
} from '@aws-sdk/client-cost-explorer';
import { mockClient } from 'aws-sdk-client-mock';
import { type CostAnomalies, costAnomaliesTool } from '../../../../../functions/tools/aws/cost-anomalies';
import { type CostBreakdown, costBreakdownTool } from '../../../../../functions/tools/aws/cost-breakdown';
import { DOCUMENTED_COST_AND_USAGE } from '../../../../helpers/aws-documented-examples';
import { awsToolServices, expectSuccess, fakeToday, runAwsTool } from '../../../../helpers/aws-tool';

const ceMock = mockClient(CostExplorerClient);
const services = () => awsToolServices({ region: 'eu-west-1' });

/** An anomaly in the shape of GetAnomalies' documented response syntax (Cost Explorer API reference, "Anomaly"). */
function anomaly(id: string, feedback?: string): Anomaly {
  return {
    AnomalyId: id,
    AnomalyStartDate: '2026-11-20',
    AnomalyEndDate: '2026-11-22',
    DimensionValue: 'Amazon Relational Database Service',
    MonitorArn: 'arn:aws:ce::123456789012:anomalymonitor/0f0e0d0c-1111-2222-3333-444455556666',
    AnomalyScore: { MaxScore: 0.8, CurrentScore: 0.2 },
    Impact: {
      MaxImpact: 90,
      TotalImpact: 150,
      TotalActualSpend: 400,
      TotalExpectedSpend: 250,
      TotalImpactPercentage: 60,
    },
    RootCauses: [
      { Service: 'Amazon Relational Database Service', Region: 'eu-west-1', LinkedAccount: '123456789012' },
    ],
    ...(feedback ? { Feedback: feedback as Anomaly['Feedback'] } : {}),
  };
}

beforeEach(() => {
  ceMock.reset();
});

afterEach(() => {
  jest.useRealTimers();
});

describe('aws_cost_anomalies (issue 9, kinds 1 and 9)', () => {
  it('reads feedback in any spelling, keeps an unknown one as answered, and counts an anomaly answered twice once', async () => {
    // Prepare
    fakeToday(new Date('2026-11-30T08:00:00Z'));
    ceMock.on(GetAnomaliesCommand).resolves({
      Anomalies: [
        anomaly('a-0001', 'planned_activity'),
        anomaly('a-0002', 'Not_Sure'),
        anomaly('a-0001', 'planned_activity'),
      ],
    });

    // Act
    const { value, summary } = expectSuccess<CostAnomalies>(
      await runAwsTool(costAnomaliesTool, {}, { services: services() }),
    );

    // Assess
    expect(value.anomalyCount).toBe(2);
    expect(value.totalImpactUsd).toBe(300);
    expect(value.byFeedback).toEqual({ PLANNED_ACTIVITY: 1, Not_Sure: 1 });
    expect(value.duplicatesSkipped).toBe(1);
    expect(value.unrecognizedValues).toEqual({ 'Feedback:Not_Sure': 1 });
    expect(summary).toMatch(/; unrecognized values: Feedback:Not_Sure \(1\)$/);
  });
});

describe('aws_cost_breakdown on the GetCostAndUsage example AWS documents', () => {
  it('adds up the documented groups exactly, with the currency Cost Explorer answered', async () => {
    // Prepare: September 2017, as in the AWS CLI reference example.
    fakeToday(new Date('2017-10-05T08:00:00Z'));
    ceMock.on(GetCostAndUsageCommand).resolves(DOCUMENTED_COST_AND_USAGE);

    // Act
    const { value } = expectSuccess<CostBreakdown>(
      await runAwsTool(
        costBreakdownTool,
        { start: '2017-09-01', end: '2017-09-30', compareWithPrevious: false },
        { services: services() },
      ),
    );

    // Assess
    expect(value).toMatchObject({ currency: 'USD', total: 40.62, estimated: false, groupCount: 2 });
    expect(value.topGroups.map((g) => [g.key, g.amount])).toEqual([
      ['Amazon Simple Storage Service, Environment$', 40.35],
      ['Amazon Simple Storage Service, Environment$Dev', 0.27],
    ]);
    expect(ceMock.commandCalls(GetCostAndUsageCommand)).toHaveLength(1);
  });
});
