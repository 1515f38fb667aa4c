/**
 * Compute Optimizer's recommendations read into one shape for every resource
 * type (EC2 instances, EBS volumes, Lambda functions): the paged reads per type
 * and region, the service's enums read whatever their spelling, the rank 1
 * option's configuration, risk and savings. The verdicts built on them are in
 * ../compute-optimizer-recs.ts.
 */
import {
  type ComputeOptimizerClient,
  GetEBSVolumeRecommendationsCommand,
  GetEC2InstanceRecommendationsCommand,
  type InstanceRecommendation,
  type LambdaFunctionRecommendation,
  paginateGetLambdaFunctionRecommendations,
  type SavingsOpportunity,
  type VolumeConfiguration,
  type VolumeRecommendation,
} from '@aws-sdk/client-compute-optimizer';
import { type PagesRead, pagesByToken, readPages } from '../../../runtime/aws/pagination';
import type { Deadline } from '../../../runtime/deadline';
import { roundCents } from '../../../runtime/text';
import type { COMPUTE_OPTIMIZER_RESOURCE_TYPES } from '../compute-optimizer-recs.meta';
import { serviceEnum, type UnrecognizedValues } from '../shared/service-enums';

/** One of {@link COMPUTE_OPTIMIZER_RESOURCE_TYPES}. */
export type ResourceType = (typeof COMPUTE_OPTIMIZER_RESOURCE_TYPES)[number];

/** Recommendations a page holds at most: `maxResults` 0-1,000 (Compute Optimizer API reference, each Get*Recommendations). */
const PAGE_SIZE = 1000;
/** 50 pages × 1,000 = 50,000 recommendations per type and region before the page cap marks the result truncated. */
export const MAX_PAGES = 50;

/**
 * `finding` of EC2, EBS and Lambda recommendations, in the SDK's spelling. The
 * service answers other spellings too: its model documentation says the
 * responses use `OVER_PROVISIONED`, `UNDER_PROVISIONED`, `OPTIMIZED`
 * (`InstanceRecommendation.finding`), so values are read through {@link serviceEnum}.
 */
const FINDING = serviceEnum('finding', [
  'Overprovisioned',
  'Underprovisioned',
  'Optimized',
  'NotOptimized',
  'Unavailable',
] as const);
/** `findingReasonCodes` of EC2 instances and Lambda functions (the SDK's two enums, joined). */
export const REASON = serviceEnum('findingReasonCodes', [
  'CPUOverprovisioned',
  'CPUUnderprovisioned',
  'DiskIOPSOverprovisioned',
  'DiskIOPSUnderprovisioned',
  'DiskThroughputOverprovisioned',
  'DiskThroughputUnderprovisioned',
  'EBSIOPSOverprovisioned',
  'EBSIOPSUnderprovisioned',
  'EBSThroughputOverprovisioned',
  'EBSThroughputUnderprovisioned',
  'GPUMemoryOverprovisioned',
  'GPUMemoryUnderprovisioned',
  'GPUOverprovisioned',
  'GPUUnderprovisioned',
  'MemoryOverprovisioned',
  'MemoryUnderprovisioned',
  'NetworkBandwidthOverprovisioned',
  'NetworkBandwidthUnderprovisioned',
  'NetworkPPSOverprovisioned',
  'NetworkPPSUnderprovisioned',
  'Inconclusive',
  'InsufficientData',
] as const);
/** `currentPerformanceRisk`: the current configuration's risk of not meeting the workload's needs. */
const PERFORMANCE_RISK = serviceEnum('currentPerformanceRisk', ['VeryLow', 'Low', 'Medium', 'High'] as const);
/** `instanceState` of EC2 recommendations. */
const INSTANCE_STATE = serviceEnum('instanceState', [
  'pending',
  'running',
  'shutting-down',
  'stopped',
  'stopping',
  'terminated',
] as const);

/** Compute Optimizer `finding` values that make a finding here; `Optimized` and `Unavailable` do not. */
/** One recommendation of any type, in the shape findings are built from. */
export interface Recommendation {
  readonly resourceType: ResourceType;
  readonly arn: string;
  readonly accountId: string | null;
  /** `EC2 instance web-1`, `EBS volume vol-0abc`, `Lambda function resize`. */
  readonly label: string;
  /**
   * Compute Optimizer's finding in the SDK's spelling (Overprovisioned,
   * Underprovisioned, NotOptimized, Optimized, Unavailable), or the value as
   * answered when this tool does not know it (`findingRecognized: false`).
   */
  readonly finding: string;
  readonly findingRecognized: boolean;
  /** Reason codes, in the SDK's spelling where known, else as answered. */
  readonly reasons: string[];
  readonly current: Record<string, unknown>;
  /** The rank 1 option's configuration; null when Compute Optimizer offers none. */
  readonly recommended: Record<string, unknown> | null;
  /** How the current and recommended configurations read in a title (`m5.2xlarge`, `gp2 500 GiB`). */
  readonly currentText: string;
  readonly recommendedText: string | null;
  /** The rank 1 option's performance risk, 0 (none) to 4 (very high); null where the type has none (Lambda). */
  readonly performanceRisk: number | null;
  /** VeryLow, Low, Medium or High: the current configuration's risk of not meeting the workload's needs. */
  readonly currentPerformanceRisk: string | null;
  /** The rank 1 option's `savingsOpportunity` (before discounts). */
  readonly estimatedMonthlySavings: { readonly value: number; readonly currency: string } | null;
  readonly savingsPercent: number | null;
  readonly lastRefreshTimestamp: string | null;
}

/** The canonical finding of a recommendation, or the value as answered. */
function findingOf(
  raw: string | undefined,
  unrecognized: UnrecognizedValues,
): Pick<Recommendation, 'finding' | 'findingRecognized'> {
  const known = FINDING.parse(raw, unrecognized);
  return known
    ? { finding: known, findingRecognized: true }
    : { finding: raw || 'Unknown', findingRecognized: false };
}

function reasonsOf(raw: readonly string[] | undefined, unrecognized: UnrecognizedValues): string[] {
  return (raw ?? []).map((reason) => REASON.parse(reason, unrecognized) ?? reason);
}

function riskOf(raw: string | undefined, unrecognized: UnrecognizedValues): string | null {
  return raw ? (PERFORMANCE_RISK.parse(raw, unrecognized) ?? raw) : null;
}

function savingsOf(
  opportunity: SavingsOpportunity | undefined,
): Pick<Recommendation, 'estimatedMonthlySavings' | 'savingsPercent'> {
  const savings = opportunity?.estimatedMonthlySavings;
  return {
    estimatedMonthlySavings:
      savings?.value === undefined || savings.currency === undefined
        ? null
        : { value: roundCents(savings.value), currency: savings.currency },
    savingsPercent: opportunity?.savingsOpportunityPercentage ?? null,
  };
}

/** The option ranked 1 (the lowest rank) among Compute Optimizer's options. */
function topOption<O extends { rank?: number }>(options: readonly O[] | undefined): O | undefined {
  return [...(options ?? [])].sort(
    (a, b) => (a.rank ?? Number.MAX_SAFE_INTEGER) - (b.rank ?? Number.MAX_SAFE_INTEGER),
  )[0];
}

/** The last `/`- or `:`-separated part of an ARN: a volume id, a function name (and version). */
function arnName(arn: string, after: string): string {
  const index = arn.indexOf(after);
  return index >= 0 ? arn.slice(index + after.length) : arn;
}

function fromInstance(rec: InstanceRecommendation, unrecognized: UnrecognizedValues): Recommendation {
  const arn = rec.instanceArn ?? 'unknown';
  const option = topOption(rec.recommendationOptions);
  return {
    resourceType: 'ec2',
    arn,
    accountId: rec.accountId ?? null,
    label: `EC2 instance ${rec.instanceName || arnName(arn, 'instance/')}`,
    ...findingOf(rec.finding, unrecognized),
    reasons: reasonsOf(rec.findingReasonCodes, unrecognized),
    current: {
      instanceType: rec.currentInstanceType ?? null,
      instanceState: rec.instanceState
        ? (INSTANCE_STATE.parse(rec.instanceState, unrecognized) ?? rec.instanceState)
        : null,
      idle: rec.idle ?? null,
    },
    recommended: option
      ? { instanceType: option.instanceType ?? null, migrationEffort: option.migrationEffort ?? null }
      : null,
    currentText: rec.currentInstanceType ?? 'unknown type',
    recommendedText: option?.instanceType ?? null,
    performanceRisk: option?.performanceRisk ?? null,
    currentPerformanceRisk: riskOf(rec.currentPerformanceRisk, unrecognized),
    ...savingsOf(option?.savingsOpportunity),
    lastRefreshTimestamp: rec.lastRefreshTimestamp?.toISOString() ?? null,
  };
}

function volumeConfig(config: VolumeConfiguration | undefined): Record<string, unknown> {
  return {
    volumeType: config?.volumeType ?? null,
    sizeGiB: config?.volumeSize ?? null,
    baselineIops: config?.volumeBaselineIOPS ?? null,
    baselineThroughputMiBps: config?.volumeBaselineThroughput ?? null,
  };
}

function volumeText(config: VolumeConfiguration | undefined): string {
  return `${config?.volumeType ?? '?'} ${config?.volumeSize ?? '?'} GiB`;
}

function fromVolume(rec: VolumeRecommendation, unrecognized: UnrecognizedValues): Recommendation {
  const arn = rec.volumeArn ?? 'unknown';
  const option = topOption(rec.volumeRecommendationOptions);
  return {
    resourceType: 'ebs',
    arn,
    accountId: rec.accountId ?? null,
    label: `EBS volume ${arnName(arn, 'volume/')}`,
    ...findingOf(rec.finding, unrecognized),
    reasons: [],
    current: volumeConfig(rec.currentConfiguration),
    recommended: option ? volumeConfig(option.configuration) : null,
    currentText: volumeText(rec.currentConfiguration),
    recommendedText: option ? volumeText(option.configuration) : null,
    performanceRisk: option?.performanceRisk ?? null,
    currentPerformanceRisk: riskOf(rec.currentPerformanceRisk, unrecognized),
    ...savingsOf(option?.savingsOpportunity),
    lastRefreshTimestamp: rec.lastRefreshTimestamp?.toISOString() ?? null,
  };
}

function fromFunction(rec: LambdaFunctionRecommendation, unrecognized: UnrecognizedValues): Recommendation {
  const arn = rec.functionArn ?? 'unknown';
  const option = topOption(rec.memorySizeRecommendationOptions);
  return {
    resourceType: 'lambda',
    arn,
    accountId: rec.accountId ?? null,
    label: `Lambda function ${arnName(arn, ':function:')}`,
    ...findingOf(rec.finding, unrecognized),
    reasons: reasonsOf(rec.findingReasonCodes, unrecognized),
    current: { memoryMb: rec.currentMemorySize ?? null, invocations: rec.numberOfInvocations ?? null },
    recommended: option ? { memoryMb: option.memorySize ?? null } : null,
    currentText: `${rec.currentMemorySize ?? '?'} MB`,
    recommendedText: option?.memorySize === undefined ? null : `${option.memorySize} MB`,
    performanceRisk: null,
    currentPerformanceRisk: riskOf(rec.currentPerformanceRisk, unrecognized),
    ...savingsOf(option?.savingsOpportunity),
    lastRefreshTimestamp: rec.lastRefreshTimestamp?.toISOString() ?? null,
  };
}

export type OnRecommendations = (recommendations: Recommendation[], errors: number) => void;
type PageReader = { readonly onPage: OnRecommendations; readonly unrecognized: UnrecognizedValues };
type PageOptions = { readonly maxPages: number; readonly deadline: Deadline };

/**
 * Reads one type's recommendations in one region. EC2 and EBS have no SDK
 * paginator, Lambda has one; `errors` counts the per-resource
 * `GetRecommendationError`s a page reports.
 */
export const READERS: Record<
  ResourceType,
  (client: ComputeOptimizerClient, reader: PageReader, options: PageOptions) => Promise<PagesRead>
> = {
  ec2: (client, { onPage, unrecognized }, options) =>
    readPages(
      pagesByToken((nextToken) =>
        client.send(new GetEC2InstanceRecommendationsCommand({ maxResults: PAGE_SIZE, nextToken })),
      ),
      (page) =>
        onPage(
          (page.instanceRecommendations ?? []).map((rec) => fromInstance(rec, unrecognized)),
          page.errors?.length ?? 0,
        ),
      options,
    ),
  ebs: (client, { onPage, unrecognized }, options) =>
    readPages(
      pagesByToken((nextToken) =>
        client.send(new GetEBSVolumeRecommendationsCommand({ maxResults: PAGE_SIZE, nextToken })),
      ),
      (page) =>
        onPage(
          (page.volumeRecommendations ?? []).map((rec) => fromVolume(rec, unrecognized)),
          page.errors?.length ?? 0,
        ),
      options,
    ),
  lambda: (client, { onPage, unrecognized }, options) =>
    readPages(
      paginateGetLambdaFunctionRecommendations({ client, pageSize: PAGE_SIZE }, {}),
      (page) =>
        onPage(
          (page.lambdaFunctionRecommendations ?? []).map((rec) => fromFunction(rec, unrecognized)),
          0,
        ),
      options,
    ),
};
