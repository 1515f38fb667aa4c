/**
 * Compares two inventory reports without holding either in memory as strings.
 *
 * The older report is read first into an {@link ObjectIndex} (20 bytes per
 * object: identity hash, size, fingerprint of last-modified + ETag, extension
 * id). The newer report is then streamed against it: each row is hashed and
 * looked up, so it is added (absent), changed (size or fingerprint differs) or
 * unchanged, and its entry is marked; entries left unmarked were removed. Counts
 * and bytes go into typed arrays by extension id; only bounded samples of keys
 * are kept (`BottomK`). A scan over a history builds the newer report's index
 * in the same pass, so each report is read once.
 *
 * Identity is the key, or key + version id when the inventory lists every
 * version: there an overwrite is a new version (added) beside the old one, and
 * a deletion is a new delete marker (counted apart, `deleteMarkersAdded`).
 */
import { looksLikeRansomNote } from '../findings/ransomware';
import type { InventoryRow, InventoryRowSink } from '../inventory/rows';
import {
  ByteSum,
  DELETE_MARKER_EXTENSION,
  ExtensionCounts,
  type ExtensionTable,
  type HistogramEntry,
  histogram,
} from './extensions';
import { attributeFingerprint, type HashOut, type HashSeed, hashIdentity } from './key-hash';
import { BottomK, type SampledObject, sampleRank } from './key-sample';
import { IndexFullError, MAX_INDEX_OBJECTS, ObjectIndex } from './object-index';

/** What a comparison shares: the hash seed, the extension ids, and which attributes make a change. */
export interface DiffContext {
  readonly seed: HashSeed;
  readonly extensions: ExtensionTable;
  /** Keys kept per sample (added, removed, changed…). */
  readonly sampleSize: number;
  /** Compare last-modified times (both reports list them). */
  readonly compareLastModified: boolean;
  /** Compare ETags (both reports list them). */
  readonly compareETag: boolean;
  /** Identity is key + version id (both reports list every version with its id); else the key alone. */
  readonly useVersionIds: boolean;
}

/** Candidates kept from the older report for the removed sample: bottom-k of all its keys, filtered afterwards. */
const REMOVED_CANDIDATES = 512;
/** Keys kept per extension of added or changed files, as evidence for an extension spike. */
const PER_EXTENSION_SAMPLE = 3;
/** Folders of ransom-note-like names counted exactly up to this many. */
const MAX_NOTE_FOLDERS = 10_000;

/** Thrown past {@link MAX_INDEX_OBJECTS}; the tools map it to `limit_exceeded`. */
export { IndexFullError, MAX_INDEX_OBJECTS };

/** Counts of one report. */
export interface ReportTotals {
  /** Objects (versions, in an inventory of every version), delete markers excluded. */
  readonly objects: number;
  readonly bytes: number;
  readonly deleteMarkers: number;
}

/** Shared by the builder and the comparer: what one row hashes to, computed once. */
class RowHasher {
  private readonly hash: HashOut = { hi: 0, lo: 0 };
  hi = 0;
  lo = 0;
  fingerprint = 0;
  extension = 0;
  constructor(private readonly context: DiffContext) {}

  /** Hashes a row's identity and attributes and finds its extension id, into this object's fields. */
  prepare(row: InventoryRow): this {
    const { context } = this;
    hashIdentity(context.seed, row, context.useVersionIds, this.hash);
    this.hi = this.hash.hi;
    this.lo = this.hash.lo;
    const lastModifiedMs = row.lastModifiedMs;
    this.fingerprint = attributeFingerprint(
      context.seed,
      context.compareLastModified && !Number.isNaN(lastModifiedMs) ? lastModifiedMs : 0,
      row,
      context.compareETag,
    );
    this.extension = row.isDeleteMarker ? DELETE_MARKER_EXTENSION : context.extensions.idOfRow(row);
    return this;
  }
}

/**
 * Reads a report into an index (the older side of a comparison).
 *
 * @example
 * const older = new ReportIndexBuilder(context);
 * await streamReport(report, older, deadline);
 * older.seal();
 */
export class ReportIndexBuilder implements InventoryRowSink {
  readonly index = new ObjectIndex();
  /** Files and bytes by extension (delete markers excluded). */
  readonly byExtension = new ExtensionCounts();
  readonly candidates = new BottomK(REMOVED_CANDIDATES);
  private readonly hasher: RowHasher;
  objects = 0;
  /** Bytes of the objects, summed exactly (`ByteSum`: a `+=` of doubles rounds past 2^53). */
  readonly byteSum = new ByteSum();
  deleteMarkers = 0;

  constructor(readonly context: DiffContext) {
    this.hasher = new RowHasher(context);
  }

  row(row: InventoryRow): void {
    this.addPrepared(this.hasher.prepare(row), row);
  }

  /** Adds a row already hashed (by a comparer building the next index in the same pass). */
  addPrepared(prepared: RowHasher, row: InventoryRow): void {
    const { hi, lo, fingerprint, extension } = prepared;
    const size = row.size;
    this.index.add(hi, lo, size, fingerprint, extension);
    if (row.isDeleteMarker) {
      this.deleteMarkers++;
      return;
    }
    this.objects++;
    this.byteSum.add(size);
    this.byExtension.add(extension, size);
    this.candidates.offer(sampleRank(row), hi, lo, row);
  }

  /** Ends the build: sorts the index for lookups. */
  seal(): void {
    this.index.seal();
  }

  totals(): ReportTotals {
    return { objects: this.objects, bytes: this.byteSum.value(), deleteMarkers: this.deleteMarkers };
  }
}

/** Added, changed or removed objects: counts, bytes, by extension, and a sample. */
export class ChangeTally {
  count = 0;
  /** Bytes summed exactly, read by {@link bytes}. */
  readonly byteSum = new ByteSum();
  readonly byExtension = new ExtensionCounts();
  readonly sample: BottomK;

  constructor(sampleSize: number) {
    this.sample = new BottomK(sampleSize);
  }

  /** Counts one object; `rank` is its sample rank (`sampleRank`). */
  add(rank: number, row: InventoryRow, extension: number) {
    this.count++;
    this.byteSum.add(row.size);
    this.byExtension.add(extension, row.size);
    this.sample.offer(rank, 0, 0, row);
  }

  /** The objects' bytes: the nearest double of their exact sum. */
  get bytes(): number {
    return this.byteSum.value();
  }
}

/** A count and a bounded sample of the objects counted. */
export interface Sampled {
  readonly count: number;
  readonly samples: SampledObject[];
}

/** Ransom-note-like names among new and changed files, and the folders they are in. */
export interface NoteNames extends Sampled {
  readonly folders: number;
}

/** The raw figures of a comparison; the tools' views are made from them. */
export interface DiffFigures {
  readonly older: ReportTotals;
  readonly newer: ReportTotals;
  /** Files and bytes of the newer report by extension. */
  readonly newerByExtension: ExtensionCounts;
  /** Files and bytes of the older report by extension (the baseline of an extension spike). */
  readonly olderByExtension: ExtensionCounts;
  readonly added: ChangeTally;
  readonly changed: ChangeTally;
  /** Bytes the changed objects had before. */
  readonly changedBytesBefore: number;
  readonly removed: Sampled & { readonly bytes: number; readonly byExtension: ExtensionCounts };
  readonly unchanged: { readonly count: number; readonly bytes: number };
  readonly deleteMarkersAdded: Sampled;
  readonly ransomNotes: NoteNames;
  /** Up to 3 keys per extension among added and changed files. */
  readonly samplesByExtension: ReadonlyMap<number, SampledObject[]>;
  /**
   * Rows of the newer report whose identity matched an older entry already matched (a key listed
   * twice): in `newer`'s totals, not in added, changed or unchanged.
   */
  readonly repeatedRows: number;
}

/**
 * Streams the newer report against the older one's sealed index; optionally
 * builds the newer report's own index in the same pass.
 */
export class ReportComparer implements InventoryRowSink {
  private readonly hasher: RowHasher;
  private readonly newerByExtension = new ExtensionCounts();
  private readonly added: ChangeTally;
  private readonly changed: ChangeTally;
  private readonly deleteMarkers: BottomK;
  private readonly notes: BottomK;
  private readonly noteFolders = new Set<string>();
  private readonly byExtensionSamples = new Map<number, BottomK>();
  private objects = 0;
  private readonly bytes = new ByteSum();
  private markers = 0;
  private markersAdded = 0;
  private noteCount = 0;
  private readonly changedBefore = new ByteSum();
  private unchangedCount = 0;
  private readonly unchangedBytes = new ByteSum();
  private repeated = 0;

  constructor(
    private readonly context: DiffContext,
    private readonly older: ReportIndexBuilder,
    private readonly newerIndex?: ReportIndexBuilder,
  ) {
    this.hasher = new RowHasher(context);
    this.added = new ChangeTally(context.sampleSize);
    this.changed = new ChangeTally(context.sampleSize);
    this.deleteMarkers = new BottomK(context.sampleSize);
    this.notes = new BottomK(context.sampleSize);
  }

  row(row: InventoryRow): void {
    const prepared = this.hasher.prepare(row);
    const { hi, lo, fingerprint, extension } = prepared;
    const { size } = row;
    this.newerIndex?.addPrepared(prepared, row);
    const index = this.older.index;
    const handle = index.find(hi, lo);
    // An identity the newer report already matched: the report lists the key (or version) twice.
    // It is not new — the older report has it — so it counts in the report's totals only (two keys
    // sharing the 64-bit hash would land here too: n²/2⁶⁵, 3 × 10⁻⁶ at ten million keys).
    const repeated = handle >= 0 && index.isMarked(handle);
    if (repeated) this.repeated++;
    else if (handle >= 0) index.mark(handle);
    if (row.isDeleteMarker) {
      this.markers++;
      if (handle < 0) {
        this.markersAdded++;
        this.deleteMarkers.offer(sampleRank(row), 0, 0, row);
      }
      return;
    }
    this.objects++;
    this.bytes.add(size);
    this.newerByExtension.add(extension, size);
    if (repeated) return;
    if (handle >= 0 && index.sizeOf(handle) === size && index.fingerprintOf(handle) === fingerprint) {
      this.unchangedCount++;
      this.unchangedBytes.add(size);
      return;
    }
    const rank = sampleRank(row);
    if (handle >= 0) {
      this.changed.add(rank, row, extension);
      this.changedBefore.add(index.sizeOf(handle));
    } else {
      this.added.add(rank, row, extension);
    }
    this.newOrChanged(rank, row, extension);
  }

  /** Evidence kept for a new or changed file: samples per extension, ransom-note-like names. */
  private newOrChanged(rank: number, row: InventoryRow, extension: number): void {
    let perExtension = this.byExtensionSamples.get(extension);
    if (!perExtension) {
      perExtension = new BottomK(PER_EXTENSION_SAMPLE);
      this.byExtensionSamples.set(extension, perExtension);
    }
    perExtension.offer(rank, 0, 0, row);
    const key = row.key();
    if (looksLikeRansomNote(key)) {
      this.noteCount++;
      if (this.noteFolders.size < MAX_NOTE_FOLDERS)
        this.noteFolders.add(key.slice(0, key.lastIndexOf('/') + 1));
      this.notes.offer(rank, 0, 0, row);
    }
  }

  /** The comparison's figures; call once the newer report has been read. */
  finish(): DiffFigures {
    const index = this.older.index;
    const removedByExtension = new ExtensionCounts();
    let removedCount = 0;
    const removedBytes = new ByteSum();
    index.forEachUnmarked((size, extension) => {
      if (extension === DELETE_MARKER_EXTENSION) return;
      removedCount++;
      removedBytes.add(size);
      removedByExtension.add(extension, size);
    });
    const removedSample = this.older.candidates
      .entries()
      .filter(({ hi, lo }) => {
        const handle = index.find(hi, lo);
        return handle >= 0 && !index.isMarked(handle);
      })
      .map(({ object }) => object)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, this.context.sampleSize);
    return {
      older: this.older.totals(),
      newer: { objects: this.objects, bytes: this.bytes.value(), deleteMarkers: this.markers },
      newerByExtension: this.newerByExtension,
      olderByExtension: this.older.byExtension,
      added: this.added,
      changed: this.changed,
      changedBytesBefore: this.changedBefore.value(),
      removed: {
        count: removedCount,
        bytes: removedBytes.value(),
        byExtension: removedByExtension,
        samples: removedSample,
      },
      unchanged: { count: this.unchangedCount, bytes: this.unchangedBytes.value() },
      deleteMarkersAdded: { count: this.markersAdded, samples: this.deleteMarkers.objects() },
      ransomNotes: { count: this.noteCount, folders: this.noteFolders.size, samples: this.notes.objects() },
      samplesByExtension: new Map([...this.byExtensionSamples].map(([id, sample]) => [id, sample.objects()])),
      repeatedRows: this.repeated,
    };
  }
}

/**
 * Counts one report without comparing it (its first report, or a report whose
 * predecessor is not read): totals and files by extension.
 */
export class ReportCounter implements InventoryRowSink {
  readonly byExtension = new ExtensionCounts();
  objects = 0;
  /** Bytes summed exactly, read by {@link bytes}. */
  readonly byteSum = new ByteSum();
  deleteMarkers = 0;

  constructor(private readonly extensions: ExtensionTable) {}

  /** The objects' bytes: the nearest double of their exact sum. */
  get bytes(): number {
    return this.byteSum.value();
  }

  row(row: InventoryRow): void {
    if (row.isDeleteMarker) {
      this.deleteMarkers++;
      return;
    }
    this.objects++;
    this.byteSum.add(row.size);
    this.byExtension.add(this.extensions.idOfRow(row), row.size);
  }

  totals(): ReportTotals {
    return { objects: this.objects, bytes: this.bytes, deleteMarkers: this.deleteMarkers };
  }
}

/** A change set as the tools report it. */
export interface ChangeSetView {
  readonly count: number;
  readonly bytes: number;
  readonly byExtension: HistogramEntry[];
  readonly samples: SampledObject[];
}

/** The histogram lines of a tally, top `top` plus "(other)". */
export function tallyView(
  tally: { readonly count: number; readonly bytes: number; readonly byExtension: ExtensionCounts },
  samples: SampledObject[],
  extensions: ExtensionTable,
  top: number,
): ChangeSetView {
  return {
    count: tally.count,
    bytes: tally.bytes,
    byExtension: histogram(tally.byExtension, extensions, top),
    samples,
  };
}
