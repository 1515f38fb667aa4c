import { LiteralScanner } from '../../../functions/runtime/literal-scan';

/** The `[literal, position]` pairs a scan found, literals by their text. */
function found(scanner: LiteralScanner, text: string): [string, number][] {
  const hits: number[] = [];
  scanner.scan(text, hits);
  const out: [string, number][] = [];
  for (let k = 0; k < hits.length; k += 2) {
    out.push([scanner.literals[hits[k] as number]?.text as string, hits[k + 1] as number]);
  }
  return out;
}

describe('LiteralScanner', () => {
  it('finds every occurrence of every literal, overlapping ones and one at the very end included', () => {
    // Prepare
    const scanner = new LiteralScanner([{ text: 'ghp_' }, { text: 'gh' }, { text: 'p_' }, { text: '://' }]);

    // Act
    const hits = found(scanner, 'x ghp_ a://b gh');

    // Assess
    expect(hits).toEqual([
      ['ghp_', 2],
      ['gh', 2],
      ['p_', 4],
      ['://', 8],
      ['gh', 13],
    ]);
  });

  it('matches an ignoreCase literal in any case and the others in their own case only', () => {
    const scanner = new LiteralScanner([{ text: 'Bearer', ignoreCase: true }, { text: 'AKIA' }]);

    expect(found(scanner, 'bEaReR BEARER akia AKIA')).toEqual([
      ['Bearer', 0],
      ['Bearer', 7],
      ['AKIA', 19],
    ]);
  });

  it('finds nothing in an empty or one-character string, and nothing outside ASCII by mistake', () => {
    const scanner = new LiteralScanner([{ text: 'ab' }]);

    expect(found(scanner, '')).toEqual([]);
    expect(found(scanner, 'a')).toEqual([]);
    // U+0161 and U+0162 share their low bytes with 'a' and 'b': the pair table sends them to a check that fails.
    expect(found(scanner, '\u0161\u0162 ab')).toEqual([['ab', 3]]);
  });

  it('refuses a literal shorter than 2 characters', () => {
    expect(() => new LiteralScanner([{ text: '.' }])).toThrow('literal "." is shorter than 2 characters');
  });
});
