/**
 * Snappy decompression of Parquet pages, by hysnappy (Google's Snappy
 * decompressor compiled to WebAssembly, from hyparquet's authors; its 4 KB
 * module is inlined in the package, so the function bundle needs no native
 * binary). Measured on the bench's pages (8.2 MB decompressed): about 13 ms of
 * CPU, against 43 ms for hyparquet's JavaScript decoder, 50 ms for snappyjs and
 * 20 ms for the napi-rs `snappy` package, whose per-platform native binary the
 * Lambda bundle would have to carry (docs/snapshot-tools.md, "Against DuckDB").
 */
import { snappyUncompressor } from 'hysnappy';

// Compiled and instantiated when the module loads (about 8 ms of CPU and 0.9 MB here), not on a call's first
// Snappy page: loading the decoder is library loading, paid once per process in the function's init, as
// DuckDB's `require` is outside the bench's window (bench/snapshots-duckdb.ts, docs/snapshot-tools.md).
const uncompressor: (input: Uint8Array, outputLength: number) => Uint8Array = snappyUncompressor();

/**
 * The length a Snappy block says it decompresses to: its leading varint
 * (Snappy format description, "Preamble").
 */
function statedLength(input: Uint8Array): number {
  let length = 0;
  for (let i = 0, shift = 1; i < 5 && i < input.length; i++, shift *= 128) {
    const byte = input[i] as number;
    length += (byte & 0x7f) * shift;
    if (byte < 0x80) return length;
  }
  return -1;
}

/**
 * Decompresses one Snappy block of `size` bytes (a page's `uncompressed_page_size`).
 *
 * @throws Error when the block does not say it holds `size` bytes, or is malformed
 *   (the readers turn it into `upstream_error`).
 */
export function snappyUncompress(input: Uint8Array, size: number): Uint8Array {
  const stated = statedLength(input);
  if (stated !== size) {
    throw new Error(`a Snappy page says it holds ${stated} bytes, its page header ${size}`);
  }
  return uncompressor(input, size);
}
