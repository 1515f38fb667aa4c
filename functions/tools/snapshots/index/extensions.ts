/**
 * File extensions as small integer ids, so per-object data stays in typed
 * arrays and histograms are arrays indexed by id.
 */
import type { InventoryRow } from '../inventory/rows';

/** The label of keys without an extension (`README`, `.bashrc`, `photos/`). */
export const NO_EXTENSION = '(none)';
/** The label of extensions past {@link MAX_EXTENSIONS} distinct ones. */
export const OTHER_EXTENSION = '(other)';
/** The id reserved for delete markers in an index (they have no file type). */
export const DELETE_MARKER_EXTENSION = 0xffff;
/** Distinct extensions tracked; ids fit a Uint16 with {@link DELETE_MARKER_EXTENSION} kept apart. */
export const MAX_EXTENSIONS = 0xfff0;
/** Longer "extensions" are parts of a name (`file.backup-2024-final`), not types. */
const MAX_EXTENSION_LENGTH = 16;
const EXTENSION_CHARS = /^[a-z0-9_~-]+$/;

/**
 * The extension of an object key, lower-case without the dot: what follows the
 * last `.` of the key's last path segment, when that dot is not the segment's
 * first character and the rest is 1-16 letters, digits, `_`, `~` or `-`.
 * Otherwise {@link NO_EXTENSION}.
 *
 * @example extensionOf('photos/2024/IMG_001.JPG') // 'jpg'
 * @example extensionOf('docs/report.pdf.locked') // 'locked'
 * @example extensionOf('home/.bashrc') // '(none)'
 */
export function extensionOf(key: string): string {
  const slash = key.lastIndexOf('/');
  const dot = key.lastIndexOf('.');
  if (dot <= slash + 1 || dot === key.length - 1 || key.length - dot - 1 > MAX_EXTENSION_LENGTH)
    return NO_EXTENSION;
  const extension = key.slice(dot + 1).toLowerCase();
  return EXTENSION_CHARS.test(extension) ? extension : NO_EXTENSION;
}

/** Whether `bytes[from, end)` lower-cased equals `raw` (already lower-case ASCII). */
function sameLowerCase(raw: string, bytes: Uint8Array, from: number, end: number): boolean {
  if (end - from !== raw.length) return false;
  for (let i = 0; i < raw.length; i++) {
    const c = bytes[from + i] as number;
    if ((c >= 65 && c <= 90 ? c | 32 : c) !== raw.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Gives each distinct extension an id (0, 1, 2…), shared by the reports a call
 * compares so their histograms line up.
 *
 * @example
 * const table = new ExtensionTable();
 * table.idOfRow(rowOf('a/b.JPG')) === table.idOfRow(rowOf('c.jpg')); // true
 * table.name(table.idOfRow(rowOf('x.pdf'))); // 'pdf'
 */
export class ExtensionTable {
  private readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  /**
   * By a 30-bit hash of the bytes after the last dot, with that text (lower-case)
   * to confirm: the common case makes no string and hashes no string key.
   */
  private readonly byHash = new Map<number, { readonly raw: string; readonly id: number }>();

  /** The id of a row's key's extension, from its bytes ({@link extensionOf} of its key). */
  idOfRow(row: InventoryRow): number {
    const { keyBytes: bytes, keyStart: start, keyEnd: end } = row;
    let dot = end - 1;
    while (dot >= start && bytes[dot] !== 46 /* . */) dot--;
    const length = end - dot - 1;
    // Not cacheable: no dot, a dot starting the last segment (a hidden name), or too long to be an extension.
    if (dot <= start || bytes[dot - 1] === 47 || length < 1 || length > MAX_EXTENSION_LENGTH) {
      return this.idOfName(extensionOf(row.key()));
    }
    let hash = 0x811c9dc5;
    for (let i = dot + 1; i < end; i++) {
      const c = bytes[i] as number;
      if (c === 47) return this.idOfName(NO_EXTENSION); // the dot is in a folder name
      // Beyond ASCII, lower-casing is Unicode's (extensionOf on the string).
      if (c >= 128) return this.idOfName(extensionOf(row.key()));
      hash = Math.imul(hash ^ (c >= 65 && c <= 90 ? c | 32 : c), 0x01000193);
    }
    // 30 bits: a small integer (Smi) to V8, so the Map lookup allocates no HeapNumber per row; a shared hash
    // only sends a row to the string path, as the text check below confirms every hit.
    hash = (hash ^ length) & 0x3fffffff;
    const cached = this.byHash.get(hash);
    if (cached !== undefined && sameLowerCase(cached.raw, bytes, dot + 1, end)) return cached.id;
    const key = row.key();
    const id = this.idOfName(extensionOf(key));
    if (cached === undefined && this.byHash.size < MAX_EXTENSIONS) {
      this.byHash.set(hash, { raw: key.slice(key.lastIndexOf('.') + 1).toLowerCase(), id });
    }
    return id;
  }

  /** The id of an extension name (as {@link extensionOf} gives it). */
  idOfName(name: string): number {
    const known = this.ids.get(name);
    if (known !== undefined) return known;
    if (this.names.length >= MAX_EXTENSIONS) return this.idOfOther();
    const id = this.names.length;
    this.names.push(name);
    this.ids.set(name, id);
    return id;
  }

  /** The extension of an id. */
  name(id: number): string {
    return this.names[id] ?? OTHER_EXTENSION;
  }

  /** Distinct extensions seen. */
  get size(): number {
    return this.names.length;
  }

  private idOfOther(): number {
    const known = this.ids.get(OTHER_EXTENSION);
    if (known !== undefined) return known;
    // The table is full: the last id becomes "(other)" for everything beyond.
    const id = MAX_EXTENSIONS - 1;
    this.ids.set(OTHER_EXTENSION, id);
    return id;
  }
}

/** 2^53: the unit of a byte sum's high part ({@link ByteSum}, {@link ExtensionCounts}). */
const TWO_53 = 2 ** 53;
const TWO_53_BIG = BigInt(TWO_53);

/** `high` × 2^53 + `low` + `bytes`, split again into `[high, low]`: the exact add of a sum of any size. */
function splitAdd(high: number, low: number, bytes: bigint): [number, number] {
  const exact = bytes + BigInt(high) * TWO_53_BIG + BigInt(low);
  return [Number(exact / TWO_53_BIG), Number(exact % TWO_53_BIG)];
}

/**
 * An exact running sum of byte counts, each a whole number from 0 to 2^53 − 1
 * (an S3 object's Size, as `checkedRowSink` admits it), held as `high` × 2^53 +
 * `low` with `low` below 2^53, so every add is exact; {@link value} rounds once.
 * A `+=` of doubles rounds at each add past 2^53 (2,000 sizes of 4,999,999,999,999
 * summed to 9,999,999,999,998,196, not …8,000), and the Athena route's sums are
 * exact (`bigint`), so the two paths' totals would differ. One comparison per add.
 */
export class ByteSum {
  low = 0;
  high = 0;

  /** Adds `size` bytes, a whole number from 0 to 2^53 − 1. */
  add(size: number): void {
    const low = this.low;
    // low + size ≥ 2^53: carry one unit; low − 2^53 + size is exact and below 2^53.
    if (low >= TWO_53 - size) {
      this.low = low - TWO_53 + size;
      this.high++;
    } else this.low = low + size;
  }

  /** Adds `bytes`, an exact sum of any size (an Athena result row's). */
  addExact(bytes: bigint): void {
    [this.high, this.low] = splitAdd(this.high, this.low, bytes);
  }

  /** The sum in bytes, the nearest double (exact up to 2^53). */
  value(): number {
    return this.high * TWO_53 + this.low;
  }
}

/**
 * Counts and bytes per extension id; each id's bytes are an exact sum as a
 * {@link ByteSum}'s (`bytesHigh[id]` × 2^53 + `bytesLow[id]`), read by {@link bytesOf}.
 */
export class ExtensionCounts {
  readonly files = new Float64Array(MAX_EXTENSIONS);
  readonly bytesLow = new Float64Array(MAX_EXTENSIONS);
  readonly bytesHigh = new Float64Array(MAX_EXTENSIONS);
  total = 0;
  readonly totalSum = new ByteSum();

  /** Counts one file of `size` bytes (0 to 2^53 − 1). */
  add(extension: number, size: number): void {
    this.files[extension] = (this.files[extension] as number) + 1;
    // ByteSum.add on this id's two typed-array slots, written out: the per-row hot path.
    const low = this.bytesLow[extension] as number;
    if (low >= TWO_53 - size) {
      this.bytesLow[extension] = low - TWO_53 + size;
      this.bytesHigh[extension] = (this.bytesHigh[extension] as number) + 1;
    } else this.bytesLow[extension] = low + size;
    this.total++;
    this.totalSum.add(size);
  }

  /**
   * Counts `files` files of `bytes` bytes in all, an exact sum of any size (an
   * Athena result row's, as decimal digits).
   */
  addTotal(extension: number, files: number, bytes: bigint): void {
    this.files[extension] = (this.files[extension] as number) + files;
    this.total += files;
    const [high, low] = splitAdd(
      this.bytesHigh[extension] as number,
      this.bytesLow[extension] as number,
      bytes,
    );
    this.bytesHigh[extension] = high;
    this.bytesLow[extension] = low;
    this.totalSum.addExact(bytes);
  }

  /** Bytes of the files with this extension id: the nearest double of their exact sum. */
  bytesOf(extension: number): number {
    return (this.bytesHigh[extension] as number) * TWO_53 + (this.bytesLow[extension] as number);
  }

  /** Bytes of all the files counted (the nearest double of their exact sum). */
  get totalBytes(): number {
    return this.totalSum.value();
  }

  /** Files with this extension id. */
  filesOf(extension: number): number {
    return this.files[extension] ?? 0;
  }
}

/** One line of a histogram. */
export interface HistogramEntry {
  readonly extension: string;
  readonly files: number;
  readonly bytes: number;
}

/**
 * The `top` extensions by files (ties by bytes, then name), plus one
 * {@link OTHER_EXTENSION} line for the rest when any.
 */
export function histogram(counts: ExtensionCounts, table: ExtensionTable, top: number): HistogramEntry[] {
  const entries: (HistogramEntry & { readonly id: number })[] = [];
  for (let id = 0; id < table.size; id++) {
    const files = counts.files[id] as number;
    if (files > 0) entries.push({ extension: table.name(id), files, bytes: counts.bytesOf(id), id });
  }
  const other = counts.files[MAX_EXTENSIONS - 1] as number;
  if (table.size < MAX_EXTENSIONS - 1 && other > 0) {
    const id = MAX_EXTENSIONS - 1;
    entries.push({ extension: OTHER_EXTENSION, files: other, bytes: counts.bytesOf(id), id });
  }
  entries.sort((a, b) => b.files - a.files || b.bytes - a.bytes || a.extension.localeCompare(b.extension));
  const line = ({ extension, files, bytes }: HistogramEntry): HistogramEntry => ({ extension, files, bytes });
  if (entries.length <= top) return entries.map(line);
  const rest = entries.slice(top);
  // The rest's bytes summed exactly from each id's parts, then rounded once.
  const unit = BigInt(TWO_53);
  const restBytes = rest.reduce(
    (sum, e) =>
      sum + BigInt(counts.bytesHigh[e.id] as number) * unit + BigInt(counts.bytesLow[e.id] as number),
    0n,
  );
  return [
    ...entries.slice(0, top).map(line),
    {
      extension: OTHER_EXTENSION,
      files: rest.reduce((sum, e) => sum + e.files, 0),
      bytes: Number(restBytes),
    },
  ];
}
