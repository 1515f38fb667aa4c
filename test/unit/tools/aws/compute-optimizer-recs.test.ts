import {
  AccessDeniedException,
  ComputeOptimizerClient,
  GetEBSVolumeRecommendationsCommand,
  GetEC2InstanceRecommendationsCommand,
  GetLambdaFunctionRecommendationsCommand,
  type InstanceRecommendation,
  type LambdaFunctionRecommendation,
  OptInRequiredException,
  type SavingsOpportunity,
  ThrottlingException,
  type VolumeRecommendation,
} from '@aws-sdk/client-compute-optimizer';
import { DescribeRegionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import type { ToolResult } from '../../../../functions/runtime/result';
import { computeOptimizerRecsTool } from '../../../../functions/tools/aws/compute-optimizer-recs';
import { type FindingsSummary, findingId } from '../../../../functions/tools/aws/shared/findings';
import type { RegionReport } from '../../../../functions/tools/aws/shared/regional-audit';
import { type ApiCallCase, arrangeRegions } from '../../../helpers/api-call-case';
import { responseMetadata } from '../../../helpers/aws-errors';
import { awsToolServices, expectFailure, expectSuccess, runAwsTool } from '../../../helpers/aws-tool';

/**
 * `aws_compute_optimizer_recs`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** The cases of `aws_compute_optimizer_recs`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_compute_optimizer_recs',
    clients: [EC2Client, ComputeOptimizerClient],
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

const coMock = mockClient(ComputeOptimizerClient);
const ec2Mock = mockClient(EC2Client);

/** What the tool returns, as far as these tests read it. */
interface Recommendations {
  readonly resourceTypes: string[];
  readonly recommendations: number;
  readonly byResourceType: Record<string, number>;
  readonly byFinding: Record<string, number>;
  readonly estimatedMonthlySavings: Record<string, number>;
  readonly recommendationErrors: number;
  readonly findings: FindingsSummary;
  readonly regions: RegionReport<Record<string, number>>[];
  readonly skippedRegions: string[];
}

function recommendations(args: unknown): Promise<ToolResult> {
  return runAwsTool(computeOptimizerRecsTool, args, { services: awsToolServices({ region: 'eu-west-1' }) });
}

const succeeded = (result: ToolResult) => expectSuccess<Recommendations>(result);

const ACCOUNT = '123456789012';
const REFRESHED = new Date('2026-04-09T06:00:00Z');
const WEB_ARN = `arn:aws:ec2:eu-west-1:${ACCOUNT}:instance/i-0abc000000000001`;

/** A recommendation option's savings, in USD (Compute Optimizer API reference, "SavingsOpportunity"). */
function savings(percentage: number, usd: number): SavingsOpportunity {
  return {
    savingsOpportunityPercentage: percentage,
    estimatedMonthlySavings: { currency: 'USD', value: usd },
  };
}

/** Shapes from the Compute Optimizer API reference ("InstanceRecommendation", "VolumeRecommendation", …). */
const OVERPROVISIONED: InstanceRecommendation = {
  instanceArn: WEB_ARN,
  accountId: ACCOUNT,
  instanceName: 'web-1',
  currentInstanceType: 'm5.2xlarge',
  finding: 'Overprovisioned',
  findingReasonCodes: ['CPUOverprovisioned', 'MemoryOverprovisioned'],
  lookBackPeriodInDays: 14,
  // Listed out of rank order: the rank 1 option is the recommendation.
  recommendationOptions: [
    {
      instanceType: 'm5.xlarge',
      rank: 2,
      performanceRisk: 1,
      migrationEffort: 'VeryLow',
      savingsOpportunity: savings(50, 140.16),
    },
    {
      instanceType: 'm5.large',
      rank: 1,
      performanceRisk: 2,
      migrationEffort: 'VeryLow',
      savingsOpportunity: savings(75, 210.24),
    },
  ],
  lastRefreshTimestamp: REFRESHED,
  currentPerformanceRisk: 'VeryLow',
  instanceState: 'running',
  idle: 'False',
};

/** An eu-west-1 instance whose one option, `recommended`, saves nothing. */
function instanceWithoutSavings(
  instanceId: string,
  current: string,
  recommended: string,
  fields: Partial<InstanceRecommendation>,
): InstanceRecommendation {
  return {
    instanceArn: `arn:aws:ec2:eu-west-1:${ACCOUNT}:instance/${instanceId}`,
    accountId: ACCOUNT,
    currentInstanceType: current,
    recommendationOptions: [
      { instanceType: recommended, rank: 1, performanceRisk: 1, savingsOpportunity: savings(0, 0) },
    ],
    lastRefreshTimestamp: REFRESHED,
    ...fields,
  };
}

const OPTIMIZED = instanceWithoutSavings('i-0abc000000000002', 't3.micro', 't3.micro', {
  finding: 'Optimized',
  currentPerformanceRisk: 'Low',
});

const UNDERPROVISIONED = instanceWithoutSavings('i-0abc000000000003', 't3.small', 't3.medium', {
  instanceName: 'batch',
  finding: 'Underprovisioned',
  findingReasonCodes: ['CPUUnderprovisioned'],
  currentPerformanceRisk: 'High',
});

const GP2_VOLUME: VolumeRecommendation = {
  volumeArn: `arn:aws:ec2:eu-west-1:${ACCOUNT}:volume/vol-0abc000000000001`,
  accountId: ACCOUNT,
  currentConfiguration: {
    volumeType: 'gp2',
    volumeSize: 500,
    volumeBaselineIOPS: 1500,
    volumeBaselineThroughput: 250,
  },
  finding: 'NotOptimized',
  volumeRecommendationOptions: [
    {
      configuration: {
        volumeType: 'gp3',
        volumeSize: 500,
        volumeBaselineIOPS: 3000,
        volumeBaselineThroughput: 125,
      },
      performanceRisk: 0,
      rank: 1,
      savingsOpportunity: savings(20, 10),
    },
  ],
  lastRefreshTimestamp: REFRESHED,
  currentPerformanceRisk: 'VeryLow',
};

const OVERSIZED_FUNCTION: LambdaFunctionRecommendation = {
  functionArn: `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:resize:$LATEST`,
  functionVersion: '$LATEST',
  accountId: ACCOUNT,
  currentMemorySize: 1024,
  numberOfInvocations: 250000,
  finding: 'NotOptimized',
  findingReasonCodes: ['MemoryOverprovisioned'],
  memorySizeRecommendationOptions: [
    {
      rank: 1,
      memorySize: 512,
      savingsOpportunity: savings(40, 1.234),
    },
  ],
  lastRefreshTimestamp: REFRESHED,
  currentPerformanceRisk: 'Low',
};

const UNAVAILABLE_FUNCTION: LambdaFunctionRecommendation = {
  functionArn: `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:cron:$LATEST`,
  accountId: ACCOUNT,
  currentMemorySize: 128,
  finding: 'Unavailable',
  findingReasonCodes: ['InsufficientData'],
  lastRefreshTimestamp: REFRESHED,
};

const notEnrolled = () =>
  new OptInRequiredException({
    message: 'The account is not opted in to AWS Compute Optimizer.',
    $metadata: responseMetadata(400),
  });

/** Every type answers one page with `items` of each. */
function answer(
  ec2: InstanceRecommendation[],
  ebs: VolumeRecommendation[],
  lambda: LambdaFunctionRecommendation[],
): void {
  coMock.on(GetEC2InstanceRecommendationsCommand).resolves({ instanceRecommendations: ec2, errors: [] });
  coMock.on(GetEBSVolumeRecommendationsCommand).resolves({ volumeRecommendations: ebs, errors: [] });
  coMock.on(GetLambdaFunctionRecommendationsCommand).resolves({ lambdaFunctionRecommendations: lambda });
}

beforeEach(() => {
  coMock.reset();
  ec2Mock.reset();
});

describe('aws_compute_optimizer_recs', () => {
  it('turns EC2, EBS and Lambda recommendations into ranked findings with their monthly savings', async () => {
    // Prepare
    answer(
      [OVERPROVISIONED, OPTIMIZED, UNDERPROVISIONED],
      [GP2_VOLUME],
      [OVERSIZED_FUNCTION, UNAVAILABLE_FUNCTION],
    );

    // Act
    const result = succeeded(await recommendations({ regions: ['eu-west-1'] }));

    // Assess
    const client = coMock.commandCalls(GetEC2InstanceRecommendationsCommand)[0]
      ?.thisValue as ComputeOptimizerClient;
    await expect(client.config.region()).resolves.toBe('eu-west-1');
    expect(result.truncated).toBe(false);
    expect(result.value).toMatchObject({
      resourceTypes: ['ec2', 'ebs', 'lambda'],
      recommendations: 6,
      byResourceType: { ec2: 3, ebs: 1, lambda: 2 },
      byFinding: {
        'ec2 Overprovisioned': 1,
        'ec2 Optimized': 1,
        'ec2 Underprovisioned': 1,
        'ebs NotOptimized': 1,
        'lambda NotOptimized': 1,
        'lambda Unavailable': 1,
      },
      estimatedMonthlySavings: { USD: 221.47 },
      recommendationErrors: 0,
      skippedRegions: [],
    });
    const { findings } = result.value;
    expect(findings).toMatchObject({
      total: 4,
      bySeverity: { critical: 0, high: 0, medium: 2, low: 2, info: 0 },
      byCheck: {
        compute_optimizer_ec2_overprovisioned: 1,
        compute_optimizer_ec2_underprovisioned: 1,
        compute_optimizer_ebs_not_optimized: 1,
        compute_optimizer_lambda_not_optimized: 1,
      },
      estimatedMonthlyCostUsd: 221.47,
      truncated: false,
    });
    expect(findings.top.map((f) => [f.check, f.severity, f.monthlyCost?.usd])).toEqual([
      ['compute_optimizer_ec2_overprovisioned', 'medium', 210.24],
      ['compute_optimizer_ec2_underprovisioned', 'medium', undefined],
      ['compute_optimizer_ebs_not_optimized', 'low', 10],
      ['compute_optimizer_lambda_not_optimized', 'low', 1.23],
    ]);
    expect(findings.top[0]).toEqual({
      id: findingId('compute_optimizer_ec2_overprovisioned', 'eu-west-1', WEB_ARN),
      check: 'compute_optimizer_ec2_overprovisioned',
      severity: 'medium',
      resource: WEB_ARN,
      region: 'eu-west-1',
      title:
        'EC2 instance web-1 (m5.2xlarge) is Overprovisioned (CPUOverprovisioned, MemoryOverprovisioned): ' +
        'm5.large would save 210.24 USD/month',
      monthlyCost: {
        usd: 210.24,
        priceSource: 'AWS Compute Optimizer estimated monthly savings, refreshed 2026-04-09',
      },
      details: {
        resourceType: 'ec2',
        accountId: ACCOUNT,
        finding: 'Overprovisioned',
        reasons: ['CPUOverprovisioned', 'MemoryOverprovisioned'],
        current: { instanceType: 'm5.2xlarge', instanceState: 'running', idle: 'False' },
        recommended: { instanceType: 'm5.large', migrationEffort: 'VeryLow' },
        performanceRisk: 2,
        currentPerformanceRisk: 'VeryLow',
        estimatedMonthlySavings: { value: 210.24, currency: 'USD' },
        savingsPercent: 75,
        lastRefreshTimestamp: '2026-04-09T06:00:00.000Z',
      },
    });
    expect(findings.top[2]).toMatchObject({
      title:
        'EBS volume vol-0abc000000000001 (gp2 500 GiB) is NotOptimized: gp3 500 GiB would save 10.00 USD/month',
      details: {
        current: { volumeType: 'gp2', sizeGiB: 500, baselineIops: 1500, baselineThroughputMiBps: 250 },
        recommended: { volumeType: 'gp3', sizeGiB: 500, baselineIops: 3000, baselineThroughputMiBps: 125 },
        performanceRisk: 0,
      },
    });
    expect(findings.top[3]?.title).toBe(
      'Lambda function resize:$LATEST (1024 MB) is NotOptimized (MemoryOverprovisioned): 512 MB would save 1.23 USD/month',
    );
    expect(result.summary).toBe(
      '6 Compute Optimizer recommendations in 1 region: 4 findings (0 critical, 0 high), ~$221.47/month to save',
    );
  });

  it('returns an empty list, not an error, for an enrolled account with nothing to recommend', async () => {
    // Prepare
    answer([], [], []);

    // Act
    const result = succeeded(await recommendations({ regions: ['eu-west-1'] }));

    // Assess
    expect(result.value).toMatchObject({ recommendations: 0, estimatedMonthlySavings: {} });
    expect(result.value.findings).toMatchObject({ total: 0, top: [], estimatedMonthlyCostUsd: 0 });
    expect(result.value.regions).toEqual([
      {
        region: 'eu-west-1',
        recommendations: 0,
        byResourceType: {},
        byFinding: {},
        estimatedMonthlySavings: {},
        recommendationErrors: 0,
        duplicatesSkipped: 0,
        unrecognizedValues: {},
      },
    ]);
  });

  it('follows nextToken with 1,000 recommendations a page and counts per-resource errors', async () => {
    // Prepare
    coMock
      .on(GetEC2InstanceRecommendationsCommand)
      .resolvesOnce({ instanceRecommendations: [OVERPROVISIONED], nextToken: 'page-2', errors: [] })
      .resolvesOnce({
        instanceRecommendations: [UNDERPROVISIONED],
        errors: [
          { identifier: 'i-0abc000000000009', code: 'UnsupportedInstanceType', message: 'Not supported' },
        ],
      });

    // Act
    const result = succeeded(await recommendations({ regions: ['eu-west-1'], resourceTypes: ['ec2'] }));

    // Assess
    expect(
      coMock.commandCalls(GetEC2InstanceRecommendationsCommand).map((call) => call.args[0].input),
    ).toEqual([{ maxResults: 1000 }, { maxResults: 1000, nextToken: 'page-2' }]);
    expect(coMock.commandCalls(GetEBSVolumeRecommendationsCommand)).toHaveLength(0);
    expect(coMock.commandCalls(GetLambdaFunctionRecommendationsCommand)).toHaveLength(0);
    expect(result.value).toMatchObject({
      resourceTypes: ['ec2'],
      recommendations: 2,
      recommendationErrors: 1,
    });
  });

  it('asks Lambda recommendations 1,000 at a time through the SDK paginator', async () => {
    // Prepare
    coMock
      .on(GetLambdaFunctionRecommendationsCommand)
      .resolvesOnce({ lambdaFunctionRecommendations: [OVERSIZED_FUNCTION], nextToken: 'page-2' })
      .resolvesOnce({ lambdaFunctionRecommendations: [UNAVAILABLE_FUNCTION] });

    // Act
    const result = succeeded(await recommendations({ regions: ['eu-west-1'], resourceTypes: ['lambda'] }));

    // Assess
    const calls = coMock.commandCalls(GetLambdaFunctionRecommendationsCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args[0].input).toMatchObject({ maxResults: 1000, nextToken: 'page-2' });
    expect(result.value.byFinding).toEqual({ 'lambda NotOptimized': 1, 'lambda Unavailable': 1 });
  });

  it('stops at the page cap and marks the result truncated', async () => {
    // Prepare: an answer that always has one more page
    let n = 0;
    coMock.on(GetEBSVolumeRecommendationsCommand).callsFake(async () => {
      n++;
      return { volumeRecommendations: [], nextToken: `page-${n + 1}` };
    });

    // Act
    const result = succeeded(await recommendations({ regions: ['eu-west-1'], resourceTypes: ['ebs'] }));

    // Assess
    expect(coMock.commandCalls(GetEBSVolumeRecommendationsCommand)).toHaveLength(50);
    expect(result.truncated).toBe(true);
    expect(result.value.regions[0]).toMatchObject({ region: 'eu-west-1', stoppedBy: 'page_cap' });
  });

  it('fails with opt_in_required, "not enrolled", when every region answers OptInRequiredException', async () => {
    // Prepare
    coMock.on(GetEC2InstanceRecommendationsCommand).rejects(notEnrolled());
    coMock.on(GetEBSVolumeRecommendationsCommand).rejects(notEnrolled());
    coMock.on(GetLambdaFunctionRecommendationsCommand).rejects(notEnrolled());

    // Act
    const failure = expectFailure(await recommendations({ regions: ['eu-west-1', 'us-east-1'] }));

    // Assess
    const regionError = (region: string) => ({
      region,
      error: expect.objectContaining({
        code: 'opt_in_required',
        service: 'compute-optimizer',
        details: expect.objectContaining({ awsError: 'OptInRequiredException' }),
      }),
    });
    expect(failure.error).toEqual({
      code: 'opt_in_required',
      message:
        'All 2 regions asked failed; first, eu-west-1: The account is not enrolled in Compute Optimizer: ' +
        'enroll it (console or UpdateEnrollmentStatus); recommendations follow within 24 hours ' +
        '(OptInRequiredException: The account is not opted in to AWS Compute Optimizer.)',
      retryable: false,
      service: 'compute-optimizer',
      details: { regions: [regionError('eu-west-1'), regionError('us-east-1')] },
    });
    expect(failure).not.toHaveProperty('value');
  });

  it('reports AccessDeniedException as access_denied inside the result, distinct from not enrolled', async () => {
    // Prepare
    const denied = new AccessDeniedException({
      message: `User: arn:aws:sts::${ACCOUNT}:assumed-role/audit/etp is not authorized to perform: compute-optimizer:GetEC2InstanceRecommendations`,
      $metadata: responseMetadata(400),
    });
    coMock.on(GetEC2InstanceRecommendationsCommand).callsFake(async (_input, getClient) => {
      if ((await getClient().config.region()) === 'eu-west-1') throw denied;
      return { instanceRecommendations: [], errors: [] };
    });

    // Act
    const result = succeeded(
      await recommendations({ regions: ['eu-west-1', 'us-east-1'], resourceTypes: ['ec2'] }),
    );

    // Assess
    const [report] = result.value.regions;
    expect(report).toMatchObject({
      region: 'eu-west-1',
      error: { code: 'access_denied', retryable: false, details: { awsError: 'AccessDeniedException' } },
    });
    expect(JSON.stringify(report)).not.toContain('not enrolled');
    expect(result.summary).toContain('1 region failed');
  });

  it('keeps the types that answered when one type of a region is throttled', async () => {
    // Prepare
    coMock.on(GetEC2InstanceRecommendationsCommand).resolves({ instanceRecommendations: [OVERPROVISIONED] });
    coMock.on(GetEBSVolumeRecommendationsCommand).resolves({ volumeRecommendations: [GP2_VOLUME] });
    coMock
      .on(GetLambdaFunctionRecommendationsCommand)
      .rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: responseMetadata(400) }));

    // Act
    const result = succeeded(await recommendations({ regions: ['eu-west-1'] }));

    // Assess
    expect(result.value.recommendations).toBe(2);
    expect(result.value.regions[0]).toMatchObject({
      region: 'eu-west-1',
      recommendations: 2,
      partialErrors: [
        {
          what: 'GetLambdaFunctionRecommendations',
          error: { code: 'throttled', retryable: true, service: 'compute-optimizer' },
        },
      ],
    });
    expect(result.summary).toMatch(/; GetLambdaFunctionRecommendations failed in 1 region$/);
  });

  it('fans out over the enabled regions for "all", each region its own client', async () => {
    // Prepare
    ec2Mock.on(DescribeRegionsCommand).resolves({
      Regions: [
        { RegionName: 'us-east-1', OptInStatus: 'opt-in-not-required' },
        { RegionName: 'eu-west-1', OptInStatus: 'opt-in-not-required' },
        { RegionName: 'af-south-1', OptInStatus: 'not-opted-in' },
      ],
    });
    coMock.on(GetEC2InstanceRecommendationsCommand).resolves({ instanceRecommendations: [OVERPROVISIONED] });

    // Act
    const result = succeeded(await recommendations({ regions: 'all', resourceTypes: ['ec2'] }));

    // Assess
    const regions = await Promise.all(
      coMock
        .commandCalls(GetEC2InstanceRecommendationsCommand)
        .map((call) => (call.thisValue as ComputeOptimizerClient).config.region()),
    );
    expect(regions.sort()).toEqual(['eu-west-1', 'us-east-1']);
    expect(result.value.regions.map((r) => r.region)).toEqual(['eu-west-1', 'us-east-1']);
    expect(result.value.findings.total).toBe(2);
    expect(new Set(result.value.findings.top.map((f) => f.id)).size).toBe(2);
  });
});
