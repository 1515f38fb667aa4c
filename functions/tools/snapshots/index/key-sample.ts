/**
 * Bounded samples of object keys. A diff of ten million objects keeps its
 * counts in typed arrays and only a few keys as examples: the `k` whose identity
 * hashes are smallest ("bottom-k"). That is a uniform random sample of the keys
 * offered, the same whichever order they arrive in, and costs one comparison per
 * key once full.
 */

/** One sampled object: key-level metadata only. */
export interface SampledObject {
  readonly key: string;
  /** Present for inventories of every version. */
  readonly versionId?: string;
  readonly size: number;
  /** ISO-8601, or null when the report does not list it. */
  readonly lastModified: string | null;
}

interface Entry {
  readonly hi: number;
  readonly lo: number;
  readonly key: string;
  readonly versionId: string;
  readonly size: number;
  readonly lastModifiedMs: number;
}

/**
 * A copy of `text` that shares no memory with a larger string: keys sliced from
 * a 64 KiB chunk of CSV would otherwise keep the whole chunk alive while sampled.
 */
function detached(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

function greater(a: Entry, hi: number, lo: number): boolean {
  return a.hi > hi || (a.hi === hi && a.lo > lo);
}

/**
 * Keeps the `k` offered objects with the smallest hashes.
 *
 * @example
 * const sample = new BottomK(10);
 * sample.offer(hash.hi, hash.lo, key, '', size, mtime);
 * sample.objects(); // ≤ 10, ordered by key
 */
export class BottomK {
  /** A max-heap on the hash: the root is the entry to evict first. */
  private readonly heap: Entry[] = [];

  constructor(readonly k: number) {}

  /** Offers an object; kept when among the `k` smallest hashes so far. */
  offer(hi: number, lo: number, key: string, versionId: string, size: number, lastModifiedMs: number): void {
    if (this.k <= 0) return;
    const heap = this.heap;
    if (heap.length === this.k) {
      const root = heap[0] as Entry;
      if (!greater(root, hi, lo)) return;
      heap[0] = { hi, lo, key: detached(key), versionId: detached(versionId), size, lastModifiedMs };
      this.siftDown(0);
      return;
    }
    heap.push({ hi, lo, key: detached(key), versionId: detached(versionId), size, lastModifiedMs });
    this.siftUp(heap.length - 1);
  }

  /** Whether an object of this hash would be kept now (lets callers skip building its key). */
  wouldKeep(hi: number, lo: number): boolean {
    return this.k > 0 && (this.heap.length < this.k || greater(this.heap[0] as Entry, hi, lo));
  }

  /** Entries kept, with their hashes, for callers that filter them later (removed objects). */
  entries(): readonly { readonly hi: number; readonly lo: number; readonly object: SampledObject }[] {
    return this.heap.map((e) => ({ hi: e.hi, lo: e.lo, object: toObject(e) }));
  }

  /** The objects kept, ordered by key. */
  objects(): SampledObject[] {
    return this.heap.map(toObject).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as Entry;
      const c = heap[i] as Entry;
      if (!greater(c, p.hi, p.lo)) return;
      heap[parent] = c;
      heap[i] = p;
      i = parent;
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let largest = i;
      const l = heap[left];
      const r = heap[right];
      const big = heap[largest] as Entry;
      if (l && greater(l, big.hi, big.lo)) largest = left;
      const now = heap[largest] as Entry;
      if (r && greater(r, now.hi, now.lo)) largest = right;
      if (largest === i) return;
      heap[i] = heap[largest] as Entry;
      heap[largest] = big;
      i = largest;
    }
  }
}

function toObject(e: Entry): SampledObject {
  return {
    key: e.key,
    ...(e.versionId ? { versionId: e.versionId } : {}),
    size: e.size,
    lastModified: Number.isNaN(e.lastModifiedMs) ? null : new Date(e.lastModifiedMs).toISOString(),
  };
}
