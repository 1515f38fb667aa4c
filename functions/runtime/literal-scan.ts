/**
 * Finds many short literals in a string in one pass: the prefilter of redaction
 * (docs/redaction.md, "Speed"). Every line the platform logs is scanned for the
 * anchors of every token format and the stems of every credential key name;
 * most lines hold none, and then no regular expression runs at all.
 *
 * Written here rather than taken from a library: the search is a table lookup on
 * each pair of adjacent characters, then a `startsWith` check of the few
 * literals that begin with that pair. A V8 regular expression of N alternatives
 * costs about N times more per character (bench/redact-scan.ts measured
 * 100 alternatives at three times the cost of this loop), and the Aho–Corasick
 * packages on npm walk an object per character, which is slower still for
 * literals this short.
 */

/** One literal to look for. */
export interface ScanLiteral {
  /** At least 2 characters. */
  readonly text: string;
  /** Matched without regard to ASCII letter case (`bEaReR` is `bearer`). */
  readonly ignoreCase?: boolean;
}

/** A literal that begins with a given pair of characters. */
interface Candidate {
  /** Index of the literal in the scanner's list. */
  readonly index: number;
  /** Lower-cased when `ignoreCase`. */
  readonly text: string;
  readonly ignoreCase: boolean;
}

/** Lower case of an ASCII letter's code; other codes as they are. */
function lower(code: number): number {
  return code >= 65 && code <= 90 ? code | 0x20 : code;
}

/** Index of the pair (a, b) in the pair table: the low byte of each code (other codes only cost a check). */
function pairIndex(a: number, b: number): number {
  return ((a & 0xff) << 8) | (b & 0xff);
}

/** A set of literals, compiled once, found in any string by {@link LiteralScanner.scan}. */
export class LiteralScanner {
  /** For each pair of characters, 1 + the index of its candidate list in {@link lists}, or 0. */
  private readonly pairs = new Uint16Array(65536);
  private readonly lists: Candidate[][] = [];
  /**
   * For each candidate list, a mask of the third characters its literals have,
   * by `code & 31` (the same for both cases of a letter): most pairs of a text
   * that begin a literal are followed by another character, and are dropped
   * without a string comparison. A 2-character literal sets every bit.
   */
  private thirds: number[] = [];

  /**
   * @throws Error when a literal is shorter than 2 characters (it would be checked at every position).
   */
  constructor(readonly literals: readonly ScanLiteral[]) {
    literals.forEach((literal, index) => {
      if (literal.text.length < 2) throw new Error(`literal "${literal.text}" is shorter than 2 characters`);
      const ignoreCase = literal.ignoreCase === true;
      const text = ignoreCase ? literal.text.toLowerCase() : literal.text;
      const a = text.charCodeAt(0);
      const b = text.charCodeAt(1);
      const firsts = ignoreCase ? caseVariants(a) : [a];
      const seconds = ignoreCase ? caseVariants(b) : [b];
      for (const x of firsts)
        for (const y of seconds) {
          const at = pairIndex(x, y);
          let slot = this.pairs[at] as number;
          if (slot === 0) {
            this.lists.push([]);
            this.thirds.push(0);
            slot = this.lists.length;
            this.pairs[at] = slot;
          }
          const third = text.length > 2 ? 1 << (text.charCodeAt(2) & 31) : -1;
          this.thirds[slot - 1] = (this.thirds[slot - 1] as number) | third | 0;
          const list = this.lists[slot - 1] as Candidate[];
          if (!list.some((c) => c.index === index)) list.push({ index, text, ignoreCase });
        }
    });
  }

  /**
   * Every occurrence of every literal in `text`, as `[literal index, position]`
   * pairs appended to `hits` (overlapping occurrences included), in position order.
   *
   * @returns the number of occurrences found.
   */
  scan(text: string, hits: number[]): number {
    const { pairs, lists, thirds } = this;
    const last = text.length - 1;
    let found = 0;
    let previous = text.charCodeAt(0);
    for (let i = 0; i < last; i++) {
      const next = text.charCodeAt(i + 1);
      const slot = pairs[pairIndex(previous, next)] as number;
      previous = next;
      if (slot === 0) continue;
      // Past the end, charCodeAt is NaN: NaN & 31 is 0, and the literal check fails anyway.
      if ((((thirds[slot - 1] as number) >>> (text.charCodeAt(i + 2) & 31)) & 1) === 0) continue;
      const list = lists[slot - 1] as Candidate[];
      for (let k = 0; k < list.length; k++) {
        const candidate = list[k] as Candidate;
        if (
          candidate.ignoreCase
            ? startsWithIgnoringCase(text, candidate.text, i)
            : text.startsWith(candidate.text, i)
        ) {
          hits.push(candidate.index, i);
          found++;
        }
      }
    }
    return found;
  }
}

function caseVariants(code: number): number[] {
  return code >= 97 && code <= 122 ? [code, code - 32] : [code];
}

/** Whether `text` holds `lowered` (lower case) at `at`, ignoring ASCII letter case. */
function startsWithIgnoringCase(text: string, lowered: string, at: number): boolean {
  if (at + lowered.length > text.length) return false;
  for (let k = 0; k < lowered.length; k++) {
    if (lower(text.charCodeAt(at + k)) !== lowered.charCodeAt(k)) return false;
  }
  return true;
}
