/**
 * The index of one inventory report that a diff compares the next report
 * against: per object, one 20-byte record of five Uint32 words in a typed
 * array, never a string.
 *
 * | word | holds |
 * |---|---|
 * | 0 | identity hash, high 32 bits |
 * | 1 | identity hash, low 32 bits |
 * | 2 | size, low 32 bits |
 * | 3 | attribute fingerprint (last-modified + ETag) |
 * | 4 | size, high 16 bits (S3's largest object, 5 TiB, needs 43 bits) × 2¹⁶ + extension id (16 bits) |
 *
 * One record per entry, not one array per field: a lookup that finds an entry
 * reads its size and fingerprint from the cache line it has just loaded (six
 * separate arrays cost about seven cache misses per looked-up row).
 *
 * Entries go into one of 256 partitions by the hash's top 8 bits as they
 * arrive, each partition filling blocks (64 entries, doubling up to 4,096) that
 * are never copied while it grows: a single growing array would need old + new,
 * up to 2.5× its size, at each growth, and would leave up to half of itself
 * unused. {@link ObjectIndex.seal} copies each partition into exact-size
 * records (one partition at a time), placed by a counting sort on the next
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

/** Uint32 words per entry. */
const WORDS = 5;
const HI = 0;
const LO = 1;
const SIZE_LO = 2;
const FP = 3;
/** Size's high 16 bits × 2¹⁶ + extension id. */
const SIZE_HI_EXT = 4;

/** Records of `capacity` entries. */
function allocate(capacity: number): Uint32Array {
  return new Uint32Array(capacity * WORDS);
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
  private blocks: Uint32Array[] = [];
  private blockUsed = 0;
  /** After seal: every entry, contiguous and sorted by hash. */
  records: Uint32Array = allocate(0);
  length = 0;
  /** Set by seal: `starts[v]..starts[v+1]` holds the entries whose next `prefixBits` hash bits are `v`. */
  starts: Uint32Array = new Uint32Array(1);
  prefixBits = 0;
  /** One bit per entry. */
  matched: Uint8Array = new Uint8Array(0);

  add(hi: number, lo: number, size: number, fp: number, ext: number): void {
    let block = this.blocks[this.blocks.length - 1];
    if (!block || this.blockUsed * WORDS === block.length) {
      block = allocate(Math.min(MAX_BLOCK, FIRST_BLOCK << this.blocks.length));
      this.blocks.push(block);
      this.blockUsed = 0;
    }
    const at = this.blockUsed++ * WORDS;
    block[at + HI] = hi;
    block[at + LO] = lo;
    block[at + SIZE_LO] = size % SIZE_SPLIT;
    block[at + FP] = fp;
    block[at + SIZE_HI_EXT] = Math.floor(size / SIZE_SPLIT) * 0x10000 + ext;
    this.length++;
  }

  /**
   * Copies the blocks into one exact-size array of records sorted by hash (one
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
      const used = Math.min(block.length / WORDS, n - seen);
      for (let i = 0; i < used; i++) {
        const v = (((block[i * WORDS + HI] as number) >>> shift) & mask) + 1;
        starts[v] = (starts[v] as number) + 1;
      }
      seen += used;
    }
    for (let v = 0; v < slots; v++) starts[v + 1] = (starts[v + 1] as number) + (starts[v] as number);
    const next = starts.slice(0, slots);
    const records = allocate(n);
    seen = 0;
    for (const block of this.blocks) {
      const used = Math.min(block.length / WORDS, n - seen);
      for (let i = 0; i < used; i++) {
        const from = i * WORDS;
        const v = ((block[from + HI] as number) >>> shift) & mask;
        const j = next[v] as number;
        next[v] = j + 1;
        const to = j * WORDS;
        records[to + HI] = block[from + HI] as number;
        records[to + LO] = block[from + LO] as number;
        records[to + SIZE_LO] = block[from + SIZE_LO] as number;
        records[to + FP] = block[from + FP] as number;
        records[to + SIZE_HI_EXT] = block[from + SIZE_HI_EXT] as number;
      }
      seen += used;
    }
    this.blocks = [];
    for (let v = 0; v < slots; v++) {
      const from = starts[v] as number;
      const to = starts[v + 1] as number;
      if (to - from > 1) insertionSort(records, from, to);
    }
    this.records = records;
    this.starts = starts;
    this.prefixBits = bits;
    this.matched = new Uint8Array((n + 7) >>> 3);
  }
}

/** Insertion sort of entries `[from, to)` by (hi, lo), moving whole records. */
function insertionSort(r: Uint32Array, from: number, to: number): void {
  for (let i = from + 1; i < to; i++) {
    const at = i * WORDS;
    const h = r[at + HI] as number;
    const l = r[at + LO] as number;
    const sl = r[at + SIZE_LO] as number;
    const f = r[at + FP] as number;
    const se = r[at + SIZE_HI_EXT] as number;
    let j = i - 1;
    while (j >= from) {
      const jh = r[j * WORDS + HI] as number;
      if (jh < h || (jh === h && (r[j * WORDS + LO] as number) <= l)) break;
      r.copyWithin((j + 1) * WORDS, j * WORDS, (j + 1) * WORDS);
      j--;
    }
    const into = (j + 1) * WORDS;
    r[into + HI] = h;
    r[into + LO] = l;
    r[into + SIZE_LO] = sl;
    r[into + FP] = f;
    r[into + SIZE_HI_EXT] = se;
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
    const r = part.records;
    const bits = part.prefixBits;
    const v = bits === 0 ? 0 : (hi >>> (32 - PARTITION_BITS - bits)) & ((1 << bits) - 1);
    const stop = part.starts[v + 1] as number;
    // A bucket holds about 8 entries sorted by (hi, lo): scanned in order, it is read front to back from one or
    // two cache lines, with fewer mispredicted branches than a binary search over so few entries.
    for (let i = part.starts[v] as number; i < stop; i++) {
      const h = r[i * WORDS + HI] as number;
      if (h < hi) continue;
      if (h > hi) return -1;
      const l = r[i * WORDS + LO] as number;
      if (l < lo) continue;
      if (l > lo) return -1;
      // Entries sharing this hash follow each other (same bucket): the first not yet matched, else the first.
      for (let pick = i; pick < stop && r[pick * WORDS + HI] === hi && r[pick * WORDS + LO] === lo; pick++)
        if (!isSet(part.matched, pick)) return p * LOCAL_SPAN + pick;
      return p * LOCAL_SPAN + i;
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
    const at = (handle % LOCAL_SPAN) * WORDS;
    const r = this.partOf(handle).records;
    return ((r[at + SIZE_HI_EXT] as number) >>> 16) * SIZE_SPLIT + (r[at + SIZE_LO] as number);
  }

  /** The entry's attribute fingerprint. */
  fingerprintOf(handle: number): number {
    return this.partOf(handle).records[(handle % LOCAL_SPAN) * WORDS + FP] as number;
  }

  /** The entry's extension id. */
  extensionOf(handle: number): number {
    return (this.partOf(handle).records[(handle % LOCAL_SPAN) * WORDS + SIZE_HI_EXT] as number) & 0xffff;
  }

  /** Calls `visit` with the size and extension id of every entry never marked. */
  forEachUnmarked(visit: (size: number, extension: number) => void): void {
    for (const part of this.parts) {
      const r = part.records;
      for (let i = 0; i < part.length; i++)
        if (!isSet(part.matched, i)) {
          const se = r[i * WORDS + SIZE_HI_EXT] as number;
          visit((se >>> 16) * SIZE_SPLIT + (r[i * WORDS + SIZE_LO] as number), se & 0xffff);
        }
    }
  }

  /** Bytes held by the index's arrays (its memory model's figure). */
  byteSize(): number {
    let bytes = 0;
    for (const part of this.parts)
      bytes += part.records.byteLength + part.matched.length + part.starts.byteLength;
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
