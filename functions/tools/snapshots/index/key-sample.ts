/**
 * Bounded samples of object keys. A diff of ten million objects keeps its
 * counts in typed arrays and only a few keys as examples: the `k` with the
 * smallest rank, a fixed hash of key and version id ("bottom-k"). That is a
 * uniform sample of the keys offered, the same whichever order they arrive in
 * and on every run (unlike the identity hashes, whose seed is new each call),
 * and costs one comparison per key once full.
 */
import type { InventoryRow } from '../inventory/rows';

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
  /** The rank: smaller is kept. */
  readonly rank: number;
  /** The object's identity hash, carried for callers that look it up again. */
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

/**
 * The rank of an object in samples: FNV-1a (32 bits, fixed offset basis) of
 * its key's and version id's UTF-8 bytes, mixed. Ties fall back to comparing the strings.
 *
 * @example sampleRank(row) // the same for the same key and version id on every run
 */
export function sampleRank(row: InventoryRow): number {
  let h = 0x811c9dc5;
  const { keyBytes, versionBytes } = row;
  for (let i = row.keyStart; i < row.keyEnd; i++) h = Math.imul(h ^ (keyBytes[i] as number), 0x01000193);
  for (let i = row.versionStart; i < row.versionEnd; i++)
    h = Math.imul(h ^ (versionBytes[i] as number), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** Whether `a` ranks after (rank, key, versionId): evicted first. */
function after(a: Entry, rank: number, key: string, versionId: string): boolean {
  if (a.rank !== rank) return a.rank > rank;
  return a.key !== key ? a.key > key : a.versionId > versionId;
}

/** Whether `a` ranks after the row of this rank; the row's strings are made only on a tie of ranks. */
function afterRow(a: Entry, rank: number, row: InventoryRow): boolean {
  if (a.rank !== rank) return a.rank > rank;
  return after(a, rank, row.key(), row.versionId());
}

/**
 * Keeps the `k` offered objects of smallest rank ({@link sampleRank}).
 *
 * @example
 * const sample = new BottomK(10);
 * const rank = sampleRank(row);
 * sample.offer(rank, hash.hi, hash.lo, row);
 * sample.objects(); // ≤ 10, ordered by key
 */
export class BottomK {
  /** A max-heap on the rank: the root is the entry to evict first. */
  private readonly heap: Entry[] = [];

  constructor(readonly k: number) {}

  /**
   * Offers an object; kept when among the `k` smallest ranks so far.
   *
   * @param hi - with `lo`, the object's identity hash, returned by {@link entries}.
   */
  offer(rank: number, hi: number, lo: number, row: InventoryRow): void {
    if (!this.wouldKeep(rank, row)) return;
    const entry = {
      rank,
      hi,
      lo,
      key: detached(row.key()),
      versionId: detached(row.versionId()),
      size: row.size,
      lastModifiedMs: row.lastModifiedMs,
    };
    const heap = this.heap;
    if (heap.length === this.k) {
      heap[0] = entry;
      this.siftDown(0);
      return;
    }
    heap.push(entry);
    this.siftUp(heap.length - 1);
  }

  /** Whether an object of this rank would be kept now (lets callers skip the rest of the work). */
  wouldKeep(rank: number, row: InventoryRow): boolean {
    if (this.k <= 0) return false;
    return this.heap.length < this.k || afterRow(this.heap[0] as Entry, rank, row);
  }

  /** Entries kept, with their identity hashes, for callers that filter them later (removed objects). */
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
      if (!after(c, p.rank, p.key, p.versionId)) return;
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
      if (l && after(l, big.rank, big.key, big.versionId)) largest = left;
      const now = heap[largest] as Entry;
      if (r && after(r, now.rank, now.key, now.versionId)) largest = right;
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
