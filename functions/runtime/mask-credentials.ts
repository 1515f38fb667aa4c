/**
 * The text layers of redaction (docs/redaction.md): every credential recognised
 * in a string whatever its key.
 *
 * 1. **Self-identifying formats** (`credential-patterns.ts`, {@link TOKEN_RULES}).
 * 2. **Syntax that carries a credential**: a password in a URL
 *    (`scheme://user:pass@host`), and `key=value` / `key: value` / `"key":"value"`
 *    whose key is sensitive by the key rule (`key-values.ts`) — which covers
 *    `Authorization:` and `Proxy-Authorization:` headers of every scheme,
 *    `Cookie:`/`Set-Cookie:`, and sensitive query parameters.
 *
 * **Speed.** One pass of a {@link LiteralScanner} finds, in each string, the
 * anchors of every format, the stems of the sensitive key names and `://`. A
 * string holding none (most log lines) is returned after that pass alone; else
 * only the formats whose anchors it holds are run, as one regex of those rules
 * (leftmost match first, as if all were run), and the key layer looks only at
 * the separators after a stem. bench/redact-scan.ts compares it with secretlint.
 */
import { anchorsOf, TOKEN_RULES, type TokenRule } from './credential-patterns';
import { maskKeyValues } from './key-values';
import { LiteralScanner, type ScanLiteral } from './literal-scan';
import { REDACTED } from './secret-values';
import { KEY_STEMS } from './sensitive-keys';

/** Rules matched through their anchors: all but those led by a character class with a one-character guard. */
const ANCHORED_RULES: readonly TokenRule[] = TOKEN_RULES.filter(
  (rule) => rule.guard === undefined || rule.guard.length >= 2,
);
/** Rules whose guard is a single character (`.`): run on strings that contain it. */
const CHAR_GUARDED_RULES = TOKEN_RULES.filter(
  (rule) => rule.guard !== undefined && rule.guard.length < 2,
).map((rule) => ({
  guard: rule.guard as string,
  pattern: new RegExp(rule.source, 'g'),
  accept: rule.accept,
}));
const AWS_KEY_ID_RULE = ANCHORED_RULES.findIndex((rule) => rule.name === 'aws-access-key-id');

/** What a literal of the scanner stands for: a rule's anchor (its index), a key stem, or `://`. */
const STEM = -1;
const SCHEME_SEPARATOR = -2;

/** What each literal of {@link scanner} stands for, by its index. */
const LITERAL_MEANS: number[] = [];
let built: LiteralScanner | undefined;

/**
 * The scanner of every anchor, stem and `://`, built on first use: deriving the
 * anchors of every rule is work a function's init phase need not do (cold start,
 * bench/cold-start.ts).
 */
function scanner(): LiteralScanner {
  if (built !== undefined) return built;
  const literals: ScanLiteral[] = [];
  const add = (literal: ScanLiteral, means: number) => {
    literals.push(literal);
    LITERAL_MEANS.push(means);
  };
  ANCHORED_RULES.forEach((rule, index) => {
    for (const text of rule.guard === undefined ? anchorsOf(rule) : [rule.guard]) {
      add({ text, ignoreCase: rule.ignoreCase }, index);
    }
  });
  for (const text of KEY_STEMS) add({ text, ignoreCase: true }, STEM);
  add({ text: '://' }, SCHEME_SEPARATOR);
  built = new LiteralScanner(literals);
  return built;
}

/** The rules a string's anchors name, compiled as one regex (each rule in its own group). */
interface RuleSet {
  readonly rules: readonly TokenRule[];
  readonly pattern: RegExp;
  /** The same regex for the second scan of a rejected match (see {@link maskTokens}). */
  readonly again: RegExp;
  /** Group of the AWS access key id rule, or -1. */
  readonly awsKeyId: number;
}

/** Rule sets by their rules' indices: strings repeat the same few. Bounded: texts come from input. */
const RULE_SETS = new Map<string, RuleSet>();
const MAX_RULE_SETS = 256;

function ruleSet(indices: readonly number[]): RuleSet {
  const id = indices.join(',');
  let set = RULE_SETS.get(id);
  if (set === undefined) {
    const rules = indices.map((i) => ANCHORED_RULES[i] as TokenRule);
    const source = rules.map((rule) => `(${rule.source})`).join('|');
    set = {
      rules,
      pattern: new RegExp(source, 'g'),
      again: new RegExp(source, 'g'),
      awsKeyId: indices.indexOf(AWS_KEY_ID_RULE),
    };
    if (RULE_SETS.size >= MAX_RULE_SETS) RULE_SETS.clear();
    RULE_SETS.set(id, set);
  }
  return set;
}

/** What one scan of a string found. */
interface Found {
  /** Indices of the anchored rules whose anchors occur, ascending. */
  readonly rules: number[];
  /** Positions of key stems. */
  readonly stems: number[];
  readonly url: boolean;
}

function scan(text: string): Found {
  const hits: number[] = [];
  const found: Found = { rules: [], stems: [], url: false };
  if (scanner().scan(text, hits) === 0) return found;
  let url = false;
  for (let k = 0; k < hits.length; k += 2) {
    const means = LITERAL_MEANS[hits[k] as number] as number;
    if (means === STEM) found.stems.push(hits[k + 1] as number);
    else if (means === SCHEME_SEPARATOR) url = true;
    else if (!found.rules.includes(means)) found.rules.push(means);
  }
  found.rules.sort((a, b) => a - b);
  return { ...found, url };
}

/**
 * A 40-character AWS secret access key, masked only in a text that also held an
 * access key id (a CSV line, a CLI dump): alone it is indistinguishable from
 * other base64. Elsewhere the key rule (`aws_secret_access_key=`) or the exact
 * match of resolved secrets masks it.
 */
const AWS_SECRET_ACCESS_KEY = /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

function looksLikeAwsSecretKey(candidate: string): boolean {
  return /[A-Z]/.test(candidate) && /[a-z]/.test(candidate) && /[0-9/+]/.test(candidate);
}

/**
 * A URL, from its scheme to the next space or quote (RFC 3986 §3). Taken whole
 * (nothing is required after the greedy part, so nothing backtracks) and parsed
 * by {@link maskUrlPassword}.
 */
const URL_TOKEN = /\b[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s"'<>]*/g;

/** What follows a userinfo `@`: a host and optional port, then the path, query, fragment or end. */
const HOST_AFTER_AT = /^[A-Za-z0-9.[\]:%-]*?(?::\d+)?(?:[/?#]|$)/;

/**
 * Index of the `@` that ends the userinfo in `rest` (the URL after `://`), or -1:
 * the last `@` a host follows, skipping those inside the query (after a `?` and
 * a later `=`, as in `?email=a@b.com`); when all are, the last one (masking too
 * much rather than too little).
 */
function userinfoEnd(rest: string): number {
  const question = rest.indexOf('?');
  const queryEquals = question < 0 ? -1 : rest.indexOf('=', question);
  let fallback = -1;
  for (let at = rest.lastIndexOf('@'); at >= 0; at = at > 0 ? rest.lastIndexOf('@', at - 1) : -1) {
    if (!HOST_AFTER_AT.test(rest.slice(at + 1, at + 300))) continue;
    if (queryEquals < 0 || queryEquals > at) return at;
    if (fallback < 0) fallback = at;
  }
  return fallback;
}

/**
 * Masks the password of a URL's userinfo (RFC 3986 §3.2.1), any scheme:
 * `postgres://`, `mongodb+srv://`, `redis://:pass@`, `amqps://`, `https://`. The
 * password runs to the last `@` a host follows outside the query, so an
 * unencoded `@`, `/` or `?` in it is masked too. The user name stays.
 */
function maskUrlPassword(url: string): string {
  const schemeEnd = url.indexOf('://') + 3;
  const rest = url.slice(schemeEnd);
  const at = userinfoEnd(rest);
  if (at < 0) return url;
  const colon = rest.indexOf(':');
  if (colon < 0 || colon > at || rest.slice(0, colon).includes('/')) return url;
  const password = rest.slice(colon + 1, at);
  if (password.length === 0 || password === REDACTED) return url;
  return `${url.slice(0, schemeEnd)}${rest.slice(0, colon + 1)}${REDACTED}${rest.slice(at)}`;
}

/**
 * Masks the self-identifying formats of `set`; tells whether an AWS access key id
 * was among them. A match its rule's `accept` rejects is kept, and scanned once
 * more from its second character, so a token inside it (an access key id after
 * the word "Basic") is still found; that second scan does not recurse, which
 * keeps the work linear.
 */
function maskTokens(
  text: string,
  set: RuleSet,
  again = false,
): { readonly text: string; readonly sawAwsKeyId: boolean } {
  let sawAwsKeyId = false;
  const masked = text.replace(again ? set.again : set.pattern, (match: string, ...groups: unknown[]) => {
    const index = groups.findIndex((group) => group !== undefined);
    if (index === set.awsKeyId) sawAwsKeyId = true;
    const accept = set.rules[index]?.accept;
    if (accept === undefined || accept(match)) {
      // A sentence's full stop after a token is not part of it.
      const dots = /\.*$/.exec(match)?.[0] ?? '';
      return `${REDACTED}${dots}`;
    }
    if (again) return match;
    const inner = maskTokens(match.slice(1), set, true);
    sawAwsKeyId ||= inner.sawAwsKeyId;
    return match[0] + inner.text;
  });
  return { text: masked, sawAwsKeyId };
}

/**
 * Masks the credential-looking parts of one string: self-identifying formats,
 * URL passwords, and values of sensitive `key=value` / `key: value` pairs.
 *
 * @param keepKeys - normalized keys kept visible (a tool spec's `visibleOutputKeys`).
 * @example maskCredentials('postgres://app:fake-test-pw@db.example.com/x')
 * // => 'postgres://app:<redacted>@db.example.com/x'
 */
export function maskCredentials(text: string, keepKeys?: ReadonlySet<string>): string {
  const found = scan(text);
  let out = text;
  if (found.rules.length > 0) {
    const tokens = maskTokens(text, ruleSet(found.rules));
    out = tokens.text;
    if (tokens.sawAwsKeyId) {
      out = out.replace(AWS_SECRET_ACCESS_KEY, (match) => (looksLikeAwsSecretKey(match) ? REDACTED : match));
    }
  }
  for (const { guard, pattern, accept } of CHAR_GUARDED_RULES) {
    if (!out.includes(guard)) continue;
    out = out.replace(pattern, (match) => (accept === undefined || accept(match) ? REDACTED : match));
  }
  if (found.url) out = out.replace(URL_TOKEN, maskUrlPassword);
  if (found.stems.length === 0 && out === text) return out;
  // Positions of the stems hold only in the text they were found in.
  return maskKeyValues(out, keepKeys, out === text ? found.stems : undefined);
}
