import {
  type Anomaly,
  CostExplorerClient,
  CostExplorerServiceException,
  DataUnavailableException,
  GetAnomaliesCommand,
  type GetAnomaliesCommandInput,
  type GetAnomaliesCommandOutput,
  LimitExceededException,
} from '@aws-sdk/client-cost-explorer';
import { mockClient } from 'aws-sdk-client-mock';
import { ACCOUNT_ID } from '../../../../bench/aws-fixtures';
import type { ToolResult } from '../../../../functions/runtime/result';
import { type CostAnomalies, costAnomaliesTool } from '../../../../functions/tools/aws/cost-anomalies';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import type { ApiCallCase } from '../../../helpers/api-call-case';
import { responseMetadata } from '../../../helpers/aws-errors';
import {
  awsToolServices,
  expectFailure,
  expectSuccess,
  fakeToday,
  runAwsTool,
} from '../../../helpers/aws-tool';

/**
 * `aws_cost_anomalies`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** The cases of `aws_cost_anomalies`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_cost_anomalies',
    clients: [CostExplorerClient],
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
];

const ceMock = mockClient(CostExplorerClient);

/** "Today" for every test (UTC). */
const NOW = new Date('2026-04-10T08:00:00Z');
const MONITOR = 'arn:aws:ce::123456789012:anomalymonitor/0f0e0d0c-1111-2222-3333-444455556666';

function anomalies(args: unknown): Promise<ToolResult> {
  return runAwsTool(costAnomaliesTool, args, { services: awsToolServices({ region: 'ap-southeast-2' }) });
}

const succeeded = (result: ToolResult) => expectSuccess<CostAnomalies>(result);

function page(items: Anomaly[], next?: string): GetAnomaliesCommandOutput {
  return { Anomalies: items, NextPageToken: next, $metadata: responseMetadata(200) };
}

/** An EC2 spike: two root causes, feedback YES (Cost Explorer API reference, "Anomaly"). */
const EC2_SPIKE: Anomaly = {
  AnomalyId: '1a2b3c4d-0000-4000-8000-000000000001',
  AnomalyStartDate: '2026-03-10',
  AnomalyEndDate: '2026-03-12',
  DimensionValue: 'Amazon Elastic Compute Cloud - Compute',
  MonitorArn: MONITOR,
  AnomalyScore: { MaxScore: 0.93, CurrentScore: 0.41 },
  Impact: {
    MaxImpact: 700.126,
    TotalImpact: 1234.567,
    TotalActualSpend: 1534.567,
    TotalExpectedSpend: 300,
    TotalImpactPercentage: 411.5223,
  },
  RootCauses: [
    {
      Service: 'Amazon Elastic Compute Cloud - Compute',
      Region: 'us-west-2',
      LinkedAccount: '111111111111',
      LinkedAccountName: 'production',
      UsageType: 'USW2-BoxUsage:p4d.24xlarge',
      Impact: { Contribution: 1000.004 },
    },
    {
      Service: 'Amazon Elastic Compute Cloud - Compute',
      Region: 'us-east-1',
      LinkedAccount: '111111111111',
      LinkedAccountName: 'production',
      UsageType: 'BoxUsage:m5.24xlarge',
      Impact: { Contribution: 234.563 },
    },
  ],
  Feedback: 'YES',
};

const S3_SPIKE: Anomaly = {
  AnomalyId: '1a2b3c4d-0000-4000-8000-000000000002',
  AnomalyStartDate: '2026-03-20',
  DimensionValue: 'Amazon Simple Storage Service',
  MonitorArn: MONITOR,
  AnomalyScore: { MaxScore: 0.7, CurrentScore: 0.7 },
  Impact: {
    MaxImpact: 80,
    TotalImpact: 150,
    TotalActualSpend: 250,
    TotalExpectedSpend: 100,
    TotalImpactPercentage: 150,
  },
  RootCauses: [
    { Service: 'Amazon Simple Storage Service', Region: 'eu-west-1', Impact: { Contribution: 150 } },
  ],
};

const PLANNED: Anomaly = {
  AnomalyId: '1a2b3c4d-0000-4000-8000-000000000003',
  AnomalyStartDate: '2026-03-25',
  AnomalyEndDate: '2026-03-26',
  DimensionValue: 'AWS Lambda',
  MonitorArn: MONITOR,
  AnomalyScore: { MaxScore: 0.5, CurrentScore: 0.1 },
  Impact: { MaxImpact: 60.126 },
  Feedback: 'PLANNED_ACTIVITY',
};

beforeEach(() => {
  ceMock.reset();
  fakeToday(NOW);
});

afterEach(() => {
  jest.useRealTimers();
});

describe('aws_cost_anomalies', () => {
  it('lists anomalies by impact with root causes and feedback, over every page, in USD to the cent', async () => {
    // Prepare
    // The SDK paginator reuses one input object for every page: copy each as it is sent.
    const inputs: GetAnomaliesCommandInput[] = [];
    const pages = [page([S3_SPIKE], 'token-2'), page([PLANNED, EC2_SPIKE])];
    ceMock.on(GetAnomaliesCommand).callsFake(async (input: GetAnomaliesCommandInput) => {
      inputs.push(structuredClone(input));
      return pages[inputs.length - 1];
    });

    // Act
    const result = succeeded(
      await anomalies({ start: '2026-03-01', end: '2026-03-31', monitorArn: MONITOR, minTotalImpact: 50 }),
    );

    // Assess: the window is passed inclusive as is, the filters as Cost Explorer takes them
    expect(inputs).toEqual([
      {
        DateInterval: { StartDate: '2026-03-01', EndDate: '2026-03-31' },
        MonitorArn: MONITOR,
        TotalImpact: { NumericOperator: 'GREATER_THAN_OR_EQUAL', StartValue: 50 },
      },
      {
        DateInterval: { StartDate: '2026-03-01', EndDate: '2026-03-31' },
        MonitorArn: MONITOR,
        TotalImpact: { NumericOperator: 'GREATER_THAN_OR_EQUAL', StartValue: 50 },
        NextPageToken: 'token-2',
      },
    ]);
    const client = ceMock.commandCalls(GetAnomaliesCommand)[0]?.thisValue as CostExplorerClient;
    await expect(client.config.region()).resolves.toBe('us-east-1');
    expect(result.truncated).toBe(false);
    expect(result.value).toMatchObject({
      window: { start: '2026-03-01', end: '2026-03-31', days: 31 },
      anomalyCount: 3,
      // EC2 1234.57 + S3 150: the Lambda anomaly has no TotalImpact, counted apart, not added as 0.
      totalImpactUsd: 1384.57,
      anomaliesWithoutTotalImpact: 1,
      bySeverity: { critical: 0, high: 1, medium: 1, low: 1, info: 0 },
      byFeedback: { YES: 1, none: 1, PLANNED_ACTIVITY: 1 },
      costExplorer: { requests: 2, estimatedCostUsd: 0.02 },
    });
    expect(result.value.anomalies.map((a) => [a.resource, a.severity])).toEqual([
      ['1a2b3c4d-0000-4000-8000-000000000001', 'high'],
      ['1a2b3c4d-0000-4000-8000-000000000002', 'medium'],
      ['1a2b3c4d-0000-4000-8000-000000000003', 'low'],
    ]);
    expect(result.value.anomalies[0]).toEqual({
      id: findingId('ce_cost_anomaly', 'global', '1a2b3c4d-0000-4000-8000-000000000001'),
      check: 'ce_cost_anomaly',
      severity: 'high',
      resource: '1a2b3c4d-0000-4000-8000-000000000001',
      region: 'global',
      title:
        'Unexpected spend of $1234.57 (411.52%) on Amazon Elastic Compute Cloud - Compute in us-west-2 (account production), 2026-03-10..2026-03-12',
      details: {
        anomalyId: '1a2b3c4d-0000-4000-8000-000000000001',
        monitorArn: MONITOR,
        startDate: '2026-03-10',
        endDate: '2026-03-12',
        dimensionValue: 'Amazon Elastic Compute Cloud - Compute',
        impact: {
          totalImpactUsd: 1234.57,
          maxImpactUsd: 700.13,
          totalActualSpendUsd: 1534.57,
          totalExpectedSpendUsd: 300,
          totalImpactPercent: 411.52,
        },
        score: { max: 0.93, current: 0.41 },
        rootCauses: [
          {
            service: 'Amazon Elastic Compute Cloud - Compute',
            region: 'us-west-2',
            linkedAccount: '111111111111',
            linkedAccountName: 'production',
            usageType: 'USW2-BoxUsage:p4d.24xlarge',
            contributionUsd: 1000,
          },
          {
            service: 'Amazon Elastic Compute Cloud - Compute',
            region: 'us-east-1',
            linkedAccount: '111111111111',
            linkedAccountName: 'production',
            usageType: 'BoxUsage:m5.24xlarge',
            contributionUsd: 234.56,
          },
        ],
        rootCauseCount: 2,
        feedback: 'YES',
      },
    });
    // No TotalImpact: ranked by MaxImpact, not summed as a total it does not have, nor titled as one.
    expect(result.value.anomalies[2]?.title).toBe(
      'Unexpected spend of at least $60.13 (its largest impact; no total given) on AWS Lambda, 2026-03-25..2026-03-26',
    );
    expect(result.value.anomalies[2]?.details.impact).toEqual({
      totalImpactUsd: null,
      maxImpactUsd: 60.13,
      totalActualSpendUsd: null,
      totalExpectedSpendUsd: null,
      totalImpactPercent: null,
    });
    expect(result.value.anomalies[1]?.details.feedback).toBeNull();
    expect(result.summary).toBe(
      '3 cost anomalies 2026-03-01..2026-03-31, total impact $1384.57 excl. 1 without TotalImpact (1 high, 1 medium); largest: ' +
        'Unexpected spend of $1234.57 (411.52%) on Amazon Elastic Compute Cloud - Compute in us-west-2 (account production), ' +
        '2026-03-10..2026-03-12; 2 Cost Explorer requests (~$0.02)',
    );
  });

  it('gives the same finding id for the same anomaly on every run', async () => {
    // Prepare
    ceMock.on(GetAnomaliesCommand).resolves(page([EC2_SPIKE]));

    // Act
    const first = succeeded(await anomalies({}));
    const second = succeeded(await anomalies({ feedback: 'YES' }));

    // Assess
    expect(first.value.anomalies[0]?.id).toBe(second.value.anomalies[0]?.id);
    expect(first.value.anomalies[0]?.id).toMatch(/^ce_cost_anomaly:[0-9a-f]{16}$/);
  });

  it('defaults to the 30 days ending today and returns an empty list when there is no anomaly', async () => {
    // Prepare
    ceMock.on(GetAnomaliesCommand).resolves(page([]));

    // Act
    const result = succeeded(await anomalies({}));

    // Assess
    expect(ceMock.commandCalls(GetAnomaliesCommand)[0]?.args[0].input).toEqual({
      DateInterval: { StartDate: '2026-03-12', EndDate: '2026-04-10' },
    });
    expect(result.value).toMatchObject({
      anomalyCount: 0,
      totalImpactUsd: 0,
      anomaliesWithoutTotalImpact: 0,
      anomalies: [],
    });
  });

  it('stops at the page cap (10 billed requests) and marks the result truncated', async () => {
    // Prepare
    let n = 0;
    ceMock.on(GetAnomaliesCommand).callsFake(async () => {
      n++;
      return page([{ ...S3_SPIKE, AnomalyId: `anomaly-${n}` }], `token-${n + 1}`);
    });

    // Act
    const result = succeeded(await anomalies({ topN: 3 }));

    // Assess
    expect(ceMock.commandCalls(GetAnomaliesCommand)).toHaveLength(10);
    expect(result.truncated).toBe(true);
    expect(result.value.anomalyCount).toBe(10);
    expect(result.value.anomalies).toHaveLength(3);
    expect(result.value.costExplorer).toEqual({ requests: 10, estimatedCostUsd: 0.1 });
  });

  it.each([
    [
      { start: '2026-01-09', end: '2026-01-31' },
      'start (2026-01-09) is more than 90 days before today (2026-04-10)',
    ],
    [{ start: '2026-04-01', end: '2026-04-11' }, 'end (2026-04-11) is after today'],
    [{ start: '2026-04-05', end: '2026-04-01' }, 'end (2026-04-01) is before start (2026-04-05)'],
    [{ end: '2026-04-01' }, 'start: give both start and end'],
    [{ monitorArn: 'arn:aws:ce::123:monitor/x' }, 'monitorArn: a Cost Anomaly Detection monitor ARN'],
    [{ minTotalImpact: -1 }, 'minTotalImpact'],
  ])('rejects %j before any billed request', async (args, message) => {
    // Prepare
    ceMock.on(GetAnomaliesCommand).resolves(page([]));

    // Act
    const failure = expectFailure(await anomalies(args));

    // Assess
    expect(failure.error.code).toBe('invalid_args');
    expect(failure.error.message).toContain(message);
    expect(ceMock.calls()).toHaveLength(0);
  });

  it.each([
    [
      'DataUnavailableException',
      new DataUnavailableException({ message: 'Data is not available.', $metadata: responseMetadata(400) }),
      'data_unavailable',
      false,
    ],
    [
      'AccessDeniedException (not enabled)',
      new CostExplorerServiceException({
        name: 'AccessDeniedException',
        message: 'User not enabled for cost explorer access',
        $fault: 'client',
        $metadata: responseMetadata(400),
      }),
      'opt_in_required',
      false,
    ],
    [
      'LimitExceededException',
      new LimitExceededException({ message: 'Rate exceeded', $metadata: responseMetadata(400) }),
      'throttled',
      true,
    ],
  ])('fails on %s without reporting "no anomalies"', async (_name, error, code, retryable) => {
    // Prepare
    ceMock.on(GetAnomaliesCommand).rejects(error);

    // Act
    const failure = expectFailure(await anomalies({}));

    // Assess
    expect(failure.error).toMatchObject({
      code,
      retryable,
      service: 'ce',
      details: { awsError: error.name },
    });
    expect(failure).not.toHaveProperty('value');
  });
});
