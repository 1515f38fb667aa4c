/**
 * The index of one inventory report that a diff compares the next report
 * against: per object, 20 bytes in typed arrays, never a string.
 *
 * | field | type | bytes |
 * |---|---|---|
 * | identity hash, high 32 bits | Uint32 | 4 |
 * | identity hash, low 32 bits | Uint32 | 4 |
 * | size, low 32 bits | Uint32 | 4 |
 * | size, high 16 bits (S3's largest object, 5 TiB, needs 43 bits) | Uint16 | 2 |
 * | attribute fingerprint (last-modified + ETag) | Uint32 | 4 |
 * | extension id | Uint16 | 2 |
 *
 * Entries go into one of 256 partitions by the hash's top 8 bits as they
 * arrive, each partition filling blocks (64 entries, doubling up to 4,096) that
 * are never copied while it grows: a single growing array would need old + new,
 * up to 2.5× its size, at each growth, and would leave up to half of itself
 * unused. {@link ObjectIndex.seal} copies each partition into exact-size
 * columns (one partition at a time), placed by a counting sort on the next
 * hash bits (whose bucket starts are the lookup table) and each small bucket
 * sorted by insertion, after which a lookup is a few probes in one partition. Ten million objects take about 200 MB (at most
 * 21 MB more while being added), the "matched" bits 1.25 MB more.
 */

/** Entries in one index at most: 50 million objects, 1.1 GB of index; more needs the Athena or Distributed Map route (docs/snapshot-tools.md). */
export const MAX_INDEX_OBJECTS = 50_000_000;

const PARTITION_BITS = 8;
const PARTITIONS = 1 << PARTITION_BITS;
/** Local indexes use 24 bits of a handle. */
const LOCAL_BITS = 24;
const LOCAL_SPAN = 2 ** LOCAL_BITS;

/** One partition's columns. */
interface Columns {
  hi: Uint32Array;
  lo: Uint32Array;
  sizeLo: Uint32Array;
  sizeHi: Uint16Array;
  fp: Uint32Array;
  ext: Uint16Array;
}

function allocate(capacity: number): Columns {
  return {
    hi: new Uint32Array(capacity),
    lo: new Uint32Array(capacity),
    sizeLo: new Uint32Array(capacity),
    sizeHi: new Uint16Array(capacity),
    fp: new Uint32Array(capacity),
    ext: new Uint16Array(capacity),
  };
}

/** Sizes are split at 2³² into a Uint32 and a Uint16: exact up to 2⁴⁸ bytes (256 TiB). */
const SIZE_SPLIT = 2 ** 32;

/** Whether bit `i` of `bits` is set. */
function isSet(bits: Uint8Array, i: number): boolean {
  return ((bits[i >>> 3] as number) & (1 << (i & 7))) !== 0;
}

/** Entries of a partition's first block; blocks double up to {@link MAX_BLOCK}. */
const FIRST_BLOCK = 64;
/** 4,096 entries (80 KB): the most a partition leaves unused while it grows (21 MB over 256 partitions). */
const MAX_BLOCK = 4096;

class Partition {
  /** While adding: filled blocks, then the one being filled; never copied as they grow. */
  private blocks: Columns[] = [];
  private blockUsed = 0;
  /** After seal: every entry, contiguous and sorted. */
  columns: Columns = allocate(0);
  length = 0;
  /** Set by seal: `starts[v]..starts[v+1]` holds the entries whose next `prefixBits` hash bits are `v`. */
  starts: Uint32Array = new Uint32Array(1);
  prefixBits = 0;
  /** One bit per entry. */
  matched: Uint8Array = new Uint8Array(0);

  add(hi: number, lo: number, size: number, fp: number, ext: number): void {
    let block = this.blocks[this.blocks.length - 1];
    if (!block || this.blockUsed === block.hi.length) {
      block = allocate(Math.min(MAX_BLOCK, FIRST_BLOCK << this.blocks.length));
      this.blocks.push(block);
      this.blockUsed = 0;
    }
    const i = this.blockUsed++;
    block.hi[i] = hi;
    block.lo[i] = lo;
    block.sizeLo[i] = size % SIZE_SPLIT;
    block.sizeHi[i] = Math.floor(size / SIZE_SPLIT);
    block.fp[i] = fp;
    block.ext[i] = ext;
    this.length++;
  }

  /**
   * Copies the blocks into one exact-size set of columns sorted by hash (one
   * partition at a time: a 1/256 transient): a counting sort on the
   * `prefixBits` hash bits after the partition's — hashes are uniform, so
   * about 8 entries share a value —, then an insertion sort of each such
   * bucket. The bucket starts are the lookup table (`starts`).
   */
  seal(): void {
    const n = this.length;
    const bits = n < 16 ? 0 : Math.min(16, Math.ceil(Math.log2(n / 8)));
    const slots = 1 << bits;
    const shift = 32 - PARTITION_BITS - bits;
    const mask = slots - 1;
    const starts = new Uint32Array(slots + 1);
    let seen = 0;
    for (const block of this.blocks) {
      const used = Math.min(block.hi.length, n - seen);
      const his = block.hi;
      for (let i = 0; i < used; i++) {
        const v = (((his[i] as number) >>> shift) & mask) + 1;
        starts[v] = (starts[v] as number) + 1;
      }
      seen += used;
    }
    for (let v = 0; v < slots; v++) starts[v + 1] = (starts[v + 1] as number) + (starts[v] as number);
    const next = starts.slice(0, slots);
    const c = allocate(n);
    seen = 0;
    for (const block of this.blocks) {
      const used = Math.min(block.hi.length, n - seen);
      for (let i = 0; i < used; i++) {
        const h = block.hi[i] as number;
        const v = (h >>> shift) & mask;
        const j = next[v] as number;
        next[v] = j + 1;
        c.hi[j] = h;
        c.lo[j] = block.lo[i] as number;
        c.sizeLo[j] = block.sizeLo[i] as number;
        c.sizeHi[j] = block.sizeHi[i] as number;
        c.fp[j] = block.fp[i] as number;
        c.ext[j] = block.ext[i] as number;
      }
      seen += used;
    }
    this.blocks = [];
    for (let v = 0; v < slots; v++) {
      const from = starts[v] as number;
      const to = starts[v + 1] as number;
      if (to - from > 1) insertionSort(c, from, to);
    }
    this.columns = c;
    this.starts = starts;
    this.prefixBits = bits;
    this.matched = new Uint8Array((n + 7) >>> 3);
  }
}

/** Insertion sort of `[from, to)` by (hi, lo), moving every column. */
function insertionSort(c: Columns, from: number, to: number): void {
  const { hi, lo, sizeLo, sizeHi, fp, ext } = c;
  for (let i = from + 1; i < to; i++) {
    const h = hi[i] as number;
    const l = lo[i] as number;
    const sl = sizeLo[i] as number;
    const sh = sizeHi[i] as number;
    const f = fp[i] as number;
    const e = ext[i] as number;
    let j = i - 1;
    while (j >= from && ((hi[j] as number) > h || ((hi[j] as number) === h && (lo[j] as number) > l))) {
      hi[j + 1] = hi[j] as number;
      lo[j + 1] = lo[j] as number;
      sizeLo[j + 1] = sizeLo[j] as number;
      sizeHi[j + 1] = sizeHi[j] as number;
      fp[j + 1] = fp[j] as number;
      ext[j + 1] = ext[j] as number;
      j--;
    }
    hi[j + 1] = h;
    lo[j + 1] = l;
    sizeLo[j + 1] = sl;
    sizeHi[j + 1] = sh;
    fp[j + 1] = f;
    ext[j + 1] = e;
  }
}

/**
 * The index of one report's objects. Add every object, {@link seal}, then look
 * objects up and mark them; what stays unmarked was removed.
 *
 * @example
 * const index = new ObjectIndex();
 * index.add(hash.hi, hash.lo, size, fingerprint, extensionId);
 * index.seal();
 * const handle = index.find(hash.hi, hash.lo); // -1 when absent
 */
export class ObjectIndex {
  private readonly parts: Partition[] = Array.from({ length: PARTITIONS }, () => new Partition());
  private total = 0;
  private sealed = false;

  /** Objects added. */
  get count(): number {
    return this.total;
  }

  /**
   * Adds one object.
   *
   * @throws Error when the index is sealed, or holds {@link MAX_INDEX_OBJECTS} already (the caller maps it).
   */
  add(hi: number, lo: number, size: number, fingerprint: number, extension: number): void {
    if (this.sealed) throw new Error('ObjectIndex is sealed');
    if (this.total >= MAX_INDEX_OBJECTS) throw new IndexFullError();
    (this.parts[hi >>> (32 - PARTITION_BITS)] as Partition).add(hi, lo, size, fingerprint, extension);
    this.total++;
  }

  /** Trims, sorts and builds the lookup tables; afterwards only lookups and marks. Idempotent. */
  seal(): void {
    if (this.sealed) return;
    this.sealed = true;
    for (const part of this.parts) part.seal();
  }

  /**
   * The handle of an unmarked entry with this hash, else of a marked one, else
   * -1. Several entries share a hash only by collision or a repeated row; each
   * lookup then prefers one not yet matched, so n repeats match n repeats.
   */
  find(hi: number, lo: number): number {
    const p = hi >>> (32 - PARTITION_BITS);
    const part = this.parts[p] as Partition;
    const { hi: his, lo: los } = part.columns;
    const v =
      part.prefixBits === 0
        ? 0
        : (hi >>> (32 - PARTITION_BITS - part.prefixBits)) & ((1 << part.prefixBits) - 1);
    let a = part.starts[v] as number;
    let b = (part.starts[v + 1] as number) - 1;
    while (a <= b) {
      const m = (a + b) >>> 1;
      const mh = his[m] as number;
      const ml = los[m] as number;
      if (mh < hi || (mh === hi && ml < lo)) a = m + 1;
      else if (mh === hi && ml === lo) {
        let first = m;
        while (first > 0 && his[first - 1] === hi && los[first - 1] === lo) first--;
        let pick = first;
        while (pick < part.length && his[pick] === hi && los[pick] === lo) {
          if (!isSet(part.matched, pick)) return p * LOCAL_SPAN + pick;
          pick++;
        }
        return p * LOCAL_SPAN + first;
      } else b = m - 1;
    }
    return -1;
  }

  /** Whether the entry was marked. */
  isMarked(handle: number): boolean {
    return isSet(this.partOf(handle).matched, handle % LOCAL_SPAN);
  }

  /** Marks the entry as seen in the other report. */
  mark(handle: number): void {
    const local = handle % LOCAL_SPAN;
    const bits = this.partOf(handle).matched;
    bits[local >>> 3] = (bits[local >>> 3] as number) | (1 << (local & 7));
  }

  /** The entry's size in bytes. */
  sizeOf(handle: number): number {
    const { sizeLo, sizeHi } = this.partOf(handle).columns;
    const local = handle % LOCAL_SPAN;
    return (sizeHi[local] as number) * SIZE_SPLIT + (sizeLo[local] as number);
  }

  /** The entry's attribute fingerprint. */
  fingerprintOf(handle: number): number {
    return this.partOf(handle).columns.fp[handle % LOCAL_SPAN] as number;
  }

  /** The entry's extension id. */
  extensionOf(handle: number): number {
    return this.partOf(handle).columns.ext[handle % LOCAL_SPAN] as number;
  }

  /** Calls `visit` with the size and extension id of every entry never marked. */
  forEachUnmarked(visit: (size: number, extension: number) => void): void {
    for (const part of this.parts) {
      const { sizeLo, sizeHi, ext } = part.columns;
      for (let i = 0; i < part.length; i++)
        if (!isSet(part.matched, i))
          visit((sizeHi[i] as number) * SIZE_SPLIT + (sizeLo[i] as number), ext[i] as number);
    }
  }

  /** Bytes held by the index's arrays (its memory model's figure). */
  byteSize(): number {
    let bytes = 0;
    for (const part of this.parts)
      bytes += part.columns.hi.length * 20 + part.matched.length + part.starts.byteLength;
    return bytes;
  }

  private partOf(handle: number): Partition {
    return this.parts[Math.floor(handle / LOCAL_SPAN)] as Partition;
  }
}

/** Thrown by {@link ObjectIndex.add} past {@link MAX_INDEX_OBJECTS}. */
export class IndexFullError extends Error {
  override readonly name = 'IndexFullError';
  constructor() {
    super(`An index holds at most ${MAX_INDEX_OBJECTS} objects`);
  }
}
