import { mapBounded } from '../concurrency';
import type { Deadline } from '../deadline';
import { normalizeError } from '../normalize-error';
import type { ToolErrorInfo } from '../result';

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

/**
 * Runs `task` for each region with at most `concurrency` in flight ({@link mapBounded}). A region's
 * failure is recorded in its outcome (never failing the others); regions not yet
 * started when the deadline passes are listed in `skipped`.
 *
 * @param tool - tool name for error normalization.
 * @param service - service name for errors (`ec2`).
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
  },
): Promise<FanOut<T>> {
  const { settled, skipped } = await mapBounded(regions, task, {
    concurrency: options.concurrency ?? DEFAULT_REGION_CONCURRENCY,
    deadline: options.deadline,
  });
  const outcomes = settled.map(
    (s): RegionOutcome<T> =>
      s.ok
        ? { region: s.item, ok: true, value: s.value }
        : { region: s.item, ok: false, error: normalizeError(options.tool, s.error, options.service) },
  );
  return { outcomes, skipped };
}
