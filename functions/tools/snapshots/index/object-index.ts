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
 * columns (one partition at a time), sorts it in place (MSD radix on the hash,
 * no extra memory) and builds a small prefix table, after which a lookup is a
 * few probes in one partition. Ten million objects take about 200 MB (at most
 * 21 MB more while being added), the "matched" bits 1.25 MB more.
 */

/** Entries in one index at most: 50 million objects, 1.1 GB of index; more needs the Athena or Distributed Map route (docs/snapshot-tools.md). */
export const MAX_INDEX_OBJECTS = 50_000_000;

const PARTITION_BITS = 8;
const PARTITIONS = 1 << PARTITION_BITS;
/** Local indexes use 24 bits of a handle. */
const LOCAL_BITS = 24;
const LOCAL_SPAN = 2 ** LOCAL_BITS;
/** Runs this short are sorted by insertion rather than another radix level. */
const INSERTION_SORT_MAX = 24;

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

  /** Copies the blocks into one exact-size set of columns (one partition at a time: a 1/256 transient). */
  consolidate(): void {
    const columns = allocate(this.length);
    let offset = 0;
    for (const block of this.blocks) {
      const used = Math.min(block.hi.length, this.length - offset);
      columns.hi.set(block.hi.subarray(0, used), offset);
      columns.lo.set(block.lo.subarray(0, used), offset);
      columns.sizeLo.set(block.sizeLo.subarray(0, used), offset);
      columns.sizeHi.set(block.sizeHi.subarray(0, used), offset);
      columns.fp.set(block.fp.subarray(0, used), offset);
      columns.ext.set(block.ext.subarray(0, used), offset);
      offset += used;
    }
    this.blocks = [];
    this.columns = columns;
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

/** Byte `level` (0 = most significant) of the 64-bit hash of entry `i`. */
function digitOf(c: Columns, i: number, level: number): number {
  return level < 4
    ? ((c.hi[i] as number) >>> (24 - level * 8)) & 255
    : ((c.lo[i] as number) >>> (56 - level * 8)) & 255;
}

/** Swaps two entries of one column. */
function swapIn(column: Uint32Array | Uint16Array, i: number, j: number): void {
  const t = column[i] as number;
  column[i] = column[j] as number;
  column[j] = t;
}

/** Swaps two entries across every column. */
function swap(c: Columns, i: number, j: number): void {
  swapIn(c.hi, i, j);
  swapIn(c.lo, i, j);
  swapIn(c.sizeLo, i, j);
  swapIn(c.sizeHi, i, j);
  swapIn(c.fp, i, j);
  swapIn(c.ext, i, j);
}

/** Scratch count arrays, one set per radix level (at most 8), so recursion allocates nothing. */
const SCRATCH = Array.from({ length: 8 }, () => ({
  count: new Int32Array(256),
  start: new Int32Array(256),
  end: new Int32Array(256),
  next: new Int32Array(256),
}));

/**
 * In-place MSD radix sort ("American flag sort") of `[from, to)` by the 64-bit
 * hash, from byte `level`: counts each byte value, then cycles entries into
 * their buckets by swaps, then sorts each bucket by the next byte. No memory
 * beyond fixed scratch arrays.
 */
function radixSort(c: Columns, from: number, to: number, level: number): void {
  if (to - from <= INSERTION_SORT_MAX || level >= 8) {
    insertionSort(c, from, to);
    return;
  }
  const { count, start, end, next } = SCRATCH[level] as (typeof SCRATCH)[number];
  count.fill(0);
  for (let i = from; i < to; i++) (count[digitOf(c, i, level)] as number)++;
  let position = from;
  for (let d = 0; d < 256; d++) {
    start[d] = position;
    next[d] = position;
    position += count[d] as number;
    end[d] = position;
  }
  for (let d = 0; d < 256; d++) {
    while ((next[d] as number) < (end[d] as number)) {
      const i = next[d] as number;
      let digit = digitOf(c, i, level);
      while (digit !== d) {
        const j = next[digit] as number;
        next[digit] = j + 1;
        swap(c, i, j);
        digit = digitOf(c, i, level);
      }
      next[d] = i + 1;
    }
  }
  // Deeper levels use their own scratch, so this level's bounds survive the recursion.
  for (let d = 0; d < 256; d++) {
    const a = start[d] as number;
    const b = end[d] as number;
    if (b - a > 1) radixSort(c, a, b, level + 1);
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
    for (const part of this.parts) {
      part.consolidate();
      radixSort(part.columns, 0, part.length, 1);
      buildPrefixTable(part);
      part.matched = new Uint8Array((part.length + 7) >>> 3);
    }
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

/** Prefix bits per partition: about 8 entries per prefix, at most 16 bits (a 256 KiB table). */
function buildPrefixTable(part: Partition): void {
  const bits = part.length < 16 ? 0 : Math.min(16, Math.ceil(Math.log2(part.length / 8)));
  const slots = 1 << bits;
  const starts = new Uint32Array(slots + 1);
  const his = part.columns.hi;
  const shift = 32 - PARTITION_BITS - bits;
  let j = 0;
  for (let v = 0; v < slots; v++) {
    starts[v] = j;
    while (j < part.length && bits > 0 && (((his[j] as number) >>> shift) & (slots - 1)) === v) j++;
  }
  starts[slots] = part.length;
  part.starts = starts;
  part.prefixBits = bits;
}
