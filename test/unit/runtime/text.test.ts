import {
  compareText,
  formatUsd,
  increment,
  plural,
  roundCents,
  wholeCharCut,
} from '../../../functions/runtime/text';

describe('text helpers of one-line summaries', () => {
  it.each([
    [0, '0 regions'],
    [1, '1 region'],
    [2, '2 regions'],
  ])('plural(%d, region) is %s', (count, expected) => {
    expect(plural(count, 'region')).toBe(expected);
  });

  it('uses the given plural form', () => {
    expect(plural(2, 'cost anomaly', 'cost anomalies')).toBe('2 cost anomalies');
  });

  it('rounds USD amounts to whole cents and prints them with two decimals', () => {
    expect(roundCents(3.6549999)).toBe(3.65);
    expect(roundCents(210.245)).toBe(210.25);
    expect(formatUsd(3.6)).toBe('$3.60');
    expect(formatUsd(roundCents(0.004))).toBe('$0.00');
  });

  it('counts keys that are Object.prototype members as plain keys', () => {
    // Arrange
    const counts: Record<string, number> = {};

    // Act
    increment(counts, 'constructor');
    increment(counts, '__proto__', 2);
    // 0.1 + 0.2 is 0.30000000000000004 in floating point: rounded to cents on each sum
    increment(counts, 'm5.large', 0.1, roundCents);
    increment(counts, 'm5.large', 0.2, roundCents);

    // Assess
    expect(Object.getPrototypeOf(counts)).toBe(Object.prototype);
    expect(Object.entries(counts)).toEqual([
      ['constructor', 1],
      ['__proto__', 2],
      ['m5.large', 0.3],
    ]);
  });

  it('sorts by code units, the same on every machine whatever its locale', () => {
    // Arrange: localeCompare would put 'a' before 'B' and 'é' next to 'e'
    const names = ['b', 'é', 'B', 'a', 'i-0b', 'i-0a', '2024-05-01T10:00:00Z', '2024-05-01T09:00:00Z'];

    // Act
    const sorted = [...names].sort(compareText);

    // Assess
    expect(sorted).toEqual([
      '2024-05-01T09:00:00Z',
      '2024-05-01T10:00:00Z',
      'B',
      'a',
      'b',
      'i-0a',
      'i-0b',
      'é',
    ]);
    expect(compareText('x', 'x')).toBe(0);
  });
});

describe('wholeCharCut()', () => {
  it.each([
    ['ab😀', 3, 2],
    ['ab😀', 4, 4],
    ['ab😀c', 2, 2],
    ['abc', 2, 2],
    ['😀😀', 1, 0],
  ])('cuts %p at %p code units without splitting a pair: %p', (text, at, cut) => {
    // Act
    const kept = text.slice(0, wholeCharCut(text, at));

    // Assess: the cut, and no lone surrogate in what is kept
    expect(wholeCharCut(text, at)).toBe(cut);
    expect(() => encodeURIComponent(kept)).not.toThrow(); // URIError on a lone surrogate
  });
});
