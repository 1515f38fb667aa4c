/**
 * A 64-bit hash of an object's identity (its key, plus its version id in an
 * inventory of every version), computed in two 32-bit lanes over the string's
 * UTF-16 code units, two at a time, with MurmurHash3's mixing constants and
 * finalizer. Fast enough to hash ten million keys in a couple of seconds
 * (`crypto.hash` costs about seven times as much per key, bench/snapshots.ts).
 *
 * Each call of the tools draws a fresh random seed ({@link newHashSeed}): hashes
 * are compared only within one call, never stored, so an adversary naming
 * objects cannot prepare keys whose hashes collide with existing ones. By chance
 * alone two of n keys collide with probability about n² / 2⁶⁵ (3 × 10⁻⁶ for
 * ten million keys); a collision would make one object hide another in a diff.
 */
import { randomBytes } from 'node:crypto';

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

/** Where {@link hashKey} writes its result: `hi` and `lo`, unsigned 32-bit. Reused to avoid an allocation per row. */
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

/**
 * Hashes `key` (and `suffix`, when not empty, as if appended after a NUL) into
 * `out.hi`/`out.lo`.
 *
 * @example const out = { hi: 0, lo: 0 }; hashKey(seed, 'photos/a.jpg', '', out);
 */
export function hashKey(seed: HashSeed, key: string, suffix: string, out: HashOut): void {
  let h1 = seed.a | 0;
  let h2 = seed.b | 0;
  const text = suffix.length > 0 ? `${key}\u0000${suffix}` : key;
  const length = text.length;
  let i = 0;
  for (; i + 1 < length; i += 2) {
    const k = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16);
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
  if (i < length) {
    const k = text.charCodeAt(i);
    let k1 = Math.imul(k, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    h1 ^= Math.imul(k1, C2);
    let k2 = Math.imul(k, C2);
    k2 = (k2 << 17) | (k2 >>> 15);
    h2 ^= Math.imul(k2, C1);
  }
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
 * beside it. Two different attribute sets share a fingerprint with probability
 * 2⁻³², so a change may, that rarely, go unseen.
 */
export function attributeFingerprint(seed: HashSeed, lastModifiedMs: number, eTag: string): number {
  let h = seed.b ^ 0x9e3779b9;
  // The time in two halves: ms since 1970 need 41 bits.
  h = Math.imul(h ^ (lastModifiedMs % 0x100000000), C1);
  h = Math.imul(h ^ Math.floor(lastModifiedMs / 0x100000000), C2);
  for (let i = 0; i < eTag.length; i++) h = Math.imul(h ^ eTag.charCodeAt(i), 0x01000193);
  return fmix32(h ^ eTag.length) >>> 0;
}
