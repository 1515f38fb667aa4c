import { CloudTrailClient, DescribeTrailsCommand } from '@aws-sdk/client-cloudtrail';
import { awsClientConfig } from '../../runtime/aws/client-config';
import { regionErrorExplainer, resolveRegions } from '../../runtime/aws/enabled-regions';
import { forEachRegion } from '../../runtime/aws/region-fan-out';
import { mapBounded } from '../../runtime/concurrency';
import { normalizeError } from '../../runtime/normalize-error';
import { defineTool } from '../../runtime/spec';
import { compareText, plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { type RegionCoverage, regionCoverage, regionFindings, trailFindings } from './cloudtrail/coverage';
import { describedTrail, readTrail, type TrailReport } from './cloudtrail/trail-report';
import { cloudtrailCoverageSpec } from './cloudtrail-coverage.meta';
import { callerAccount } from './shared/account';
import { type Finding, type FindingsSummary, summarizeFindings, worstSeverityRank } from './shared/findings';
import { type UnrecognizedValues, unrecognizedNote } from './shared/service-enums';

/** Trails whose status and selectors are read at once (2 requests each). */
const TRAIL_CONCURRENCY = 4;

/** What `aws_cloudtrail_coverage` returns. */
export interface CloudTrailCoverageValue {
  readonly accountId: string;
  /** Regions asked for (resolved from "all"). */
  readonly regionsChecked: number;
  /** Region names by coverage (see {@link RegionCoverage}); `unknown` includes regions that failed. */
  readonly covered: string[];
  /** Covered by an organization trail owned by another account (its status is the owner's to read). */
  readonly organization: string[];
  /** Recorded by trails whose delivery fails: not covered. */
  readonly failing: string[];
  readonly partial: string[];
  readonly uncovered: string[];
  readonly unknown: string[];
  /** Regions not checked because the deadline passed. */
  readonly skippedRegions: string[];
  /** Each checked region's coverage, trails, and error if any. */
  readonly regions: RegionCoverage[];
  /** Distinct trails applying to the checked regions. */
  readonly totalTrails: number;
  /** Names of the organization trails among them. */
  readonly organizationTrails: string[];
  /** The first topN trails, worst finding first. */
  readonly trails: TrailReport[];
  readonly findings: FindingsSummary;
  /** Selector values this tool does not know, by `field:value` (credited with no coverage). */
  readonly unrecognizedValues: UnrecognizedValues;
}

/** Regions by coverage, as the summary counts them. */
interface CoverageCounts {
  readonly covered: number;
  readonly organization: number;
  readonly failing: number;
  readonly unknown: number;
  /** Regions whose trails could not be listed (counted in `unknown`). */
  readonly failed: number;
  readonly regions: number;
}

/**
 * The summary's opening: how many regions are covered, by this account's trails
 * or an organization trail, how many record but fail to deliver, and how many
 * could not be told. When no region could be, coverage is unknown, never "0 of N covered".
 */
function coverageNote(counts: CoverageCounts): string {
  const { covered, organization, failing, unknown, failed, regions } = counts;
  const of = `${plural(regions, 'region')}`;
  const failedNote = failed > 0 ? ` (${plural(failed, 'region')} failed)` : '';
  if (unknown === regions) {
    const where = regions === 1 ? 'the one region asked' : `all ${of}`;
    return `CloudTrail coverage unknown in ${where}: trails or regions unreadable${failedNote}`;
  }
  return (
    `${covered} of ${of} covered by a logging, delivering multi-region trail (management reads and writes)` +
    `${organization > 0 ? `; ${organization} by an organization trail of another account` : ''}` +
    `${failing > 0 ? `; ${failing} recorded but not delivered` : ''}` +
    `${unknown > 0 ? `; coverage unknown in ${unknown}${failedNote}` : ''}`
  );
}

/** `aws_cloudtrail_coverage` with its handler. */
export const cloudtrailCoverageTool = defineTool(cloudtrailCoverageSpec, async (ctx, args) => {
  const access = await ctx.aws();
  // Fails the call once with auth_failed when the credentials are bad; the account keys finding ids.
  const { accountId } = await callerAccount(access);
  const regions = await resolveRegions(args.regions, access);
  const clients = new Map<string, CloudTrailClient>();
  const clientFor = (region: string): CloudTrailClient => {
    let client = clients.get(region);
    if (!client) {
      client = new CloudTrailClient(awsClientConfig(access, region));
      clients.set(region, client);
    }
    return client;
  };
  const describeError = (err: unknown) => normalizeError(ctx.tool, err, 'cloudtrail');

  // In each region, the trails that apply there: its own, and other regions' multi-region and
  // organization trails as "shadow trails" (CloudTrail API reference, "DescribeTrails").
  const listed = await forEachRegion(
    regions,
    async (region) => {
      const { trailList } = await clientFor(region).send(
        new DescribeTrailsCommand({ includeShadowTrails: true }),
      );
      return (trailList ?? []).map((trail) => describedTrail(trail, region));
    },
    {
      tool: ctx.tool,
      service: 'cloudtrail',
      deadline: ctx.deadline,
      explainError: regionErrorExplainer(access),
    },
  );

  // Each trail is read once, in its home region, however many regions list it.
  const distinct = new Map<string, TrailReport>();
  for (const outcome of listed.outcomes) {
    if (outcome.ok)
      for (const trail of outcome.value) if (!distinct.has(trail.arn)) distinct.set(trail.arn, trail);
  }
  const unrecognizedValues: UnrecognizedValues = {};
  const read = await mapBounded(
    [...distinct.values()],
    (trail) => readTrail(clientFor(trail.homeRegion), trail, describeError, accountId, unrecognizedValues),
    { concurrency: TRAIL_CONCURRENCY, deadline: ctx.deadline },
  );
  for (const outcome of read.settled) {
    if (!outcome.ok) throw outcome.error; // readTrail records its errors on the trail and never throws
    distinct.set(outcome.item.arn, outcome.value);
  }

  const findings: Finding[] = [];
  const coverage: RegionCoverage[] = listed.outcomes.map((outcome) => {
    if (!outcome.ok) {
      return { region: outcome.region, coverage: 'unknown', trails: [], coveredBy: [], error: outcome.error };
    }
    const trails = outcome.value.map((trail) => distinct.get(trail.arn) ?? trail);
    return regionCoverage(outcome.region, trails);
  });
  for (const region of coverage) findings.push(...regionFindings(region, accountId));
  const trails = [...distinct.values()].map((trail) => {
    const own = trailFindings(trail, accountId);
    findings.push(...own);
    return { trail, worst: worstSeverityRank(own) };
  });

  const regionsBy = (state: RegionCoverage['coverage']) =>
    coverage.filter((r) => r.coverage === state).map((r) => r.region);
  const covered = regionsBy('covered');
  const uncovered = regionsBy('uncovered');
  const summary = summarizeFindings(findings, args.topN);
  const truncated = listed.skipped.length > 0 || read.skipped.length > 0;
  const value: CloudTrailCoverageValue = {
    accountId,
    regionsChecked: regions.length,
    covered,
    organization: regionsBy('organization'),
    failing: regionsBy('failing'),
    partial: regionsBy('partial'),
    uncovered,
    unknown: regionsBy('unknown'),
    skippedRegions: listed.skipped,
    regions: coverage,
    totalTrails: distinct.size,
    organizationTrails: trails.filter((t) => t.trail.organizationTrail).map((t) => t.trail.name),
    trails: trails
      .sort((a, b) => a.worst - b.worst || compareText(a.trail.arn, b.trail.arn))
      .slice(0, args.topN)
      .map((t) => t.trail),
    findings: summary,
    unrecognizedValues,
  };
  return {
    value,
    truncated,
    summary:
      coverageNote({
        covered: covered.length,
        organization: value.organization.length,
        failing: value.failing.length,
        unknown: value.unknown.length,
        failed: listed.outcomes.filter((o) => !o.ok).length,
        regions: regions.length,
      }) +
      `${uncovered.length > 0 ? `; uncovered: ${uncovered.join(', ')}` : ''}; ${plural(distinct.size, 'trail')}; ` +
      `${plural(summary.total, 'finding')} ` +
      `(${summary.bySeverity.critical} critical, ${summary.bySeverity.high} high)${truncated ? '; partial' : ''}` +
      unrecognizedNote(unrecognizedValues),
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(cloudtrailCoverageTool);
