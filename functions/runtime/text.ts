/**
 * Words and figures of one-line summaries, shared by every connector: counted
 * nouns, USD amounts in cents, and tallies by key.
 */

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
 * Adds `by` (default 1) to `counts[key]`, starting from 0.
 *
 * @example const byState = {}; increment(byState, 'running'); // { running: 1 }
 */
export function increment(counts: Record<string, number>, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}
