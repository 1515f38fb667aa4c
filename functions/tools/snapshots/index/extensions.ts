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

/** Counts and bytes per extension id. */
export class ExtensionCounts {
  readonly files = new Float64Array(MAX_EXTENSIONS);
  readonly bytes = new Float64Array(MAX_EXTENSIONS);
  total = 0;
  totalBytes = 0;

  add(extension: number, size: number): void {
    this.files[extension] = (this.files[extension] as number) + 1;
    this.bytes[extension] = (this.bytes[extension] as number) + size;
    this.total++;
    this.totalBytes += size;
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
  const entries: HistogramEntry[] = [];
  for (let id = 0; id < table.size; id++) {
    const files = counts.files[id] as number;
    if (files > 0) entries.push({ extension: table.name(id), files, bytes: counts.bytes[id] as number });
  }
  const other = counts.files[MAX_EXTENSIONS - 1] as number;
  if (table.size < MAX_EXTENSIONS - 1 && other > 0) {
    entries.push({
      extension: OTHER_EXTENSION,
      files: other,
      bytes: counts.bytes[MAX_EXTENSIONS - 1] as number,
    });
  }
  entries.sort((a, b) => b.files - a.files || b.bytes - a.bytes || a.extension.localeCompare(b.extension));
  if (entries.length <= top) return entries;
  const rest = entries.slice(top);
  return [
    ...entries.slice(0, top),
    {
      extension: OTHER_EXTENSION,
      files: rest.reduce((sum, e) => sum + e.files, 0),
      bytes: rest.reduce((sum, e) => sum + e.bytes, 0),
    },
  ];
}
