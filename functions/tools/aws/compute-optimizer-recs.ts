import { ComputeOptimizerClient } from '@aws-sdk/client-compute-optimizer';
import type { PagesRead } from '../../runtime/aws/pagination';
import { mapBounded, type Settled } from '../../runtime/concurrency';
import type { Deadline } from '../../runtime/deadline';
import { normalizeError } from '../../runtime/normalize-error';
import { defineTool } from '../../runtime/spec';
import { increment, plural, roundCents } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import {
  MAX_PAGES,
  type OnRecommendations,
  READERS,
  REASON,
  type Recommendation,
  type ResourceType,
} from './compute-optimizer/recommendations';
import { computeOptimizerRecsSpec } from './compute-optimizer-recs.meta';
import { auditResult } from './shared/audit-parts';
import { type Finding, SEVERITIES, type Severity } from './shared/findings';
import {
  auditValue,
  firstStop,
  newFinding,
  type RegionScanEnd,
  type RegionScope,
  runRegionalAudit,
} from './shared/regional-audit';
import type { UnrecognizedValues } from './shared/service-enums';

const SERVICE = 'compute-optimizer';

/** Severity by estimated monthly savings in USD: the first threshold reached wins. */
const SAVINGS_SEVERITY: readonly { readonly minUsd: number; readonly severity: Severity }[] = [
  { minUsd: 500, severity: 'high' },
  { minUsd: 50, severity: 'medium' },
  { minUsd: 0.01, severity: 'low' },
];

const ACTIONABLE: ReadonlySet<string> = new Set(['Overprovisioned', 'Underprovisioned', 'NotOptimized']);

/** The operation behind each type, as partial errors name it. */
const OPERATION: Record<ResourceType, string> = {
  ec2: 'GetEC2InstanceRecommendations',
  ebs: 'GetEBSVolumeRecommendations',
  lambda: 'GetLambdaFunctionRecommendations',
};

function snakeCase(text: string): string {
  return text.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

function savingsSeverity(rec: Recommendation): Severity {
  const savings = rec.estimatedMonthlySavings;
  if (!savings || savings.value <= 0) return 'info';
  if (savings.currency !== 'USD') return 'low'; // the USD thresholds do not apply to other currencies
  return SAVINGS_SEVERITY.find((level) => savings.value >= level.minUsd)?.severity ?? 'info';
}

/**
 * The worse of the performance risk's severity (medium: the resource is short of
 * something, whatever the money says) and the savings' severity.
 */
function severityOf(rec: Recommendation, performanceAtRisk: boolean): Severity {
  const bySavings = savingsSeverity(rec);
  return performanceAtRisk && SEVERITIES.indexOf(bySavings) > SEVERITIES.indexOf('medium')
    ? 'medium'
    : bySavings;
}

/**
 * `currentPerformanceRisk` values that say the current configuration may not meet
 * the workload's needs ("The higher the risk, the more likely the current
 * [resource] doesn't have sufficient capacity", Compute Optimizer API reference,
 * "VolumeRecommendation", "InstanceRecommendation", "LambdaFunctionRecommendation").
 * EBS recommendations carry no reason codes: this is how an under-sized volume shows.
 */
const AT_RISK: ReadonlySet<string> = new Set(['Medium', 'High']);

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
  const atRisk = rec.currentPerformanceRisk !== null && AT_RISK.has(rec.currentPerformanceRisk);
  const underprovisioned = rec.finding === 'Underprovisioned' || rec.reasons.some(isShortOf) || atRisk;
  const savings = rec.estimatedMonthlySavings;
  const causes = [
    ...rec.reasons,
    ...(atRisk ? [`current performance risk ${rec.currentPerformanceRisk}`] : []),
  ];
  const because = causes.length > 0 ? ` (${causes.join(', ')})` : '';
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
  { clientConfig, region, stats, findings, once }: RegionScope<RecommendationStats>,
  types: readonly ResourceType[],
  deadline: Deadline,
  tool: string,
): Promise<RegionScanEnd> {
  const client = new ComputeOptimizerClient(clientConfig);
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
  const failed = settled.filter((s): s is Extract<Settled<ResourceType, PagesRead>, { ok: false }> => !s.ok);
  if (failed[0] && failed.length === settled.length && skipped.length === 0) throw failed[0].error;
  const reads = settled.flatMap((s) => (s.ok ? [s.value] : []));
  const stop = skipped.length > 0 ? { stoppedBy: 'deadline' as const } : firstStop(...reads);
  return {
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
    (scope) => scanRegion(scope, types, ctx.deadline, ctx.tool),
  );
  return auditResult(audit, plural(audit.totals.recommendations, 'Compute Optimizer recommendation'), {
    resourceTypes: types,
    ...auditValue(audit),
  });
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(computeOptimizerRecsTool);
