/**
 * Deterministic pseudo-random text for fixtures: generated, so no
 * credential-shaped literal sits in the source, and every run gets the same values.
 */

/**
 * `length` characters from `alphabet`, the same for the same `seed` (xorshift32).
 *
 * @example fakeText(16, '0123456789abcdef', 1) // always the same 16 hex digits
 */
export function fakeText(length: number, alphabet: string, seed: number): string {
  let state = (seed * 2654435761) >>> 0 || 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out += alphabet[state % alphabet.length];
  }
  return out;
}
