/**
 * Schema violations in words a caller can act on, and the nesting limit checked
 * before any schema sees a value: shared by tool args (args.ts) and every other
 * validated input (secret references, CLI input).
 */
import * as z from 'zod/mini';
import { redactString } from './redact';
import { wholeCharCut } from './text';
import './zod-locale';

/** One schema violation: where (`regions[0]`, `(root)`) and what is accepted. */
export interface ArgsViolation {
  readonly path: string;
  readonly message: string;
}

/**
 * How deep objects and arrays may nest in a tool's args: 32 levels, the args
 * object itself being the first. The deepest legitimate args nest about 7 (a
 * Slack Block Kit `rich_text` block inside `blocks`); much deeper JSON only costs:
 * redaction, bounding and printing walk it, and 3,000 levels overflowed the
 * stack of the CLI before this limit.
 */
export const MAX_ARGS_DEPTH = 32;

/**
 * The first top-level key under which `value` nests objects and arrays deeper
 * than `limit` levels (`value` itself being level 1), or undefined. Iterative,
 * so any depth is safe to check, and it never descends past `limit`.
 *
 * @example tooDeepAt({ data: { a: { b: 1 } } }, 2) // 'data'
 */
export function tooDeepAt(value: unknown, limit: number): string | undefined {
  const pending: { value: unknown; depth: number; key: string }[] = [{ value, depth: 1, key: '(root)' }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.depth > limit) return next.key;
    for (const [key, child] of Object.entries(next.value)) {
      pending.push({ value: child, depth: next.depth + 1, key: next.depth === 1 ? key : next.key });
    }
  }
  return undefined;
}

function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out || '(root)';
}

/**
 * Every violation zod reports, with its path, each message saying what is
 * accepted (what an LLM caller reads to fix its call):
 * - an unknown key: zod's message and the keys the object accepts (from `schema`);
 * - a missing required field: `Required: expected string` (zod would say
 *   "received undefined");
 * - a value of the wrong type, or past one of its bounds: zod's message, then what the
 *   field's own description (`z.describe`) says it accepts (`Accepted: Repository as
 *   owner/name (octocat/Hello-World)`), since "expected string" alone does not say which
 *   string, and "expected number to be >=1" not the upper bound;
 * - several bounds of one value (`z.int()`'s safe-integer bound and the
 *   schema's own): only the tightest.
 *
 * @param input - what was parsed, to tell a missing field from a wrong one.
 * @param schema - the schema `input` was parsed with, to list accepted keys.
 * @param options - whether to say what was received ({@link ViolationOptions}).
 */
export function violationsOf(
  error: z.core.$ZodError,
  input?: unknown,
  schema?: z.core.$ZodType,
  options: ViolationOptions = {},
): ArgsViolation[] {
  return error.issues
    .filter((issue) => !looserBoundThanAnother(issue, error.issues))
    .map((issue) => ({ path: pathOf(issue.path), message: messageOf(issue, input, schema, options) }));
}

/** How {@link violationsOf} words a violation. */
export interface ViolationOptions {
  /**
   * Say what was received at the violation's path, after what is wrong
   * (`(got "EU-WEST-1")`, `(got an array of 41 entries)`): a caller sees which of
   * its values was refused without diffing its call against the schema. The
   * value is redacted whole before it is cut to {@link RECEIVED_CHARS} (a cut
   * token is a prefix no pattern recognizes). Only for tool args and scenario
   * documents: a secret reference's `ref_value` that is not an ARN may be the
   * credential itself, so it is never echoed.
   */
  readonly sayReceived?: boolean;
}

function messageOf(
  issue: z.core.$ZodIssue,
  input: unknown,
  schema: z.core.$ZodType | undefined,
  options: ViolationOptions,
): string {
  if (issue.code === 'unrecognized_keys') {
    const accepted = schema && objectKeysAt(schema, issue.path);
    if (!accepted) return issue.message;
    return `${issue.message}; accepted keys: ${accepted.length > 0 ? accepted.join(', ') : 'none'}`;
  }
  const missing = issue.code === 'invalid_type' && isMissing(input, issue.path);
  const value = valueAt(input, issue.path);
  // Nothing to show of a field left out; "received null" says all there is to say of a null.
  const said = missing || value === undefined || (issue.code === 'invalid_type' && value === null);
  const got = options.sayReceived && !said ? inWords(value as {} | null) : '';
  // A refinement's own message may quote the value already (read_file's path).
  const quoted = issue.code === 'custom' && issue.message.includes(got);
  const received = got && !quoted ? ` (got ${got})` : '';
  // A bound says one side only ("expected number to be >=1"): the field's description says the range.
  const bound = issue.code === 'too_small' || issue.code === 'too_big';
  // Other issues are the schema's own checks, whose messages say what is accepted already.
  if (issue.code !== 'invalid_type' && !bound) return `${issue.message}${received}`;
  const message = missing ? `Required: expected ${issue.expected}` : `${issue.message}${received}`;
  const described = schema && descriptionAt(schema, issue.path);
  return described ? `${message}. Accepted: ${described.replace(/\.$/, '')}` : message;
}

/** Longest text of a received value a message quotes, in characters; longer values are cut with `…`. */
const RECEIVED_CHARS = 60;

/** The value at `path` of `input`, or undefined when the path leads nowhere. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = input;
  for (const part of path) {
    value =
      value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[part] : undefined;
  }
  return value;
}

/**
 * A received value in words: a scalar as JSON (cut to {@link RECEIVED_CHARS}),
 * an array by its length (its faulty entries have violations of their own), an
 * object as "an object".
 */
function inWords(value: {} | null): string {
  if (Array.isArray(value)) return `an array of ${value.length} ${value.length === 1 ? 'entry' : 'entries'}`;
  if (value !== null && typeof value === 'object') return 'an object';
  return redactedExcerpt(JSON.stringify(value));
}

/**
 * `text` redacted whole, then cut to {@link RECEIVED_CHARS} with `…`, never
 * inside a character: what a message may quote of a value it refuses (a cut
 * credential would be a prefix no pattern recognizes any more).
 */
export function redactedExcerpt(text: string): string {
  const redacted = redactString(text);
  return redacted.length > RECEIVED_CHARS
    ? `${redacted.slice(0, wholeCharCut(redacted, RECEIVED_CHARS - 1))}…`
    : redacted;
}

/** The description (`z.describe`) of the schema at `path`, or of a wrapper on the way to it; undefined when none. */
function descriptionAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string | undefined {
  let described: string | undefined;
  // The innermost description wins: `z.optional(z.string().check(z.describe(…)))` describes the string.
  for (const node of schemasAt(schema, path))
    described = z.globalRegistry.get(node)?.description ?? described;
  return described;
}

/** A `too_big`/`too_small` issue of a value that another issue bounds more tightly. */
function looserBoundThanAnother(issue: z.core.$ZodIssue, issues: readonly z.core.$ZodIssue[]): boolean {
  if (issue.code !== 'too_big' && issue.code !== 'too_small') return false;
  const path = pathOf(issue.path);
  return issues.some(
    (other) =>
      other !== issue &&
      pathOf(other.path) === path &&
      ((issue.code === 'too_big' && other.code === 'too_big' && other.maximum < issue.maximum) ||
        (issue.code === 'too_small' && other.code === 'too_small' && other.minimum > issue.minimum)),
  );
}

/** Whether the last key of `path` is absent from its (present) parent object in `input`. */
function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  if (input === undefined || path.length === 0) return false;
  let parent: unknown = input;
  for (const part of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[part];
  }
  return (
    parent !== null &&
    typeof parent === 'object' &&
    !Array.isArray(parent) &&
    !Object.hasOwn(parent, path[path.length - 1] as PropertyKey)
  );
}

/** The parts of a zod definition followed to reach the object at a path. */
interface SchemaDefinition {
  readonly type: string;
  /** Of `object`. */
  readonly shape?: Record<string, z.core.$ZodType>;
  /** Of wrappers: `optional`, `default`, `nullable`, `readonly`… */
  readonly innerType?: z.core.$ZodType;
  /** Of `array`. */
  readonly element?: z.core.$ZodType;
  /** Of `record`. */
  readonly valueType?: z.core.$ZodType;
}

/** The keys of the object schema at `path`, or undefined when the path leads elsewhere (a union). */
function objectKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] | undefined {
  const last = schemasAt(schema, path).at(-1);
  const def = last?._zod.def as unknown as SchemaDefinition | undefined;
  return def?.type === 'object' ? Object.keys(def.shape ?? {}) : undefined;
}

/**
 * The schemas at the end of `path` in `schema`, outermost first: the wrappers
 * (`optional`, `default`…) and the schema they wrap, last. Empty when the path
 * cannot be followed (a union, a key the object does not have).
 */
function schemasAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): z.core.$ZodType[] {
  const atEnd: z.core.$ZodType[] = [];
  let current: z.core.$ZodType | undefined = schema;
  let index = 0;
  while (current) {
    const def = current._zod.def as unknown as SchemaDefinition;
    if (index === path.length) atEnd.push(current);
    if (def.innerType) {
      current = def.innerType;
    } else if (index === path.length) {
      return atEnd;
    } else {
      const part = path[index++];
      if (def.type === 'object') current = def.shape?.[String(part)];
      else if (def.type === 'array') current = def.element;
      else if (def.type === 'record') current = def.valueType;
      else current = undefined;
    }
  }
  return [];
}
