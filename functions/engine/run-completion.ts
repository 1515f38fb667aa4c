import { formatUsd, plural } from '../runtime/text';
import type { RunSummary } from './summary';

/** How a run ended, as the `Run Completed` event says it (docs/entry-points.md). */
export type RunStatus = 'SUCCEEDED' | 'PARTIAL' | 'FAILED' | 'TIMED_OUT';

/** What the `Run Completed` event carries beyond the run's identity. */
export interface RunCompletion {
  readonly status: RunStatus;
  /** One line for people: what the run did and what it cost. */
  readonly summary: string;
  /** Estimated USD of the run (docs/scenarios.md, "Run summary"). */
  readonly cost: { readonly totalUsd: number };
}

/**
 * The completion of a run from its summary: `SUCCEEDED` when every level ended
 * with its result, else `PARTIAL` (the run went on past a level that did not).
 *
 * @example runCompletion(summary) // { status: 'PARTIAL', summary: 'aws_pulse: 2 of 3 levels with their result; 12 calls, 11 ok; ~$0.03', … }
 */
export function runCompletion(summary: RunSummary): RunCompletion {
  const withResult = summary.levels.filter((level) => level.hasResult).length;
  const calls = summary.levels.flatMap((level) => level.calls);
  const ok = calls.filter((call) => call.ok).length;
  return {
    status: summary.outcome === 'succeeded' ? 'SUCCEEDED' : 'PARTIAL',
    summary:
      `${summary.scenario}: ${withResult} of ${plural(summary.levels.length, 'level')} with their result; ` +
      `${plural(calls.length, 'call')}, ${ok} ok; ~${formatUsd(summary.cost.totalUsd)}` +
      (summary.budget && summary.budget.skipped.length > 0 ? `. ${summary.budget.summary}` : ''),
    cost: { totalUsd: summary.cost.totalUsd },
  };
}
