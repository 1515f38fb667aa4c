/** Plain-text rendering shared by the commands: aligned tables, short descriptions, durations. */

/** Space between two table columns. */
const COLUMN_GAP = '  ';

/**
 * Aligns rows under upper-case headers, columns separated by two spaces; the
 * last column is not padded. Newlines inside cells become spaces.
 *
 * @returns the table's lines, each ending with `\n`.
 * @example
 * formatTable(['name', 'tags'], [['finish', 'file']]); // 'NAME    TAGS\nfinish  file\n'
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [headers.map((header) => header.toUpperCase()), ...rows].map((cells) =>
    headers.map((_, column) => (cells[column] ?? '').replace(/\s*\n\s*/g, ' ')),
  );
  const widths = headers.map((_, column) => Math.max(...lines.map((cells) => (cells[column] ?? '').length)));
  return lines
    .map(
      (cells) =>
        `${cells
          .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
          .join(COLUMN_GAP)
          .trimEnd()}\n`,
    )
    .join('');
}

/**
 * The first sentence of a description: up to the first `.`, `!` or `?` that is
 * followed by a space and a capital letter (so `chat.postMessage` or `1,000.5`
 * do not end it), or the whole text.
 */
export function firstSentence(text: string): string {
  const match = /^(.*?[.!?])\s+(?=[A-Z])/s.exec(text.trim());
  return (match?.[1] ?? text).trim();
}

/**
 * `text` cut to at most `maxChars` characters, ending in `…` when cut.
 *
 * @example clip('Inventory of EC2 instances', 12) // 'Inventory o…'
 */
export function clip(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** A duration for people: `412 ms` below one second, else `1.2 s`. */
export function formatDuration(ms: number): string {
  const rounded = Math.round(ms);
  return rounded < 1000 ? `${rounded} ms` : `${(ms / 1000).toFixed(1)} s`;
}
