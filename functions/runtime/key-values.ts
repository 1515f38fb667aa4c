/**
 * The key layer of redaction in text (docs/redaction.md): the value of every
 * `key=value`, `key: value` and `"key": "value"` whose key is sensitive by the
 * key rule (`sensitive-keys.ts`) — query strings, env files, connection strings,
 * YAML, JSON in a string, HTTP headers (`Authorization:` and `Cookie:` to the end
 * of the line).
 *
 * Only separators after a key holding one of the rule's stems are examined
 * ({@link KEY_STEMS}, found in one pass by a {@link LiteralScanner}): a line
 * without any costs that pass and nothing more.
 */
import { LiteralScanner } from './literal-scan';
import { REDACTED } from './secret-values';
import { isSensitiveKey, KEY_STEMS, namesCount } from './sensitive-keys';

/** Longest key looked for before a separator: longer runs are data, not a key. */
const MAX_KEY_CHARS = 64;
/** Spaces allowed around a separator (`password = x`, `"password" : "x"`). */
const MAX_PAD_CHARS = 8;

/** Headers whose whole value is a credential, spaces and `;` included (RFC 9110 §11.6.2, RFC 6265). */
const WHOLE_LINE_KEYS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

/** Values that carry no secret: nothing to mask. */
const NOT_SECRET = /^(?:true|false|null|none|undefined|<redacted>)$/i;

/**
 * A spaced value that reads as a sentence about the key, not as the key's value:
 * it opens with an English function word or a verdict and goes on with more words
 * (`bot token: the tenant's slack_default has only webhook_url`, `password: must be
 * at least 8 characters`, `api key: not set`). Error messages say such things of
 * credentials all the time; masking them hides what went wrong. A credential that
 * follows such a word is still caught by its own format (the second layer).
 */
const READS_AS_PROSE =
  /^(?:the|a|an|this|that|these|those|it|its|is|are|was|were|be|been|has|have|had|not|no|none|missing|required|invalid|expired|revoked|must|should|may|can|cannot|could|would|will|does|did|do|only|see|set|unset|empty|unknown|please|use|check|expected|got|from|for|of|in|on|at|to|with|without)\s+\S/i;

/**
 * A placeholder rather than a value: an elided example (`"xoxb-…"`,
 * `"https://hooks.slack.com/…"`) with no run of 8 letters or digits (a cut real
 * token keeps one, and stays masked), `***` or `<your-token>`.
 */
function isPlaceholder(value: string): boolean {
  if (value.endsWith('…') || value.endsWith('...')) return !/[A-Za-z0-9]{8}/.test(value);
  return /^(?:\*+|<[A-Za-z _-]{1,40}>)$/.test(value);
}

/** A YAML block scalar header (`|`, `>-`, `|2`): the value is on the lines below. */
const YAML_BLOCK = /^[|>][-+]?\d?$/;

function isKeyChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || // a-z
    (code >= 65 && code <= 90) || // A-Z
    (code >= 48 && code <= 57) || // 0-9
    code === 95 || // _
    code === 45 || // -
    code === 46 // .
  );
}

function isPad(char: string | undefined): boolean {
  return char === ' ' || char === '\t';
}

/** A `:` or `=` (plain or percent-encoded) at `index`, `length` characters long. */
interface Separator {
  readonly index: number;
  readonly length: number;
  readonly colon: boolean;
}

interface KeyBefore {
  readonly name: string;
  /** Where the key's name starts. */
  readonly start: number;
  /** The quote around the key (`"`, `'`, `\"`), or '' for a bare key. */
  readonly quote: string;
  /** The character before the key (and its opening quote); '' at the start. */
  readonly before: string;
}

/** The key ending just before the separator at `sep`, if there is one. */
function keyBefore(text: string, sep: number): KeyBefore | undefined {
  let i = sep - 1;
  for (let pad = 0; pad < MAX_PAD_CHARS && isPad(text[i]); pad++) i--;
  let quote = '';
  if (text[i] === '"' || text[i] === "'") {
    quote = text[i] as string;
    i--;
    // JSON in a string (`\"`), escaped again when that string is logged as JSON (`\\\"`).
    for (let depth = 0; depth < MAX_ESCAPES && text[i] === '\\'; depth++) {
      quote = `\\${quote}`;
      i--;
    }
  }
  const end = i + 1;
  while (i >= 0 && end - i <= MAX_KEY_CHARS && isKeyChar(text.charCodeAt(i))) i--;
  const start = i + 1;
  if (start === end || end - start > MAX_KEY_CHARS || (i >= 0 && isKeyChar(text.charCodeAt(i))))
    return undefined;
  if (quote) {
    if (!text.startsWith(quote, start - quote.length)) return undefined;
    i = start - quote.length - 1;
  }
  return { name: text.slice(start, end), start, quote, before: i >= 0 ? (text[i] as string) : '' };
}

/**
 * Whether `key:` introduces a value. A quoted key (JSON) or a colon followed by a
 * space (YAML, HTTP headers) does; a bare `a:b` does only when it is not part of
 * a colon or slash chain (`arn:aws:secretsmanager:…`, `host:port`).
 */
function colonStartsValue(text: string, sep: Separator, key: KeyBefore): boolean {
  if (key.quote) return true;
  const next = text[sep.index + sep.length];
  if (next === ' ' || next === '\t' || next === '\n' || next === '\r') return true;
  return key.before !== ':' && key.before !== '/' && !key.name.includes('.');
}

/** Where a value starting at `from` ends, given the characters that end it. */
function scanTo(text: string, from: number, stops: RegExp): number {
  stops.lastIndex = from;
  const stop = stops.exec(text);
  return stop ? stop.index : text.length;
}

/** A value's end for `key=value` and `key:value` (query strings, env, connection strings), also percent-encoded. */
const EQUALS_VALUE_END = /[\s"'&;,)\]}]|\\[nrt"\\]|%2[026Cc]|%3[Bb]/g;
/** A value's end for `key: value` (YAML, headers: may hold spaces). */
const COLON_VALUE_END = /[\r\n"',;}\]]|\\[nrt"\\]/g;
/** A header's end: the line. */
const LINE_END = /[\r\n"]|\\[nr"]/g;

/** Deepest nesting followed in a bracketed value before giving up (the rest of the text is masked). */
const MAX_BRACKET_DEPTH = 64;

/**
 * Just past the bracket closing the one at `open` (`{…}` or `[…]`, JSON strings
 * skipped), or the end of the text when it is not closed: a sensitive key's
 * whole structured value is masked, as an object key's would be.
 */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') {
      depth++;
      if (depth > MAX_BRACKET_DEPTH) break;
    } else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  // Unclosed (or deeper than followed): all that follows belongs to the sensitive key.
  return text.length;
}

/** Width of the indentation of the line holding `index`. */
function indentOf(text: string, index: number): number {
  let start = text.lastIndexOf('\n', index - 1) + 1;
  let width = 0;
  while (isPad(text[start++])) width++;
  return width;
}

/**
 * The end of a YAML block scalar (`password: |` then indented lines): the
 * following lines that are blank or indented deeper than the key.
 */
function blockEnd(text: string, key: KeyBefore, from: number): number {
  const keyIndent = indentOf(text, key.start);
  let end = from;
  for (let line = text.indexOf('\n', from); line >= 0 && line + 1 < text.length; ) {
    const next = text.indexOf('\n', line + 1);
    const lineEnd = next < 0 ? text.length : next;
    const content = text.slice(line + 1, lineEnd);
    if (content.trim() !== '' && indentOf(text, line + 1) <= keyIndent) break;
    end = lineEnd;
    line = next;
  }
  return end;
}

/** Most backslashes followed before a quote: JSON in a string in a JSON log line is two levels deep. */
const MAX_ESCAPES = 7;

/** The quote opening a value at `at` (`"`, `'`, `\"`, `\\\"`…), or undefined. */
function openingQuote(text: string, at: number): string | undefined {
  if (text[at] === "'") return "'";
  let i = at;
  while (i - at < MAX_ESCAPES && text[i] === '\\') i++;
  return text[i] === '"' ? text.slice(at, i + 1) : undefined;
}

/** The range of the value after the separator (empty when there is none). */
function valueAfter(text: string, sep: Separator, key: KeyBefore): { start: number; end: number } {
  let start = sep.index + sep.length;
  for (let pad = 0; pad < MAX_PAD_CHARS && isPad(text[start]); pad++) start++;
  const open = openingQuote(text, start);
  if (open !== undefined) {
    start += open.length;
    let end = text.indexOf(open, start);
    // A JSON string ends at an unescaped quote.
    while (open === '"' && end > 0 && text[end - 1] === '\\') end = text.indexOf(open, end + 1);
    return { start, end: end < 0 ? scanTo(text, start, LINE_END) : end };
  }
  if (text[start] === '{' || text[start] === '[') return { start, end: closingBracket(text, start) };
  const name = key.name.toLowerCase();
  // `key: value` (a space after the colon) may hold spaces; `key=value` and `key:value` end at one.
  const spaced = sep.colon && start > sep.index + sep.length;
  const stops = WHOLE_LINE_KEYS.has(name) ? LINE_END : spaced ? COLON_VALUE_END : EQUALS_VALUE_END;
  const end = scanTo(text, start, stops);
  // YAML: `key: |` or `key:` alone on its line holds the indented lines below.
  const inline = text.slice(start, end).trim();
  const nextLine = inline === '' && /^[ \t]*\r?\n/.test(text.slice(start, start + MAX_PAD_CHARS + 2));
  if (sep.colon && (YAML_BLOCK.test(inline) || nextLine)) return { start, end: blockEnd(text, key, end) };
  return { start, end };
}

const COLON = 58;
const EQUALS = 61;
const PERCENT = 37;

/** The stems of sensitive keys, looked for without case (`aUtHoRiZaTiOn` holds `auth`); built on first use. */
let stems: LiteralScanner | undefined;

/**
 * Positions of the key stems ({@link KEY_STEMS}) in `text`, in order: where a
 * sensitive key may be. The same scan as redaction's prefilter makes.
 */
export function stemPositions(text: string): number[] {
  const hits: number[] = [];
  stems ??= new LiteralScanner(KEY_STEMS.map((text) => ({ text, ignoreCase: true })));
  stems.scan(text, hits);
  const positions: number[] = [];
  for (let k = 1; k < hits.length; k += 2) positions.push(hits[k] as number);
  return positions;
}

/**
 * The `=` or `:` (plain or percent-encoded, `%3D`, `%3A`: a query string inside a
 * query parameter) that ends the key holding the stem at `at`, after its closing
 * quote (`"`, `'`, `\"`) and spaces; undefined when the key is not followed by one.
 */
function separatorAfterKey(text: string, at: number): Separator | undefined {
  let i = at;
  while (i < text.length && i - at < MAX_KEY_CHARS && isKeyChar(text.charCodeAt(i))) i++;
  for (let depth = 0; depth < MAX_ESCAPES && text[i] === '\\'; depth++) i++;
  if (text[i] === '"' || text[i] === "'") i++;
  for (let pad = 0; pad < MAX_PAD_CHARS && isPad(text[i]); pad++) i++;
  const code = text.charCodeAt(i);
  if (code === COLON || code === EQUALS) return { index: i, length: 1, colon: code === COLON };
  if (code === PERCENT && text[i + 1] === '3') {
    const kind = text[i + 2];
    if (kind === 'D' || kind === 'd') return { index: i, length: 3, colon: false };
    if (kind === 'A' || kind === 'a') return { index: i, length: 3, colon: true };
  }
  return undefined;
}

/** A plain number (`1532`, `0.25`): under a plural key (`tokens=1532`) it is a count. */
const PLAIN_NUMBER = /^\d{1,15}(?:\.\d{1,15})?$/;

/**
 * Masks the value of every sensitive `key=value`, `key: value` and `"key": "value"` in `text`.
 *
 * @param keepKeys - normalized keys kept visible (a tool spec's `visibleOutputKeys`).
 * @param stems - {@link stemPositions} of `text`, when the caller has them already.
 */
export function maskKeyValues(
  text: string,
  keepKeys?: ReadonlySet<string>,
  stems: readonly number[] = stemPositions(text),
): string {
  if (stems.length === 0) return text;
  const parts: string[] = [];
  let copied = 0;
  let lastSeparator = -1;
  for (const at of stems) {
    if (at < copied) continue;
    const sep = separatorAfterKey(text, at);
    if (!sep || sep.index <= lastSeparator) continue;
    lastSeparator = sep.index;
    const key = keyBefore(text, sep.index);
    if (!key || !isSensitiveKey(key.name, keepKeys)) continue;
    if (sep.colon && !colonStartsValue(text, sep, key)) continue;
    const value = valueAfter(text, sep, key);
    // Trailing spaces of a `key: value` stay.
    let end = value.end;
    while (end > value.start && isPad(text[end - 1])) end--;
    const found = text.slice(value.start, end);
    if (found.length === 0 || NOT_SECRET.test(found) || isPlaceholder(found)) continue;
    if (!key.quote && READS_AS_PROSE.test(found)) continue;
    if (PLAIN_NUMBER.test(found) && namesCount(key.name)) continue;
    parts.push(text.slice(copied, value.start), REDACTED);
    copied = end;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}
