import { mapBounded } from '../concurrency';
import type { Deadline } from '../deadline';
import { DeadlineExceededError, PlatformError } from '../errors';
import { normalizeError } from '../normalize-error';
import type { ToolErrorInfo } from '../result';
import { plural } from '../text';
import type { RegionErrorExplainer } from './enabled-regions';

/**
 * Regions called at once in a fan-out, unless the tool says otherwise. 20 covers
 * the 17 regions every account has enabled by default plus a few opt-in ones in
 * one wave, so a `regions: "all"` call lasts about as long as its slowest region
 * (with 6, 17 regions took at least 3 waves: bench/run.ts measured 1.7× the ideal).
 * Request rate limits apply per account per Region (EC2 API reference, "Request
 * throttling"), so a wider fan-out adds no throttling in any one region; the cap
 * bounds the pages held in memory and the open connections.
 */
export const DEFAULT_REGION_CONCURRENCY = 20;

/** One region's outcome in a fan-out: its value, or its normalized error. */
export type RegionOutcome<T> =
  | { readonly region: string; readonly ok: true; readonly value: T }
  | { readonly region: string; readonly ok: false; readonly error: ToolErrorInfo };

/** What {@link forEachRegion} returns. */
export interface FanOut<T> {
  /** In the order of `regions`; regions skipped at the deadline are absent. */
  readonly outcomes: RegionOutcome<T>[];
  /** Regions not started because the deadline passed. */
  readonly skipped: string[];
}

/** A region's failure as a fan-out that failed as a whole lists it in `details.regions`. */
interface RegionFailure {
  readonly region: string;
  readonly error: ToolErrorInfo;
}

/**
 * The error of a fan-out in which no region succeeded, for at least one region
 * asked: "0 instances, 1 region failed" would read as an empty account.
 *
 * - Some regions were skipped at the deadline: `timeout` (retryable).
 * - Every region failed: the regions' code when they all share one (all
 *   `network_error`, all `auth_failed`, all `opt_in_required`…), else
 *   `upstream_error`; retryable when any region's error is.
 *
 * The message names the counts and the first region's error; `details.regions`
 * lists each failed region with its error (`details.skippedRegions` the skipped).
 */
function noRegionSucceeded(
  failures: readonly RegionFailure[],
  skipped: readonly string[],
  service: string,
): PlatformError {
  const first = failures[0];
  const details = {
    regions: failures.map(({ region, error }) => ({ region, error })),
    ...(skipped.length > 0 ? { skippedRegions: [...skipped] } : {}),
  };
  if (skipped.length > 0 || !first) {
    const failed = first
      ? `; ${plural(failures.length, 'region')} failed, first ${first.region}: ${first.error.message}`
      : '';
    return new DeadlineExceededError(
      `Deadline reached before any region answered: ${plural(skipped.length, 'region')} not started${failed}`,
      { service, details },
    );
  }
  const codes = new Set(failures.map(({ error }) => error.code));
  const [shared] = codes;
  const what =
    failures.length === 1
      ? `The one region asked (${first.region}) failed`
      : `All ${failures.length} regions asked failed; first, ${first.region}`;
  return new PlatformError(
    codes.size === 1 && shared ? shared : 'upstream_error',
    `${what}: ${first.error.message}`,
    {
      retryable: failures.some(({ error }) => error.retryable),
      service: first.error.service ?? service,
      details,
    },
  );
}

/**
 * Runs `task` for each region with at most `concurrency` in flight ({@link mapBounded}). A region's
 * failure is recorded in its outcome (never failing the others); regions not yet
 * started when the deadline passes are listed in `skipped`.
 *
 * When regions were asked and none succeeded, there is nothing to report: the
 * fan-out throws instead of returning outcomes that are all errors, so the tool
 * fails (`ok: false`) rather than answering "0 found". A fan-out with at least
 * one region answered returns as usual, its failed regions in `outcomes`.
 *
 * @param tool - tool name for error normalization.
 * @param service - service name for errors (`ec2`).
 * @param explainError - rewrites a region's normalized error before it is recorded
 *   or decides the call's code: `regionErrorExplainer` (enabled-regions.ts) turns the `AuthFailure`
 *   of a region the account has not enabled into `opt_in_required`, and the
 *   `ENOTFOUND` of a name that is no region into `invalid_args`.
 * @throws PlatformError when no region succeeded: the regions' shared code
 *   (`network_error`, `access_denied`, `opt_in_required`…) or `upstream_error`,
 *   `timeout` when the deadline left regions unstarted; `details.regions` lists
 *   each region's error.
 * @example
 * const { outcomes, skipped } = await forEachRegion(['eu-west-1', 'us-east-1'],
 *   (region) => listInstances(region), { tool: 'aws_ec2_inventory', service: 'ec2', deadline });
 */
export async function forEachRegion<T>(
  regions: readonly string[],
  task: (region: string) => Promise<T>,
  options: {
    readonly tool: string;
    readonly service: string;
    readonly deadline?: Deadline;
    readonly concurrency?: number;
    readonly explainError?: RegionErrorExplainer;
  },
): Promise<FanOut<T>> {
  const { settled, skipped } = await mapBounded(regions, task, {
    concurrency: options.concurrency ?? DEFAULT_REGION_CONCURRENCY,
    deadline: options.deadline,
  });
  const explain = options.explainError;
  const outcomes = await Promise.all(
    settled.map(async (s): Promise<RegionOutcome<T>> => {
      if (s.ok) return { region: s.item, ok: true, value: s.value };
      const error = normalizeError(options.tool, s.error, options.service);
      return { region: s.item, ok: false, error: explain ? await explain(s.item, error) : error };
    }),
  );
  if (regions.length > 0 && !outcomes.some((o) => o.ok)) {
    const failures = outcomes.flatMap((o) => (o.ok ? [] : [{ region: o.region, error: o.error }]));
    throw noRegionSucceeded(failures, skipped, options.service);
  }
  return { outcomes, skipped };
}
