import { mapBounded } from '../../../functions/runtime/concurrency';
import { type Deadline, deadlineIn } from '../../../functions/runtime/deadline';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapBounded', () => {
  it('keeps the items’ order and never runs more than `concurrency` tasks at once', async () => {
    // Prepare
    let inFlight = 0;
    let peak = 0;
    const items = [30, 5, 20, 1, 10, 15, 2];

    // Act
    const { settled, skipped } = await mapBounded(
      items,
      async (ms, index) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await pause(ms);
        inFlight--;
        return `${index}:${ms}`;
      },
      { concurrency: 3 },
    );

    // Assess
    expect(settled.map((s) => (s.ok ? s.value : null))).toEqual([
      '0:30',
      '1:5',
      '2:20',
      '3:1',
      '4:10',
      '5:15',
      '6:2',
    ]);
    expect(peak).toBe(3);
    expect(skipped).toEqual([]);
  });

  it('records a task’s error in its entry without stopping the others', async () => {
    // Prepare
    const failure = new Error('bucket b denied');

    // Act
    const { settled } = await mapBounded(
      ['a', 'b', 'c'],
      async (item) => {
        if (item === 'b') throw failure;
        return item.toUpperCase();
      },
      { concurrency: 2 },
    );

    // Assess
    expect(settled).toEqual([
      { item: 'a', ok: true, value: 'A' },
      { item: 'b', ok: false, error: failure },
      { item: 'c', ok: true, value: 'C' },
    ]);
  });

  it('skips the items not started once the deadline has passed', async () => {
    // Prepare: the deadline passes while the first two items run.
    let expired = false;
    const deadline: Deadline = { ...deadlineIn(60_000), expired: () => expired };

    // Act
    const { settled, skipped } = await mapBounded(
      [1, 2, 3, 4, 5],
      async (n) => {
        await pause(1);
        expired = true;
        return n * 10;
      },
      { concurrency: 2, deadline },
    );

    // Assess
    expect(settled.map((s) => s.item)).toEqual([1, 2]);
    expect(skipped).toEqual([3, 4, 5]);
  });

  it('runs one task at a time for a concurrency below 1, and nothing for no items', async () => {
    // Prepare
    let inFlight = 0;
    let peak = 0;
    const track = async (n: number) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await pause(1);
      inFlight--;
      return n;
    };

    // Act
    const one = await mapBounded([1, 2, 3], track, { concurrency: 0 });
    const none = await mapBounded([], track, { concurrency: 4 });

    // Assess
    expect(peak).toBe(1);
    expect(one.settled).toHaveLength(3);
    expect(none).toEqual({ settled: [], skipped: [] });
  });
});
