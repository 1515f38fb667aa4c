/**
 * A 64-bit hash of an object's identity (its key, plus its version id in an
 * inventory of every version), computed in two 32-bit lanes over its UTF-8
 * bytes, four at a time, with MurmurHash3's mixing constants and finalizer
 * (two bytes a round until issue 22 item 1's fourth pass: half the rounds,
 * 12.5–12.9 ms instead of 15.7–19 ms for 200,000 keys of about 60 bytes in one
 * buffer). Fast enough to hash ten million keys in under a second
 * (`crypto.hash` costs several times as much per key, bench/snapshots.ts).
 *
 * Each call of the tools draws a fresh random seed ({@link newHashSeed}): hashes
 * are compared only within one call, never stored, so an adversary naming
 * objects cannot prepare keys whose hashes collide with existing ones. By chance
 * alone two of n keys collide with probability about n² / 2⁶⁵ (3 × 10⁻⁶ for
 * ten million keys); a collision would make one object hide another in a diff.
 */
import { randomBytes } from 'node:crypto';
import type { InventoryRow } from '../inventory/rows';

/** Two 32-bit seeds, one per lane. */
export interface HashSeed {
  readonly a: number;
  readonly b: number;
}

/** A fresh random seed for one call. */
export function newHashSeed(): HashSeed {
  const bytes = randomBytes(8);
  return { a: bytes.readUInt32LE(0), b: bytes.readUInt32LE(4) };
}

/** Where {@link hashIdentity} writes its result: `hi` and `lo`, unsigned 32-bit. Reused to avoid an allocation per row. */
export interface HashOut {
  hi: number;
  lo: number;
}

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function fmix32(input: number): number {
  let h = input;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** Where key + NUL + version id are copied to be hashed as one run of bytes (grown when needed). */
let joined = new Uint8Array(4096);

/**
 * Hashes a row's identity into `out.hi`/`out.lo`: its key's bytes, and when
 * `withVersion` and the row has a version id, a NUL and the version id's bytes.
 *
 * @example const out = { hi: 0, lo: 0 }; hashIdentity(seed, row, false, out);
 */
export function hashIdentity(seed: HashSeed, row: InventoryRow, withVersion: boolean, out: HashOut): void {
  const versionLength = withVersion ? row.versionEnd - row.versionStart : 0;
  if (versionLength === 0) {
    hashBytes(seed, row.keyBytes, row.keyStart, row.keyEnd, out);
    return;
  }
  const keyLength = row.keyEnd - row.keyStart;
  const length = keyLength + 1 + versionLength;
  if (length > joined.length) joined = new Uint8Array(2 * length);
  joined.set(row.keyBytes.subarray(row.keyStart, row.keyEnd), 0);
  joined[keyLength] = 0;
  joined.set(row.versionBytes.subarray(row.versionStart, row.versionEnd), keyLength + 1);
  hashBytes(seed, joined, 0, length, out);
}

/** The two-lane hash of `bytes[start, end)`, four bytes (one little-endian word) per round. */
function hashBytes(seed: HashSeed, bytes: Uint8Array, start: number, end: number, out: HashOut): void {
  let h1 = seed.a | 0;
  let h2 = seed.b | 0;
  let i = start;
  for (; i + 3 < end; i += 4) {
    const k =
      (bytes[i] as number) |
      ((bytes[i + 1] as number) << 8) |
      ((bytes[i + 2] as number) << 16) |
      ((bytes[i + 3] as number) << 24);
    let k1 = Math.imul(k, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    h1 ^= Math.imul(k1, C2);
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
    let k2 = Math.imul(k, C2);
    k2 = (k2 << 17) | (k2 >>> 15);
    h2 ^= Math.imul(k2, C1);
    h2 = (h2 << 11) | (h2 >>> 21);
    h2 = (Math.imul(h2, 5) + 0x561ccd1b) | 0;
    // Lanes feed each other, as MurmurHash3_x86_128's do, so a difference in one reaches both.
    h1 = (h1 + h2) | 0;
  }
  if (i < end) {
    // The last one to three bytes, as MurmurHash3's tail.
    let k = 0;
    for (let shift = 0; i < end; i++, shift += 8) k |= (bytes[i] as number) << shift;
    let k1 = Math.imul(k, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    h1 ^= Math.imul(k1, C2);
    let k2 = Math.imul(k, C2);
    k2 = (k2 << 17) | (k2 >>> 15);
    h2 ^= Math.imul(k2, C1);
  }
  const length = end - start;
  h1 ^= length;
  h2 ^= length;
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  h1 = fmix32(h1);
  h2 = fmix32(h2);
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  out.hi = h1 >>> 0;
  out.lo = h2 >>> 0;
}

/**
 * A 32-bit fingerprint of the attributes whose change makes an object
 * "changed": its last-modified time (ms) and ETag. Sizes are compared exactly,
 * beside it; `withETag` false leaves the ETag out (one report does not list it). Two different attribute sets share a fingerprint with probability
 * 2⁻³², so a change may, that rarely, go unseen.
 */
export function attributeFingerprint(
  seed: HashSeed,
  lastModifiedMs: number,
  row: InventoryRow,
  withETag: boolean,
): number {
  let h = seed.b ^ 0x9e3779b9;
  // The time in two halves: ms since 1970 need 41 bits.
  h = Math.imul(h ^ (lastModifiedMs % 0x100000000), C1);
  h = Math.imul(h ^ Math.floor(lastModifiedMs / 0x100000000), C2);
  if (!withETag) return fmix32(h) >>> 0;
  const { eTagBytes: b, eTagStart, eTagEnd } = row;
  let i = eTagStart;
  // Four bytes a round, mixed as MurmurHash3's blocks (an ETag is 32 hex digits, or more for a multipart upload).
  for (; i + 3 < eTagEnd; i += 4) {
    let k = Math.imul(
      (b[i] as number) |
        ((b[i + 1] as number) << 8) |
        ((b[i + 2] as number) << 16) |
        ((b[i + 3] as number) << 24),
      C1,
    );
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, C2);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  for (; i < eTagEnd; i++) h = Math.imul(h ^ (b[i] as number), 0x01000193);
  return fmix32(h ^ (eTagEnd - eTagStart)) >>> 0;
}
