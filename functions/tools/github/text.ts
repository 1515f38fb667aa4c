/** Field mapping helpers shared by the GitHub tools. */

/** Longest title or message line returned, characters. */
export const SHORT_TEXT_CHARS = 200;

/**
 * The first line of `text`, cut at {@link SHORT_TEXT_CHARS} characters (a commit
 * message's subject, a title): bodies are never returned.
 *
 * @example shortText('Fix all the bugs\n\nLong explanation') // 'Fix all the bugs'
 */
export function shortText(text: string): string {
  const line = (text.split(/\r?\n/, 1)[0] ?? '').trim();
  return line.length > SHORT_TEXT_CHARS ? `${line.slice(0, SHORT_TEXT_CHARS)}…` : line;
}

/**
 * Page budget of one GitHub read: 5 pages of up to 100 items (GitHub's largest
 * `per_page`), at most 4 MB of response bodies (a pull request in a list is about 8 KB).
 */
export const GITHUB_PAGE_BUDGET = { maxPages: 5, maxBytes: 4 * 1024 * 1024 } as const;
