/**
 * Words and figures of one-line summaries, shared by every connector: counted
 * nouns, USD amounts in cents, tallies by key, and cuts of text that never
 * split a character.
 */

/**
 * Where to cut `text` at most `at` UTF-16 code units in without splitting a
 * surrogate pair (half an emoji serializes as a lone `\ud83d` escape): `at`, or
 * `at - 1` when the unit before it is a pair's high half.
 *
 * @example wholeCharCut('ab😀', 3) // 2
 */
export function wholeCharCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/**
 * A count and its noun, plural unless the count is 1.
 *
 * @param pluralForm - @default `${singular}s`
 * @example plural(3, 'region') // '3 regions'
 * @example plural(1, 'cost anomaly', 'cost anomalies') // '1 cost anomaly'
 */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/**
 * `value` rounded to `digits` decimal places (the run summary's figures: USD to 6, GB-seconds to 3 or 4).
 *
 * @example roundTo(0.12345678, 6) // 0.123457
 */
export function roundTo(value: number, digits: number): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

/**
 * A USD amount rounded to whole cents (half away from zero for positive amounts,
 * as `Math.round` does).
 *
 * @example roundCents(3.6549999) // 3.65
 */
export function roundCents(amountUsd: number): number {
  return Math.round(amountUsd * 100) / 100;
}

/**
 * A USD amount for people: `$` and two decimals.
 *
 * @example formatUsd(3.6) // '$3.60'
 */
export function formatUsd(amountUsd: number): string {
  return `$${amountUsd.toFixed(2)}`;
}

/**
 * Adds `by` (default 1) to `counts[key]`, starting from 0. The key is data (an
 * instance type, a tag value, a service name): read as an own property only and
 * written as one, so `constructor` counts from 0 and `__proto__` is a key like
 * any other, never the object's prototype.
 *
 * @param round - applied to the sum (`roundCents` for USD amounts).
 * @example const byState = {}; increment(byState, 'running'); // { running: 1 }
 */
export function increment(
  counts: Record<string, number>,
  key: string,
  by = 1,
  round: (sum: number) => number = (sum) => sum,
): void {
  const current = Object.hasOwn(counts, key) ? (counts[key] as number) : 0;
  Object.defineProperty(counts, key, {
    value: round(current + by),
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * Plain code-unit order, for sorting ids, names and ISO timestamps. Unlike
 * `localeCompare` it gives the same order on every machine whatever its locale,
 * and it does not load ICU's collator (about 8 ms of a cold start, measured with
 * `node --cpu-prof` on the dispatcher's bundle).
 *
 * @example ['b', 'B', 'a'].sort(compareText) // ['B', 'a', 'b']
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
