import {
  ComputeOptimizerClient,
  GetEBSVolumeRecommendationsCommand,
  GetEC2InstanceRecommendationsCommand,
  type InstanceRecommendation,
  type LambdaFunctionRecommendation,
  paginateGetLambdaFunctionRecommendations,
  type SavingsOpportunity,
  type VolumeConfiguration,
  type VolumeRecommendation,
} from '@aws-sdk/client-compute-optimizer';
import { awsClientConfig } from '../../runtime/aws/client-config';
import { type PagesRead, pagesByToken, readPages } from '../../runtime/aws/pagination';
import { mapBounded, type Settled } from '../../runtime/concurrency';
import type { Deadline } from '../../runtime/deadline';
import { normalizeError } from '../../runtime/normalize-error';
import { defineTool } from '../../runtime/spec';
import { increment, plural, roundCents } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import {
  type COMPUTE_OPTIMIZER_RESOURCE_TYPES,
  computeOptimizerRecsSpec,
} from './compute-optimizer-recs.meta';
import { regionalAuditSummary } from './shared/audit-parts';
import { type Finding, FirstSeen, type Severity } from './shared/findings';
import {
  auditValue,
  firstStop,
  newFinding,
  type RegionScan,
  runRegionalAudit,
} from './shared/regional-audit';
import { serviceEnum, type UnrecognizedValues, unrecognizedNote } from './shared/service-enums';

const SERVICE = 'compute-optimizer';

/** One of {@link COMPUTE_OPTIMIZER_RESOURCE_TYPES}. */
export type ResourceType = (typeof COMPUTE_OPTIMIZER_RESOURCE_TYPES)[number];

/** Recommendations a page holds at most: `maxResults` 0-1,000 (Compute Optimizer API reference, each Get*Recommendations). */
const PAGE_SIZE = 1000;
/** 50 pages × 1,000 = 50,000 recommendations per type and region before the page cap marks the result truncated. */
const MAX_PAGES = 50;

/** Severity by estimated monthly savings in USD: the first threshold reached wins. */
const SAVINGS_SEVERITY: readonly { readonly minUsd: number; readonly severity: Severity }[] = [
  { minUsd: 500, severity: 'high' },
  { minUsd: 50, severity: 'medium' },
  { minUsd: 0.01, severity: 'low' },
];

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
const REASON = serviceEnum('findingReasonCodes', [
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
const ACTIONABLE: ReadonlySet<string> = new Set(['Overprovisioned', 'Underprovisioned', 'NotOptimized']);

/** The operation behind each type, as partial errors name it. */
const OPERATION: Record<ResourceType, string> = {
  ec2: 'GetEC2InstanceRecommendations',
  ebs: 'GetEBSVolumeRecommendations',
  lambda: 'GetLambdaFunctionRecommendations',
};

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

type OnRecommendations = (recommendations: Recommendation[], errors: number) => void;
type PageReader = { readonly onPage: OnRecommendations; readonly unrecognized: UnrecognizedValues };
type PageOptions = { readonly maxPages: number; readonly deadline: Deadline };

/**
 * Reads one type's recommendations in one region. EC2 and EBS have no SDK
 * paginator, Lambda has one; `errors` counts the per-resource
 * `GetRecommendationError`s a page reports.
 */
const READERS: Record<
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

function snakeCase(text: string): string {
  return text.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

function severityOf(rec: Recommendation, underprovisioned: boolean): Severity {
  // Under-provisioned resources risk the workload's performance whatever the money says.
  if (underprovisioned) return 'medium';
  const savings = rec.estimatedMonthlySavings;
  if (!savings || savings.value <= 0) return 'info';
  if (savings.currency !== 'USD') return 'low'; // the USD thresholds do not apply to other currencies
  return SAVINGS_SEVERITY.find((level) => savings.value >= level.minUsd)?.severity ?? 'info';
}

/** Reason codes that say a resource is short of something (`CPUUnderprovisioned`, `MemoryUnderprovisioned`…). */
function isShortOf(reason: string): boolean {
  return REASON.values.includes(reason as never) && reason.endsWith('Underprovisioned');
}

/**
 * An `info` finding for a recommendation whose `finding` this tool does not
 * know: it is reported, with the value as answered, never dropped.
 */
function unrecognizedFinding(rec: Recommendation, region: string): Finding {
  return newFinding({
    check: `compute_optimizer_${rec.resourceType}_unrecognized_finding`,
    severity: 'info',
    resource: rec.arn,
    region,
    title:
      `${rec.label} (${rec.currentText}): Compute Optimizer answered finding "${rec.finding}", ` +
      'which this tool does not know; review the recommendation in Compute Optimizer',
    details: {
      resourceType: rec.resourceType,
      finding: rec.finding,
      reasons: rec.reasons,
      recommended: rec.recommended,
      estimatedMonthlySavings: rec.estimatedMonthlySavings,
    },
  });
}

/**
 * A finding for a resource Compute Optimizer says is not optimized, an `info`
 * one for a finding value this tool does not know; undefined otherwise.
 */
export function recommendationFinding(rec: Recommendation, region: string): Finding | undefined {
  if (!rec.findingRecognized) return unrecognizedFinding(rec, region);
  if (!ACTIONABLE.has(rec.finding)) return undefined;
  const underprovisioned = rec.finding === 'Underprovisioned' || rec.reasons.some(isShortOf);
  const savings = rec.estimatedMonthlySavings;
  const because = rec.reasons.length > 0 ? ` (${rec.reasons.join(', ')})` : '';
  const advice = rec.recommendedText
    ? `: ${rec.recommendedText}${savings && savings.value > 0 ? ` would save ${savings.value.toFixed(2)} ${savings.currency}/month` : ' recommended'}`
    : '';
  return newFinding({
    check: `compute_optimizer_${rec.resourceType}_${snakeCase(rec.finding)}`,
    severity: severityOf(rec, underprovisioned),
    resource: rec.arn,
    region,
    title: `${rec.label} (${rec.currentText}) is ${rec.finding}${because}${advice}`,
    ...(savings && savings.currency === 'USD' && savings.value > 0
      ? {
          monthlyCost: {
            usd: savings.value,
            priceSource: `AWS Compute Optimizer estimated monthly savings, refreshed ${rec.lastRefreshTimestamp?.slice(0, 10) ?? 'unknown'}`,
          },
        }
      : {}),
    details: {
      resourceType: rec.resourceType,
      accountId: rec.accountId,
      finding: rec.finding,
      reasons: rec.reasons,
      current: rec.current,
      recommended: rec.recommended,
      performanceRisk: rec.performanceRisk,
      currentPerformanceRisk: rec.currentPerformanceRisk,
      estimatedMonthlySavings: rec.estimatedMonthlySavings,
      savingsPercent: rec.savingsPercent,
      lastRefreshTimestamp: rec.lastRefreshTimestamp,
    },
  });
}

/** Counts per region, added up over regions. */
type RecommendationStats = {
  /** Recommendations read, optimized ones included. */
  recommendations: number;
  byResourceType: Record<string, number>;
  /** By `<type> <finding>`: `ec2 Overprovisioned`, `lambda Optimized`. */
  byFinding: Record<string, number>;
  /** Sum of the rank 1 options' estimated monthly savings, by currency. */
  estimatedMonthlySavings: Record<string, number>;
  /** Resources Compute Optimizer could not give a recommendation for (`errors[]` of its answers). */
  recommendationErrors: number;
  /** Recommendations answered twice for the same resource (counted once). */
  duplicatesSkipped: number;
  /** Enum values this tool does not know, by `field:value` (reported, never dropped). */
  unrecognizedValues: UnrecognizedValues;
};

function emptyStats(): RecommendationStats {
  return {
    recommendations: 0,
    byResourceType: {},
    byFinding: {},
    estimatedMonthlySavings: {},
    recommendationErrors: 0,
    duplicatesSkipped: 0,
    unrecognizedValues: {},
  };
}

/**
 * Reads the chosen types in one region, at once. A type that fails is a partial
 * error of the region; when every type fails the region fails with the first
 * error. Enrollment is per account, not per region: an account not enrolled
 * fails every type in every region alike, and the fan-out then fails the call
 * with the code all regions share, `opt_in_required` ("not enrolled"), instead of
 * a list of identical region errors that would read as "nothing to recommend".
 */
async function scanRegion(
  client: ComputeOptimizerClient,
  region: string,
  types: readonly ResourceType[],
  deadline: Deadline,
  tool: string,
): Promise<RegionScan<RecommendationStats>> {
  const stats = emptyStats();
  const findings: Finding[] = [];
  const once = new FirstSeen();
  const onPage: OnRecommendations = (recommendations, errors) => {
    stats.recommendationErrors += errors;
    for (const rec of recommendations) {
      if (!once.first(rec.arn === 'unknown' ? undefined : `${rec.resourceType}|${rec.arn}`)) continue;
      stats.recommendations++;
      increment(stats.byResourceType, rec.resourceType);
      increment(stats.byFinding, `${rec.resourceType} ${rec.finding}`);
      const savings = rec.estimatedMonthlySavings;
      if (savings && savings.value > 0) {
        increment(stats.estimatedMonthlySavings, savings.currency, savings.value, roundCents);
      }
      const finding = recommendationFinding(rec, region);
      if (finding) findings.push(finding);
    }
  };
  const { settled, skipped } = await mapBounded(
    types,
    (type) =>
      READERS[type](
        client,
        { onPage, unrecognized: stats.unrecognizedValues },
        { maxPages: MAX_PAGES, deadline },
      ),
    { concurrency: types.length, deadline },
  );
  stats.duplicatesSkipped = once.duplicates;
  const failed = settled.filter((s): s is Extract<Settled<ResourceType, PagesRead>, { ok: false }> => !s.ok);
  if (failed[0] && failed.length === settled.length && skipped.length === 0) throw failed[0].error;
  const reads = settled.flatMap((s) => (s.ok ? [s.value] : []));
  const stop = skipped.length > 0 ? { stoppedBy: 'deadline' as const } : firstStop(...reads);
  return {
    stats,
    findings,
    ...stop,
    partialErrors: failed.map((s) => ({
      what: OPERATION[s.item],
      error: normalizeError(tool, s.error, SERVICE),
    })),
  };
}

/** `aws_compute_optimizer_recs` with its handler. */
export const computeOptimizerRecsTool = defineTool(computeOptimizerRecsSpec, async (ctx, args) => {
  const types = [...new Set(args.resourceTypes)];
  const audit = await runRegionalAudit(
    ctx,
    { regions: args.regions, topN: args.topN, service: SERVICE, emptyStats: emptyStats() },
    (access, region) =>
      scanRegion(
        new ComputeOptimizerClient(awsClientConfig(access, region)),
        region,
        types,
        ctx.deadline,
        ctx.tool,
      ),
  );
  return {
    value: { resourceTypes: types, ...auditValue(audit) },
    truncated: audit.truncated,
    summary:
      regionalAuditSummary(
        `${plural(audit.totals.recommendations, 'Compute Optimizer recommendation')}`,
        audit,
      ) + unrecognizedNote(audit.totals.unrecognizedValues),
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(computeOptimizerRecsTool);
