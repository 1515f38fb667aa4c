/**
 * The bytes of a Parquet file held while it streams: the pieces of the current row group's span,
 * served to the decoders by range and dropped once the group is read.
 */
import type { AsyncBuffer } from 'hyparquet';

/** The bytes held of the file: pieces in file order, the first starting at `from`. */
export interface Held {
  from: number;
  pieces: Buffer[];
  length: number;
}

/**
 * An AsyncBuffer serving `[start, end)` from the held pieces, copying only the
 * range asked (a column chunk): hyparquet reads nothing else of a row group, and
 * no copy of the whole row group is ever made.
 */
export function heldBuffer(fileSize: number, held: Held): AsyncBuffer {
  return {
    byteLength: fileSize,
    slice(start: number, end = fileSize) {
      return copyHeld(held, start, end, new Uint8Array(end - start)).buffer as ArrayBuffer;
    },
  };
}

/**
 * Copies the held bytes `[start, end)` into the start of `out` (at least that long).
 *
 * @returns `out`'s first `end - start` bytes.
 * @throws Error for a range outside the held bytes.
 */
export function copyHeld(held: Held, start: number, end: number, out: Uint8Array): Uint8Array {
  if (start < held.from || end > held.from + held.length) {
    throw new Error(`read outside the row group's bytes: [${start}, ${end})`);
  }
  let pieceStart = held.from;
  for (const piece of held.pieces) {
    const pieceEnd = pieceStart + piece.length;
    if (pieceEnd > start && pieceStart < end) {
      const from = Math.max(start, pieceStart);
      const to = Math.min(end, pieceEnd);
      out.set(piece.subarray(from - pieceStart, to - pieceStart), from - start);
    }
    if (pieceEnd >= end) break;
    pieceStart = pieceEnd;
  }
  return out.subarray(0, end - start);
}

/** Drops the held bytes before `position`. */
export function dropBefore(held: Held, position: number): void {
  while (held.pieces.length > 0 && held.from + (held.pieces[0] as Buffer).length <= position) {
    const piece = held.pieces.shift() as Buffer;
    held.from += piece.length;
    held.length -= piece.length;
  }
  const first = held.pieces[0];
  if (first && held.from < position) {
    held.pieces[0] = first.subarray(position - held.from);
    held.length -= position - held.from;
    held.from = position;
  }
  if (held.pieces.length === 0) held.from = position;
}
