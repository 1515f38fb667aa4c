import type { Deadline } from './deadline';

/** One item's outcome in {@link mapBounded}: the task's value, or what it threw. */
export type Settled<I, R> =
  | { readonly item: I; readonly ok: true; readonly value: R }
  | { readonly item: I; readonly ok: false; readonly error: unknown };

/** What {@link mapBounded} returns. */
export interface BoundedMap<I, R> {
  /** In the order of the items; items skipped at the deadline are absent. */
  readonly settled: Settled<I, R>[];
  /** Items not started because the deadline had passed, in the order of the items. */
  readonly skipped: I[];
}

/** Options of {@link mapBounded}. */
export interface BoundedMapOptions {
  /** Tasks in flight at most; values below 1 count as 1. */
  readonly concurrency: number;
  /** When it has passed, items not yet started are skipped (tasks already running finish). */
  readonly deadline?: Deadline;
}

/**
 * Runs `task` over `items` with at most `concurrency` in flight: a small worker
 * pool, so thousands of items (S3 buckets, regions) never open thousands of
 * requests at once. A task that throws is recorded in its `settled` entry and
 * never stops the others; once the deadline passes, items not yet started are
 * listed in `skipped` instead of being run. Never rejects.
 *
 * @param task - called once per started item with its index in `items`.
 * @example
 * const { settled, skipped } = await mapBounded(buckets, (bucket) => readBucket(bucket),
 *   { concurrency: 8, deadline: ctx.deadline });
 * const truncated = skipped.length > 0;
 */
export async function mapBounded<I, R>(
  items: readonly I[],
  task: (item: I, index: number) => Promise<R>,
  options: BoundedMapOptions,
): Promise<BoundedMap<I, R>> {
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const settled = new Array<Settled<I, R> | undefined>(items.length);
  const skipped: I[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const item = items[index] as I;
      if (options.deadline?.expired()) {
        skipped.push(item);
        continue;
      }
      try {
        settled[index] = { item, ok: true, value: await task(item, index) };
      } catch (error) {
        settled[index] = { item, ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return { settled: settled.filter((s): s is Settled<I, R> => s !== undefined), skipped };
}
