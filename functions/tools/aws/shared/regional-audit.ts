/**
 * What every regional AWS audit tool does the same way: resolve the regions, fan
 * out with per-region errors kept in the result, collect findings with stable ids,
 * add up the regions' counts, and summarize (counts plus the top N).
 */

import { type AwsClientConfig, awsClientConfig } from '../../../runtime/aws/client-config';
import type { AwsAccess } from '../../../runtime/aws/credentials';
import {
  type RegionSelection,
  regionErrorExplainer,
  resolveRegions,
} from '../../../runtime/aws/enabled-regions';
import { type PageStop, type PagesRead, stopFields } from '../../../runtime/aws/pagination';
import { forEachRegion } from '../../../runtime/aws/region-fan-out';
import type { ToolContext } from '../../../runtime/context';
import type { ToolErrorInfo } from '../../../runtime/result';
import { formatUsd, increment, plural } from '../../../runtime/text';
import {
  buildFinding,
  type Finding,
  type FindingsSummary,
  FirstSeen,
  findingId,
  summarizeFindings,
} from './findings';

/**
 * Counts kept per region and added up over regions: numbers, or maps of numbers
 * (`byType: { gp2: 3 }`). USD amounts may be summed unrounded by the scan: every
 * fractional figure is rounded to cents in the report (integers stay exact).
 */
export type AuditStats = Record<string, number | Record<string, number>>;

/** A failure that spoiled part of a region's scan (one resource, or one secondary call), not the region. */
export interface PartialError {
  /** What could not be read, e.g. `CloudWatch GetMetricData`. */
  readonly what: string;
  readonly error: ToolErrorInfo;
}

/**
 * What a tool's scan of one region returns. Everything a region contributes to
 * the result comes back here, and {@link runRegionalAudit} merges it only when
 * the scan completed: a region that answers page 1 and fails on page 2 adds
 * nothing (its error is its line in `regions[]`), so totals, maps and listed
 * items always add up to the regions that succeeded.
 */
export interface RegionScan<S extends AuditStats, L = never> {
  readonly stats: S;
  readonly findings: readonly Finding[];
  /** Items the tool lists (instances, databases), merged into {@link RegionalAudit.listed}. */
  readonly listed?: readonly L[];
  /** Set when a paginated read of this region stopped early (see {@link firstStop}). */
  readonly stoppedBy?: PageStop;
  /** The token that resumes the read that stopped (`PagesRead.nextToken`). */
  readonly nextToken?: string;
  /** What stopped it when it was throttled (`PagesRead.stopError`). */
  readonly stopError?: ToolErrorInfo;
  /** Parts of the scan that failed while the rest succeeded. */
  readonly partialErrors?: readonly PartialError[];
}

/**
 * What {@link runRegionalAudit} hands each region's scan: the region, its SDK
 * client configuration, and the three things every scan fills the same way —
 * fresh stats to count into, the findings list to push to, and one
 * {@link FirstSeen} for the region's resources. After the scan, `stats` and
 * `findings` are the region's {@link RegionScan}, and `once.duplicates` is its
 * `duplicatesSkipped` when the stats have that key.
 */
export interface RegionScope<S extends AuditStats> {
  readonly access: AwsAccess;
  readonly region: string;
  /** `awsClientConfig(access, region)`: `new EC2Client(scope.clientConfig)`. */
  readonly clientConfig: AwsClientConfig;
  /** This region's counts: a fresh copy of `emptyStats`. */
  readonly stats: S;
  /** This region's findings (`newFinding`), in the order found. */
  readonly findings: Finding[];
  /**
   * Resources of this region already seen (`once.each(page.Volumes, (v) => v.VolumeId, …)`):
   * a resource listed twice is judged once. Ids of different kinds (`vol-`, `snap-`) never collide.
   */
  readonly once: FirstSeen;
}

/**
 * What a scan returns beside what it counted into its {@link RegionScope}: its
 * listed items, how a read stopped early (`stopFields(read)`, {@link firstStop})
 * and its partial errors. `{}` for a scan whose reads all completed.
 */
export type RegionScanEnd<L = never> = Omit<RegionScan<AuditStats, L>, 'stats' | 'findings'>;

/** One region's line in an audit's `regions[]`: its counts, or its normalized error. */
export type RegionReport<S extends AuditStats> =
  | ({ readonly region: string } & S & {
        readonly stoppedBy?: PageStop;
        readonly nextToken?: string;
        readonly stopError?: ToolErrorInfo;
        readonly partialErrors?: readonly PartialError[];
      })
  | { readonly region: string; readonly error: ToolErrorInfo };

/** What {@link runRegionalAudit} returns. */
export interface RegionalAudit<S extends AuditStats, L = never> {
  /** The regions asked for (resolved from `"all"`). */
  readonly regions: readonly string[];
  /** Every region's stats added up (regions that failed count for nothing). */
  readonly totals: S;
  /** Counts of every finding, the top N in full. */
  readonly findings: FindingsSummary;
  /** The listed items of the regions that completed, in region order (see {@link RegionScan.listed}). */
  readonly listed: L[];
  /** Each scanned region's stats or error, in the order of `regions`. */
  readonly regionReports: RegionReport<S>[];
  /** Regions not started because the deadline passed. */
  readonly skippedRegions: string[];
  /** Regions whose scan failed (their error is in `regionReports`). */
  readonly failedRegions: number;
  /** True when the deadline or a page cap left regions or pages unread. */
  readonly truncated: boolean;
}

/**
 * The `value` of a regional audit tool: the totals of every region, the findings
 * (counts plus the top N), each region's counts or error, and the regions the
 * deadline left unread. Tools add their own fields beside these.
 */
export type AuditValue<S extends AuditStats> = S & {
  readonly findings: FindingsSummary;
  readonly regions: RegionReport<S>[];
  readonly skippedRegions: string[];
};

/** The {@link AuditValue} of an audit. */
export function auditValue<S extends AuditStats>(audit: RegionalAudit<S, unknown>): AuditValue<S> {
  return {
    ...audit.totals,
    findings: audit.findings,
    regions: audit.regionReports,
    skippedRegions: audit.skippedRegions,
  };
}

/** Options of {@link runRegionalAudit}. */
export interface RegionalAuditOptions<S extends AuditStats> {
  /** The tool's `regions` argument. */
  readonly regions: RegionSelection | undefined;
  /** How many findings to list in full. */
  readonly topN: number;
  /** Service reported in region errors (`ec2`, `rds`). */
  readonly service: string;
  /** Stats of an account with nothing in it: the starting point of `totals`, all keys present. */
  readonly emptyStats: S;
  /** Regions scanned at once. @default DEFAULT_REGION_CONCURRENCY */
  readonly concurrency?: number;
}

/**
 * Runs `scan` in every region of the tool's `regions` argument and puts the
 * results together. Each scan gets its {@link RegionScope} (client config, fresh
 * stats, findings, {@link FirstSeen}) and returns what stopped its reads early;
 * what it counted and found is merged only when it completed. Credentials are resolved once first, so a bad secret fails
 * the call once with `auth_failed` instead of once per region; a region whose
 * scan throws is reported in `regionReports[].error` without failing the others.
 * When no region succeeds the call fails (see {@link forEachRegion}).
 *
 * @throws what `ctx.aws()`, the credential provider or `resolveRegions` throw
 *   (the harness normalizes it): nothing can be audited without them.
 * @throws PlatformError from {@link forEachRegion} when no region succeeded.
 * @example
 * const audit = await runRegionalAudit(ctx, { regions: args.regions, topN: args.topN,
 *   service: 'ec2', emptyStats: { vpcs: 0, duplicatesSkipped: 0 } }, async ({ clientConfig, stats, once }) => {
 *     const client = new EC2Client(clientConfig);
 *     const read = await readPages(paginateDescribeVpcs({ client }, {}), (page) =>
 *       once.each(page.Vpcs, (vpc) => vpc.VpcId, () => stats.vpcs++), { deadline: ctx.deadline });
 *     return stopFields(read);
 *   });
 */
export async function runRegionalAudit<S extends AuditStats, L = never>(
  ctx: ToolContext,
  options: RegionalAuditOptions<S>,
  scan: (scope: RegionScope<S>) => Promise<RegionScanEnd<L>>,
): Promise<RegionalAudit<S, L>> {
  const access = await ctx.aws();
  await access.credentials();
  const regions = await resolveRegions(options.regions, access);
  const scanRegion = async (region: string): Promise<RegionScan<S, L>> => {
    const scope: RegionScope<S> = {
      access,
      region,
      clientConfig: awsClientConfig(access, region),
      stats: structuredClone(options.emptyStats),
      findings: [],
      once: new FirstSeen(),
    };
    const end = await scan(scope);
    const stats: AuditStats = scope.stats;
    if (typeof stats.duplicatesSkipped === 'number') stats.duplicatesSkipped = scope.once.duplicates;
    return { ...end, stats: scope.stats, findings: scope.findings };
  };
  const { outcomes, skipped } = await forEachRegion(regions, scanRegion, {
    tool: ctx.tool,
    service: options.service,
    deadline: ctx.deadline,
    explainError: regionErrorExplainer(access),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });

  const findings: Finding[] = [];
  const listed: L[] = [];
  const scanned: S[] = [];
  const regionReports: RegionReport<S>[] = [];
  let stopped = false;
  for (const outcome of outcomes) {
    if (!outcome.ok) {
      regionReports.push({ region: outcome.region, error: outcome.error });
      continue;
    }
    const { stoppedBy, nextToken, stopError, partialErrors } = outcome.value;
    const stats = addStats(options.emptyStats, [outcome.value.stats]); // rounds the region's USD sums
    findings.push(...outcome.value.findings);
    listed.push(...(outcome.value.listed ?? []));
    scanned.push(stats);
    stopped ||= stoppedBy !== undefined;
    regionReports.push({
      region: outcome.region,
      ...stats,
      ...stopFields({ pages: 0, stoppedBy, nextToken, stopError }),
      ...(partialErrors?.length ? { partialErrors } : {}),
    });
  }
  return {
    regions,
    totals: addStats(options.emptyStats, scanned),
    findings: summarizeFindings(findings, options.topN),
    listed,
    regionReports,
    skippedRegions: skipped,
    failedRegions: outcomes.filter((o) => !o.ok).length,
    truncated: stopped || skipped.length > 0,
  };
}

function roundSum(value: number): number {
  // Counts and byte totals stay exact; only fractional (USD) sums are rounded to cents.
  return Number.isInteger(value) ? value : Math.round(value * 100) / 100;
}

/**
 * Adds up region stats key by key (maps merged key by key) onto a copy of `empty`.
 *
 * @example addStats({ n: 0, byType: {} }, [{ n: 2, byType: { gp2: 2 } }, { n: 1, byType: { gp3: 1 } }])
 * // => { n: 3, byType: { gp2: 2, gp3: 1 } }
 */
export function addStats<S extends AuditStats>(empty: S, items: readonly S[]): S {
  const total: AuditStats = structuredClone(empty);
  for (const item of items) {
    for (const [key, value] of Object.entries(item)) {
      const current = total[key];
      if (typeof value === 'number') {
        total[key] = roundSum((typeof current === 'number' ? current : 0) + value);
        continue;
      }
      const map: Record<string, number> = typeof current === 'object' ? current : {};
      for (const [name, n] of Object.entries(value)) increment(map, name, n, roundSum);
      total[key] = map;
    }
  }
  return total as S;
}

/**
 * How the first of a region's paginated reads that stopped early stopped
 * (`stoppedBy`, `nextToken`, `stopError`: {@link stopFields}), or `{}` when none did.
 */
export function firstStop(...reads: readonly (PagesRead | undefined)[]): ReturnType<typeof stopFields> {
  return stopFields(reads.find((read) => read?.stoppedBy !== undefined));
}

/** A finding before its id is computed. */
export type FindingInput = Omit<Finding, 'id' | 'controls'> & {
  /**
   * What identifies the finding within its check and region when the resource
   * alone does not (one security group, several open rules). @default resource
   */
  readonly key?: string;
};

/**
 * A {@link Finding} with its stable id: `findingId(check, region, key ?? resource)`,
 * and the controls it evidences (`controls.ts`).
 *
 * @example newFinding({ check: 'eip_unassociated', severity: 'low', resource: 'eipalloc-1',
 *   region: 'eu-west-1', title: 'Elastic IP 203.0.113.10 is not associated' });
 */
export function newFinding(input: FindingInput): Finding {
  const { key, ...finding } = input;
  return buildFinding(findingId(input.check, input.region, key ?? input.resource), finding);
}

/**
 * The one-line summary of an audit: what was looked at, where, the findings by
 * their two worst severities, the monthly USD their fixes would save (the sum of
 * the findings' `monthlyCost`), failed regions and `partial`.
 *
 * @param subject - what was counted, e.g. `12 EBS volumes`.
 * @example auditSummary('3 Elastic IPs', audit)
 * // => '3 Elastic IPs in 2 regions: 1 finding (0 critical, 0 high), ~$3.65/month to save; 1 region failed'
 */
export function auditSummary(subject: string, audit: RegionalAudit<AuditStats, unknown>): string {
  const { findings } = audit;
  const cost =
    findings.estimatedMonthlyCostUsd > 0
      ? `, ~${formatUsd(findings.estimatedMonthlyCostUsd)}/month to save`
      : '';
  const failed = audit.failedRegions > 0 ? `; ${plural(audit.failedRegions, 'region')} failed` : '';
  return (
    `${subject} in ${plural(audit.regions.length, 'region')}: ${plural(findings.total, 'finding')} ` +
    `(${findings.bySeverity.critical} critical, ${findings.bySeverity.high} high)${cost}${failed}` +
    `${audit.truncated ? '; partial' : ''}`
  );
}
