import { type Anomaly, paginateGetAnomalies, type RootCause } from '@aws-sdk/client-cost-explorer';
import { type PagesRead, readPages, stopFields } from '../../runtime/aws/pagination';
import { defineTool } from '../../runtime/spec';
import { compareText, formatUsd, increment, plural, roundCents } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import {
  COST_ANOMALIES_DEFAULT_DAYS,
  COST_ANOMALIES_RETENTION_DAYS,
  costAnomaliesSpec,
} from './cost-anomalies.meta';
import {
  costExplorerClient,
  costExplorerUsage,
  type InclusivePeriod,
  inclusivePeriod,
  utcToday,
} from './shared/cost-explorer';
import { type Finding, FirstSeen, findingId, SEVERITIES, type Severity } from './shared/findings';
import { serviceEnum, type UnrecognizedValues, unrecognizedNote } from './shared/service-enums';

/** The finding check of every anomaly. */
export const COST_ANOMALY_CHECK = 'ce_cost_anomaly';

/**
 * GetAnomalies pages read at most: every page is a billed request (USD 0.01),
 * so one call costs at most USD 0.10.
 */
const MAX_PAGES = 10;

/** Root causes kept per anomaly, largest contribution first; the count of all is kept too. */
const MAX_ROOT_CAUSES = 5;

/** Severity by total impact, USD: the first threshold reached wins; below all, `low`. */
const IMPACT_SEVERITY: readonly { readonly minUsd: number; readonly severity: Severity }[] = [
  { minUsd: 1000, severity: 'high' },
  { minUsd: 100, severity: 'medium' },
];

/** `Feedback` (Cost Explorer API reference, "Anomaly"): YES, NO, PLANNED_ACTIVITY. */
const FEEDBACK = serviceEnum('Feedback', ['YES', 'NO', 'PLANNED_ACTIVITY'] as const);

/** One root cause of an anomaly (Cost Explorer API reference, "RootCause"). */
export interface AnomalyRootCause {
  readonly service: string | null;
  readonly region: string | null;
  readonly linkedAccount: string | null;
  readonly linkedAccountName: string | null;
  readonly usageType: string | null;
  /** This cause's share of the impact, USD. */
  readonly contributionUsd: number | null;
}

/** What an anomaly finding's `details` hold (a type, not an interface, to fit `Finding.details`). */
export type AnomalyDetails = {
  readonly anomalyId: string;
  readonly monitorArn: string | null;
  readonly startDate: string | null;
  readonly endDate: string | null;
  /** The monitored dimension's value (the service, for a SERVICE monitor). */
  readonly dimensionValue: string | null;
  /** USD, rounded to cents; percent with 2 decimals (Cost Explorer API reference, "Impact"). */
  readonly impact: {
    readonly totalImpactUsd: number | null;
    readonly maxImpactUsd: number | null;
    readonly totalActualSpendUsd: number | null;
    readonly totalExpectedSpendUsd: number | null;
    readonly totalImpactPercent: number | null;
  };
  readonly score: { readonly max: number | null; readonly current: number | null };
  readonly rootCauses: AnomalyRootCause[];
  readonly rootCauseCount: number;
  /** YES (a real anomaly), NO (not one), PLANNED_ACTIVITY, or null when none was given. */
  readonly feedback: string | null;
};

/** An anomaly as a finding, with the impact it is ranked by. */
type AnomalyFinding = Finding & { readonly details: AnomalyDetails };

function cents(amount: number | undefined): number | null {
  return amount === undefined ? null : roundCents(amount);
}

function rootCauseOf(cause: RootCause): AnomalyRootCause {
  return {
    service: cause.Service ?? null,
    region: cause.Region ?? null,
    linkedAccount: cause.LinkedAccount ?? null,
    linkedAccountName: cause.LinkedAccountName ?? null,
    usageType: cause.UsageType ?? null,
    contributionUsd: cents(cause.Impact?.Contribution),
  };
}

/** The impact anomalies are ranked by: older anomalies may lack `TotalImpact`, `MaxImpact` is always present. */
function impactOf(details: AnomalyDetails): number {
  return details.impact.totalImpactUsd ?? details.impact.maxImpactUsd ?? 0;
}

function severityOf(impactUsd: number): Severity {
  return IMPACT_SEVERITY.find((level) => impactUsd >= level.minUsd)?.severity ?? 'low';
}

function toFinding(anomaly: Anomaly, unrecognized: UnrecognizedValues): AnomalyFinding {
  const anomalyId = anomaly.AnomalyId ?? 'unknown';
  const impact = anomaly.Impact;
  const causes = (anomaly.RootCauses ?? [])
    .map(rootCauseOf)
    .sort((a, b) => (b.contributionUsd ?? 0) - (a.contributionUsd ?? 0));
  const details: AnomalyDetails = {
    anomalyId,
    monitorArn: anomaly.MonitorArn ?? null,
    startDate: anomaly.AnomalyStartDate ?? null,
    endDate: anomaly.AnomalyEndDate ?? null,
    dimensionValue: anomaly.DimensionValue ?? null,
    impact: {
      totalImpactUsd: cents(impact?.TotalImpact),
      maxImpactUsd: cents(impact?.MaxImpact),
      totalActualSpendUsd: cents(impact?.TotalActualSpend),
      totalExpectedSpendUsd: cents(impact?.TotalExpectedSpend),
      totalImpactPercent:
        impact?.TotalImpactPercentage === undefined
          ? null
          : Math.round(impact.TotalImpactPercentage * 100) / 100,
    },
    score: {
      max: anomaly.AnomalyScore?.MaxScore ?? null,
      current: anomaly.AnomalyScore?.CurrentScore ?? null,
    },
    rootCauses: causes.slice(0, MAX_ROOT_CAUSES),
    rootCauseCount: causes.length,
    feedback: anomaly.Feedback ? (FEEDBACK.parse(anomaly.Feedback, unrecognized) ?? anomaly.Feedback) : null,
  };
  const impactUsd = impactOf(details);
  const cause = causes[0];
  const account = cause?.linkedAccountName ?? cause?.linkedAccount;
  const where = cause
    ? `${cause.service ?? details.dimensionValue ?? 'unknown service'}${cause.region ? ` in ${cause.region}` : ''}${account ? ` (account ${account})` : ''}`
    : (details.dimensionValue ?? 'unknown dimension');
  const percent =
    details.impact.totalImpactPercent === null ? '' : ` (${details.impact.totalImpactPercent}%)`;
  // Without TotalImpact the figure is MaxImpact, the largest impact observed: a floor of the total, not the total.
  const spend =
    details.impact.totalImpactUsd === null && details.impact.maxImpactUsd !== null
      ? `at least ${formatUsd(impactUsd)} (its largest impact; no total given)`
      : formatUsd(impactUsd);
  return {
    id: findingId(COST_ANOMALY_CHECK, 'global', anomalyId),
    check: COST_ANOMALY_CHECK,
    severity: severityOf(impactUsd),
    resource: anomalyId,
    region: 'global',
    title: `Unexpected spend of ${spend}${percent} on ${where}, ${details.startDate ?? '?'}..${details.endDate ?? 'ongoing'}`,
    details,
  };
}

/** Highest impact first, then by id: a stable order. */
function byImpact(a: AnomalyFinding, b: AnomalyFinding): number {
  return impactOf(b.details) - impactOf(a.details) || compareText(a.id, b.id);
}

/** What `aws_cost_anomalies` returns. */
export interface CostAnomalies {
  /** The window the anomalies' last day falls in, inclusive. */
  readonly window: InclusivePeriod;
  readonly anomalyCount: number;
  /**
   * Sum of the anomalies' total impact, USD, over the anomalies that carry one:
   * `Impact.TotalImpact` is optional (Cost Explorer API reference, "Impact"; only
   * `MaxImpact` is required), so those without it are counted in
   * `anomaliesWithoutTotalImpact` and left out of this sum, never added as 0 unsaid.
   */
  readonly totalImpactUsd: number;
  /** Anomalies whose answer has no `TotalImpact` (ranked and rated by `MaxImpact`), not in `totalImpactUsd`. */
  readonly anomaliesWithoutTotalImpact: number;
  readonly bySeverity: Record<Severity, number>;
  /** Counts by feedback; `none` for anomalies nobody gave feedback on. */
  readonly byFeedback: Record<string, number>;
  /** Anomalies Cost Explorer answered twice (counted once). */
  readonly duplicatesSkipped: number;
  /** Feedback values this tool does not know, by `field:value` (kept as answered). */
  readonly unrecognizedValues: UnrecognizedValues;
  /** The topN anomalies by impact, highest first. */
  readonly anomalies: AnomalyFinding[];
  readonly costExplorer: ReturnType<typeof costExplorerUsage>;
  /** Set when reading stopped early: why, and the `NextPageToken` to resume from (`stopFields`). */
  readonly stoppedBy?: PagesRead['stoppedBy'];
  readonly nextToken?: string;
  readonly stopError?: PagesRead['stopError'];
}

/** `aws_cost_anomalies` with its handler. */
export const costAnomaliesTool = defineTool(costAnomaliesSpec, async (ctx, args) => {
  const today = utcToday();
  // Validated before any (billed) request.
  const window = inclusivePeriod(args.start, args.end, {
    today,
    maxDays: COST_ANOMALIES_RETENTION_DAYS + 1,
    maxAgeDays: COST_ANOMALIES_RETENTION_DAYS,
    maxAgeReason: `Cost Explorer keeps anomalies for ${COST_ANOMALIES_RETENTION_DAYS} days`,
    defaultDays: COST_ANOMALIES_DEFAULT_DAYS,
    defaultEnd: today,
  });
  const client = costExplorerClient(await ctx.aws());
  const findings: AnomalyFinding[] = [];
  const once = new FirstSeen();
  const unrecognizedValues: UnrecognizedValues = {};
  const read = await readPages(
    paginateGetAnomalies(
      { client },
      {
        // Unlike GetCostAndUsage's TimePeriod, AnomalyDateInterval is inclusive: EndDate is
        // "the last date an anomaly was observed" (Cost Explorer API reference, "AnomalyDateInterval").
        DateInterval: { StartDate: window.start, EndDate: window.end },
        MonitorArn: args.monitorArn,
        Feedback: args.feedback,
        TotalImpact:
          args.minTotalImpact === undefined
            ? undefined
            : { NumericOperator: 'GREATER_THAN_OR_EQUAL', StartValue: args.minTotalImpact },
      },
    ),
    (page) => {
      for (const anomaly of page.Anomalies ?? []) {
        if (once.first(anomaly.AnomalyId)) findings.push(toFinding(anomaly, unrecognizedValues));
      }
    },
    { maxPages: MAX_PAGES, deadline: ctx.deadline },
  );
  // Unread is not "no anomalies".
  if (read.pages === 0) ctx.deadline.check('reading anomalies from Cost Explorer');

  findings.sort(byImpact);
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  const byFeedback: Record<string, number> = {};
  let totalImpact = 0;
  let withoutTotal = 0;
  for (const finding of findings) {
    bySeverity[finding.severity]++;
    const feedback = finding.details.feedback ?? 'none';
    increment(byFeedback, feedback);
    const total = finding.details.impact.totalImpactUsd;
    if (total === null) withoutTotal++;
    else totalImpact += total;
  }
  const truncated = read.stoppedBy !== undefined;
  const value: CostAnomalies = {
    window,
    anomalyCount: findings.length,
    totalImpactUsd: roundCents(totalImpact),
    anomaliesWithoutTotalImpact: withoutTotal,
    bySeverity,
    byFeedback,
    duplicatesSkipped: once.duplicates,
    unrecognizedValues,
    anomalies: findings.slice(0, args.topN),
    costExplorer: costExplorerUsage(read.pages),
    ...stopFields(read),
  };
  const top = findings[0];
  return {
    value,
    truncated,
    summary:
      `${plural(findings.length, 'cost anomaly', 'cost anomalies')} ${window.start}..${window.end}` +
      `, total impact ${formatUsd(value.totalImpactUsd)}` +
      `${withoutTotal > 0 ? ` excl. ${withoutTotal} without TotalImpact` : ''}` +
      ` (${bySeverity.high} high, ${bySeverity.medium} medium)` +
      `${top ? `; largest: ${top.title}` : ''}` +
      `; ${plural(read.pages, 'Cost Explorer request')} (~${formatUsd(value.costExplorer.estimatedCostUsd)})` +
      `${truncated ? '; partial' : ''}${unrecognizedNote(unrecognizedValues)}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(costAnomaliesTool);
