/**
 * Issue 9, kind 1 (service enums compared as the SDK typings spell them) and
 * kind 9 (duplicate rows) for aws_compute_optimizer_recs. The wire spellings are
 * the ones the SDK's own model documentation gives for responses
 * (`InstanceRecommendation.finding`: "The valid values in your API responses
 * appear as OVER_PROVISIONED, UNDER_PROVISIONED, or OPTIMIZED").
 */
import {
  ComputeOptimizerClient,
  GetEBSVolumeRecommendationsCommand,
  GetEC2InstanceRecommendationsCommand,
  GetLambdaFunctionRecommendationsCommand,
  type InstanceRecommendation,
  type LambdaFunctionRecommendation,
} from '@aws-sdk/client-compute-optimizer';
import { mockClient } from 'aws-sdk-client-mock';
import { computeOptimizerRecsTool } from '../../../../../functions/tools/aws/compute-optimizer-recs';
import { type FindingsSummary, findingId } from '../../../../../functions/tools/aws/shared/findings';
import { awsToolServices, expectSuccess, runAwsTool } from '../../../../helpers/aws-tool';

const coMock = mockClient(ComputeOptimizerClient);

interface Recommendations {
  readonly recommendations: number;
  readonly byFinding: Record<string, number>;
  readonly duplicatesSkipped: number;
  readonly unrecognizedValues: Record<string, number>;
  readonly findings: FindingsSummary;
}

async function recommendations(resourceTypes: string[]) {
  const result = await runAwsTool(
    computeOptimizerRecsTool,
    { regions: ['eu-west-1'], resourceTypes },
    { services: awsToolServices({ region: 'eu-west-1' }) },
  );
  return expectSuccess<Recommendations>(result);
}

const ACCOUNT = '123456789012';
const ARN = `arn:aws:ec2:eu-west-1:${ACCOUNT}:instance/i-0abc000000000009`;

/** A value as the service answers it, which the SDK's typings do not spell. */
function wire<T>(value: string): T {
  return value as unknown as T;
}

/** The case: current m5.2xlarge, rank-1 option m5.large, 210.24 USD a month, answered as OVER_PROVISIONED. */
const OVER_PROVISIONED_ON_THE_WIRE: InstanceRecommendation = {
  instanceArn: ARN,
  accountId: ACCOUNT,
  instanceName: 'batch-1',
  currentInstanceType: 'm5.2xlarge',
  finding: wire('OVER_PROVISIONED'),
  findingReasonCodes: [wire('CPU_OVER_PROVISIONED'), wire('MEMORY_OVER_PROVISIONED')],
  currentPerformanceRisk: wire('VERY_LOW'),
  instanceState: wire('RUNNING'),
  lookBackPeriodInDays: 14,
  recommendationOptions: [
    {
      instanceType: 'm5.large',
      rank: 1,
      performanceRisk: 1,
      migrationEffort: 'VeryLow',
      savingsOpportunity: {
        savingsOpportunityPercentage: 75,
        estimatedMonthlySavings: { currency: 'USD', value: 210.24 },
      },
    },
  ],
  lastRefreshTimestamp: new Date('2026-11-29T06:00:00Z'),
};

beforeEach(() => {
  coMock.reset();
  coMock.on(GetEC2InstanceRecommendationsCommand).resolves({ instanceRecommendations: [] });
  coMock.on(GetEBSVolumeRecommendationsCommand).resolves({ volumeRecommendations: [] });
  coMock.on(GetLambdaFunctionRecommendationsCommand).resolves({ lambdaFunctionRecommendations: [] });
});

describe('aws_compute_optimizer_recs reads enums in any spelling (issue 9, kind 1)', () => {
  it('makes a finding of OVER_PROVISIONED, with the same check and id as Overprovisioned', async () => {
    // Prepare
    coMock
      .on(GetEC2InstanceRecommendationsCommand)
      .resolves({ instanceRecommendations: [OVER_PROVISIONED_ON_THE_WIRE] });

    // Act
    const { value, summary } = await recommendations(['ec2']);

    // Assess
    expect(value.byFinding).toEqual({ 'ec2 Overprovisioned': 1 });
    expect(value.unrecognizedValues).toEqual({});
    expect(value.findings.top).toEqual([
      expect.objectContaining({
        id: findingId('compute_optimizer_ec2_overprovisioned', 'eu-west-1', ARN),
        check: 'compute_optimizer_ec2_overprovisioned',
        severity: 'medium', // 210.24 USD/month: >= 50
        title:
          'EC2 instance batch-1 (m5.2xlarge) is Overprovisioned (CPUOverprovisioned, MemoryOverprovisioned): ' +
          'm5.large would save 210.24 USD/month',
        monthlyCost: expect.objectContaining({ usd: 210.24 }),
        details: expect.objectContaining({
          finding: 'Overprovisioned',
          reasons: ['CPUOverprovisioned', 'MemoryOverprovisioned'],
          currentPerformanceRisk: 'VeryLow',
          current: expect.objectContaining({ instanceState: 'running' }),
        }),
      }),
    ]);
    expect(summary).toMatch(
      /^1 Compute Optimizer recommendation in 1 region: 1 finding .*~\$210\.24\/month to save$/,
    );
  });

  it('reads UNDER_PROVISIONED reasons of a NOT_OPTIMIZED Lambda function as a performance risk (medium)', async () => {
    // Prepare: savings of 2 USD would rank it low; the memory shortage makes it medium.
    const fn: LambdaFunctionRecommendation = {
      functionArn: `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:resize:$LATEST`,
      accountId: ACCOUNT,
      currentMemorySize: 128,
      numberOfInvocations: 50_000,
      finding: wire('NOT_OPTIMIZED'),
      findingReasonCodes: [wire('MEMORY_UNDER_PROVISIONED')],
      currentPerformanceRisk: wire('HIGH'),
      memorySizeRecommendationOptions: [
        {
          rank: 1,
          memorySize: 512,
          savingsOpportunity: {
            estimatedMonthlySavings: { currency: 'USD', value: 2 },
            savingsOpportunityPercentage: 5,
          },
        },
      ],
    };
    coMock.on(GetLambdaFunctionRecommendationsCommand).resolves({ lambdaFunctionRecommendations: [fn] });

    // Act
    const { value } = await recommendations(['lambda']);

    // Assess
    expect(value.findings.top).toEqual([
      expect.objectContaining({
        check: 'compute_optimizer_lambda_not_optimized',
        severity: 'medium',
        details: expect.objectContaining({
          finding: 'NotOptimized',
          reasons: ['MemoryUnderprovisioned'],
          currentPerformanceRisk: 'High',
        }),
      }),
    ]);
  });

  it('reads a NotOptimized EBS volume at High current performance risk as a performance risk (medium), not info', async () => {
    // Prepare: EBS recommendations carry no reason codes; an under-sized volume shows as its
    // currentPerformanceRisk (Compute Optimizer API reference, "VolumeRecommendation"). The larger
    // option costs more, so there are no savings to rank it by.
    coMock.on(GetEBSVolumeRecommendationsCommand).resolves({
      volumeRecommendations: [
        {
          volumeArn: `arn:aws:ec2:eu-west-1:${ACCOUNT}:volume/vol-0abc00000000000a1`,
          accountId: ACCOUNT,
          currentConfiguration: { volumeType: 'gp3', volumeSize: 100, volumeBaselineIOPS: 3000 },
          finding: wire('NOT_OPTIMIZED'),
          currentPerformanceRisk: wire('HIGH'),
          volumeRecommendationOptions: [
            {
              rank: 1,
              performanceRisk: 0,
              configuration: { volumeType: 'io2', volumeSize: 100, volumeBaselineIOPS: 16000 },
              savingsOpportunity: {
                estimatedMonthlySavings: { currency: 'USD', value: 0 },
                savingsOpportunityPercentage: 0,
              },
            },
          ],
        },
      ],
    });

    // Act
    const { value } = await recommendations(['ebs']);

    // Assess
    expect(value.findings.top).toEqual([
      expect.objectContaining({
        check: 'compute_optimizer_ebs_not_optimized',
        severity: 'medium',
        title:
          'EBS volume vol-0abc00000000000a1 (gp3 100 GiB) is NotOptimized (current performance risk High): io2 100 GiB recommended',
        details: expect.objectContaining({ currentPerformanceRisk: 'High' }),
      }),
    ]);
  });

  it('keeps the savings severity when it is worse than the performance risk (high over medium)', async () => {
    // Prepare: 600 USD a month to save, current performance risk Medium.
    coMock.on(GetEC2InstanceRecommendationsCommand).resolves({
      instanceRecommendations: [
        {
          ...OVER_PROVISIONED_ON_THE_WIRE,
          currentPerformanceRisk: wire('MEDIUM'),
          recommendationOptions: [
            {
              instanceType: 'm5.large',
              rank: 1,
              performanceRisk: 1,
              savingsOpportunity: {
                estimatedMonthlySavings: { currency: 'USD', value: 600 },
                savingsOpportunityPercentage: 70,
              },
            },
          ],
        },
      ],
    });

    // Act
    const { value } = await recommendations(['ec2']);

    // Assess
    expect(value.findings.top.map((f) => [f.check, f.severity])).toEqual([
      ['compute_optimizer_ec2_overprovisioned', 'high'],
    ]);
  });

  it('reports a finding value it does not know as an info finding, counted, never dropped', async () => {
    // Prepare
    coMock.on(GetEC2InstanceRecommendationsCommand).resolves({
      instanceRecommendations: [{ ...OVER_PROVISIONED_ON_THE_WIRE, finding: wire('RIGHT_SIZED_LATER') }],
    });

    // Act
    const { value, summary } = await recommendations(['ec2']);

    // Assess
    expect(value.unrecognizedValues).toEqual({ 'finding:RIGHT_SIZED_LATER': 1 });
    expect(value.byFinding).toEqual({ 'ec2 RIGHT_SIZED_LATER': 1 });
    expect(value.findings.top).toEqual([
      expect.objectContaining({
        check: 'compute_optimizer_ec2_unrecognized_finding',
        severity: 'info',
        title: expect.stringContaining('answered finding "RIGHT_SIZED_LATER"'),
      }),
    ]);
    expect(value.findings.estimatedMonthlyCostUsd).toBe(0); // no savings claimed on an unknown classification
    expect(summary).toMatch(/; unrecognized values: finding:RIGHT_SIZED_LATER \(1\)$/);
  });
});

describe('aws_compute_optimizer_recs counts a resource once (issue 9, kind 9)', () => {
  it('keeps one recommendation when the same instance is answered on two pages', async () => {
    // Prepare
    coMock
      .on(GetEC2InstanceRecommendationsCommand)
      .resolvesOnce({ instanceRecommendations: [OVER_PROVISIONED_ON_THE_WIRE], nextToken: 'page-2' })
      .resolves({ instanceRecommendations: [OVER_PROVISIONED_ON_THE_WIRE] });

    // Act
    const { value } = await recommendations(['ec2']);

    // Assess
    expect(value.recommendations).toBe(1);
    expect(value.duplicatesSkipped).toBe(1);
    expect(value.findings.total).toBe(1);
    expect(value.findings.estimatedMonthlyCostUsd).toBe(210.24);
  });
});
