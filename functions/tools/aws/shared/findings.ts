import { createHash } from 'node:crypto';
import { compareText, increment, roundCents } from '../../../runtime/text';
import { CIS_VERSION, controlsFor, type FindingControls } from './controls';

/** Finding severities, most severe first (the order `rankFindings` uses). */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** One severity. */
export type Severity = (typeof SEVERITIES)[number];

/** An estimated monthly cost and where its price came from. */
export interface MonthlyCost {
  /** Estimated cost per month in USD (730 hours; AWS's own monthly convention). */
  readonly usd: number;
  /** The price's source page and date, e.g. `Amazon EC2 pricing, Elastic IP addresses (2026-11)`. */
  readonly priceSource: string;
}

/**
 * One audit finding: the same resource and the same check give the same `id` on
 * every run, so runs can be diffed and findings tracked.
 */
export interface Finding {
  /** Stable id: see {@link findingId}. */
  readonly id: string;
  /** The check that fired, snake_case (`ebs_unattached_volume`). */
  readonly check: string;
  readonly severity: Severity;
  /** The resource's ARN or, where AWS gives none, its id. */
  readonly resource: string;
  readonly region: string;
  /** One sentence for people and models. */
  readonly title: string;
  /** Present where AWS publishes a price for what the finding wastes or costs. */
  readonly monthlyCost?: MonthlyCost;
  /** Check-specific facts (sizes, ports, dates). */
  readonly details?: Record<string, unknown>;
  /** The Security Hub CSPM controls and CIS recommendations it evidences (see `controls.ts`); absent when none. */
  readonly controls?: FindingControls;
}

/**
 * A finding's stable id: `<check>:<first 16 hex of sha256(check|account|region|resource)>`.
 * Same inputs, same id, on every run and machine.
 *
 * @example findingId('ebs_unattached_volume', 'us-east-1', 'vol-0abc') // 'ebs_unattached_volume:5f0c…'
 */
export function findingId(check: string, region: string, resource: string, account = ''): string {
  const digest = createHash('sha256').update(`${check}|${account}|${region}|${resource}`).digest('hex');
  return `${check}:${digest.slice(0, 16)}`;
}

/**
 * A finding with its id and the controls its check and details evidence
 * ({@link controlsFor}): every finding builder goes through here, so no finding
 * misses its controls.
 *
 * @example buildFinding(findingId('eip_unassociated', 'eu-west-1', 'eipalloc-1'), { check: 'eip_unassociated', … })
 * // { id, check, …, controls: { securityHub: ['EC2.12'], cis: [] } }
 */
export function buildFinding(id: string, input: Omit<Finding, 'id' | 'controls'>): Finding {
  const controls = controlsFor(input.check, input.details);
  return { id, ...input, ...(controls ? { controls } : {}) };
}

/** Orders findings: severity first, then monthly cost (highest first), then id. Returns a new array. */
export function rankFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      (b.monthlyCost?.usd ?? 0) - (a.monthlyCost?.usd ?? 0) ||
      compareText(a.id, b.id),
  );
}

/**
 * Where the worst of `findings` stands in {@link SEVERITIES}: 0 for critical …
 * 4 for info, 5 (`SEVERITIES.length`) for none. Ranks resources by their worst finding.
 *
 * @example worstSeverityRank([{ severity: 'low' }, { severity: 'high' }]) // 1
 */
export function worstSeverityRank(findings: readonly Pick<Finding, 'severity'>[]): number {
  return Math.min(SEVERITIES.length, ...findings.map((f) => SEVERITIES.indexOf(f.severity)));
}

/** A bounded view of many findings: counts of all of them, the top N in full. */
export interface FindingsSummary {
  readonly total: number;
  readonly bySeverity: Record<Severity, number>;
  readonly byCheck: Record<string, number>;
  /**
   * Findings by the control they evidence: `SecurityHub:S3.8`, and `CIS-3.0.0:2.1.4`
   * for CIS AWS Foundations Benchmark recommendations (the version in the key).
   */
  readonly byControl: Record<string, number>;
  /** Sum of every finding's monthly cost estimate, USD, rounded to cents. */
  readonly estimatedMonthlyCostUsd: number;
  /** The first `topN` of {@link rankFindings}. */
  readonly top: Finding[];
  /** Whether `top` leaves findings out. */
  readonly truncated: boolean;
}

/**
 * The findings with each id once, the first kept: the same check on the same
 * resource is one finding however many times AWS listed the resource (a user
 * twice in a credential report, an instance on two pages).
 */
export function distinctFindings(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((finding) => !seen.has(finding.id) && Boolean(seen.add(finding.id)));
}

/**
 * Counts plus the top N (docs/design.md, "Output bounded in size"), over the
 * {@link distinctFindings}.
 *
 * @example summarizeFindings(findings, 20).top.length <= 20
 */
export function summarizeFindings(findings: readonly Finding[], topN: number): FindingsSummary {
  const distinct = distinctFindings(findings);
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  const byCheck: Record<string, number> = {};
  const byControl: Record<string, number> = {};
  let cost = 0;
  for (const finding of distinct) {
    bySeverity[finding.severity]++;
    increment(byCheck, finding.check);
    for (const id of finding.controls?.securityHub ?? []) increment(byControl, `SecurityHub:${id}`);
    for (const id of finding.controls?.cis ?? []) increment(byControl, `CIS-${CIS_VERSION}:${id}`);
    cost += finding.monthlyCost?.usd ?? 0;
  }
  return {
    total: distinct.length,
    bySeverity,
    byCheck,
    byControl,
    estimatedMonthlyCostUsd: roundCents(cost),
    top: rankFindings(distinct).slice(0, topN),
    truncated: distinct.length > topN,
  };
}

/**
 * Keeps the first of resources listed more than once (a credential report row
 * repeated, a page boundary that moved while paging) and counts the rest, so a
 * resource is counted and judged once. Keys are scoped by the caller (one filter
 * per region for regional resources).
 *
 * @example
 * const once = new FirstSeen();
 * for (const v of volumes) { if (!once.first(v.VolumeId)) continue; … } // once.duplicates: rows skipped
 * once.each(page.Volumes, (v) => v.VolumeId, (v) => …); // the same loop
 */
export class FirstSeen {
  private readonly keys = new Set<string>();
  /** Rows skipped because their key was seen before. */
  duplicates = 0;

  /** True the first time `key` is seen; a row without a key cannot be matched and always passes. */
  first(key: string | undefined | null): boolean {
    if (key === undefined || key === null || key === '') return true;
    if (this.keys.has(key)) {
      this.duplicates++;
      return false;
    }
    this.keys.add(key);
    return true;
  }

  /**
   * Calls `visit` with each of `items` whose `key` is seen for the first time
   * (see {@link first}); the others are skipped and counted in `duplicates`.
   *
   * @example once.each(page.Volumes, (volume) => volume.VolumeId, (volume) => audit(volume));
   */
  each<T>(
    items: readonly T[] | undefined,
    key: (item: T) => string | undefined | null,
    visit: (item: T) => void,
  ): void {
    for (const item of items ?? []) if (this.first(key(item))) visit(item);
  }
}
