/**
 * Output bounding: shrink a JSON value until its serialization fits a byte
 * budget, keeping it well-formed (arrays keep their first items, strings their
 * first characters, objects every key). Written here rather than taken from a
 * library because the shape it keeps (prefixes, same types) is part of the
 * ToolResult contract.
 */

import type { ToolResult } from './result';
import { RESULT_ENVELOPE_RESERVE_BYTES } from './result-limits';
import { wholeCharCut } from './text';

/** JSON text is free of raw control characters (they are escaped), so printable ASCII is all of ASCII here. */
const ASCII = /^[\x20-\x7e]*$/;

/** Size of `value` serialized as JSON, in UTF-8 bytes. */
export function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value);
  if (text === undefined) return 0;
  // Most JSON is ASCII, where bytes are characters: much cheaper than encoding, per string measured.
  return ASCII.test(text) ? text.length : Buffer.byteLength(text, 'utf8');
}

/** A bounded value and whether anything was removed. */
export interface Bounded<T> {
  readonly value: T | unknown;
  readonly truncated: boolean;
}

const ELLIPSIS = '…';

/**
 * Depth from which an array or object that must be cut becomes a prefix of its
 * JSON text (a string). AWS and Slack responses nest a few levels; the cap keeps
 * the walk's recursion far from the stack limit that `JSON.stringify` itself
 * reaches at a few thousand levels.
 */
const MAX_CUT_DEPTH = 100;

/**
 * Shrinks `value` until `JSON.stringify(value)` is at most `maxBytes` UTF-8 bytes.
 * The input is never mutated, and a value that already fits is returned as is
 * (same reference). Otherwise, from the top: an object keeps every key and shares
 * its budget so small members stay whole and the largest are cut to a common
 * size; an array keeps its first items that fit; a string keeps its first
 * characters followed by `…`. When even that cannot fit (a huge object of many
 * small keys) the value is replaced by `{ preview }`, a prefix of its JSON text.
 *
 * @param maxBytes - budget in bytes; at least 64.
 * @throws whatever `JSON.stringify(value)` throws (a cycle, a BigInt).
 * @example
 * shrinkToFit({ items: Array(10_000).fill('x') }, 1024).value.items.length; // < 10_000
 */
export function shrinkToFit<T>(value: T, maxBytes: number): Bounded<T> {
  if (jsonByteLength(value) <= maxBytes) return { value, truncated: false };
  const sizes = new Map<object, Size>();
  if (sizeOf(value, 0, sizes).min <= maxBytes) {
    const fitted = fitNode(value, maxBytes, 0, sizes);
    if (fitted !== DROPPED && jsonByteLength(fitted) <= maxBytes) return { value: fitted, truncated: true };
  }
  return { value: preview(value, maxBytes), truncated: true };
}

function preview(value: unknown, maxBytes: number): { preview: string } {
  const text = JSON.stringify(value) ?? '';
  // Reserve room for the wrapper and JSON escaping of the prefix (at most 6 bytes per char).
  const chars = Math.max(0, Math.floor((maxBytes - 32) / 6));
  return { preview: text.slice(0, chars) + ELLIPSIS };
}

/** JSON size of a node in bytes as it is (`full`) and once cut as far as it can be (`min`). */
interface Size {
  readonly full: number;
  readonly min: number;
}

/** Marks a node that cannot fit its budget at all. */
const DROPPED = Symbol('dropped');

/** Bytes of `"…"`: the smallest a cut string can be. */
const CUT_STRING_BYTES = jsonByteLength(ELLIPSIS);

/** Values `JSON.stringify` leaves out of objects and writes as `null` in arrays. */
function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** Objects serialized through `toJSON` (Date…) are kept whole or dropped. */
function hasToJson(node: object): boolean {
  return typeof (node as { toJSON?: unknown }).toJSON === 'function';
}

/** Members of an object as `JSON.stringify` writes them. */
function membersOf(node: object): [string, unknown][] {
  const members: [string, unknown][] = [];
  for (const key of Object.keys(node)) {
    const child = (node as Record<string, unknown>)[key];
    if (!isSkipped(child)) members.push([key, child]);
  }
  return members;
}

/** Sizes of `node`, memoized per object so each node is measured once. */
function sizeOf(node: unknown, depth: number, sizes: Map<object, Size>): Size {
  if (typeof node === 'string') {
    const full = jsonByteLength(node);
    return { full, min: Math.min(full, CUT_STRING_BYTES) };
  }
  if (node === null || typeof node !== 'object') {
    const full = jsonByteLength(node);
    return { full, min: full };
  }
  const known = sizes.get(node);
  if (known) return known;
  let size: Size;
  if (hasToJson(node)) {
    const full = jsonByteLength(node);
    size = { full, min: full };
  } else if (depth >= MAX_CUT_DEPTH) {
    const full = jsonByteLength(node);
    size = { full, min: Math.min(full, CUT_STRING_BYTES) };
  } else if (Array.isArray(node)) {
    let full = 2 + Math.max(0, node.length - 1);
    for (const item of node) full += isSkipped(item) ? 4 : sizeOf(item, depth + 1, sizes).full;
    size = { full, min: 2 };
  } else {
    const members = membersOf(node);
    let full = 2 + Math.max(0, members.length - 1);
    let min = full;
    for (const [key, child] of members) {
      const childSize = sizeOf(child, depth + 1, sizes);
      const keyBytes = jsonByteLength(key) + 1;
      full += keyBytes + childSize.full;
      min += keyBytes + childSize.min;
    }
    size = { full, min };
  }
  sizes.set(node, size);
  return size;
}

/** A copy of `node` whose JSON is at most `budget` bytes, or {@link DROPPED}. */
function fitNode(node: unknown, budget: number, depth: number, sizes: Map<object, Size>): unknown {
  const size = sizeOf(node, depth, sizes);
  if (size.full <= budget) return node;
  if (size.min > budget) return DROPPED;
  if (typeof node === 'string') return cutString(node, budget);
  if (depth >= MAX_CUT_DEPTH) return cutString(JSON.stringify(node), budget);
  if (Array.isArray(node)) return fitArray(node, budget, depth, sizes);
  return fitObject(node as object, budget, depth, sizes);
}

/** The longest prefix of `text` that, followed by `…`, fits `budget` bytes of JSON. */
function cutString(text: string, budget: number): string {
  const fits = (chars: number) => jsonByteLength(text.slice(0, chars) + ELLIPSIS) <= budget;
  // Each character takes at least one byte, so no more than `budget` of them can fit.
  let low = 0;
  let high = Math.min(text.length, budget);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return text.slice(0, wholeCharCut(text, low)) + ELLIPSIS;
}

/** The first items that fit; the first item itself is cut when nothing else would be kept. */
function fitArray(
  items: readonly unknown[],
  budget: number,
  depth: number,
  sizes: Map<object, Size>,
): unknown[] {
  const kept: unknown[] = [];
  let used = 2;
  for (const item of items) {
    const separator = kept.length > 0 ? 1 : 0;
    const itemBytes = isSkipped(item) ? 4 : sizeOf(item, depth + 1, sizes).full;
    if (used + separator + itemBytes <= budget) {
      kept.push(item);
      used += separator + itemBytes;
      continue;
    }
    if (kept.length === 0) {
      const cut = fitNode(item, budget - used, depth + 1, sizes);
      if (cut !== DROPPED) kept.push(cut);
    }
    break;
  }
  return kept;
}

/**
 * Every member, each within its share of the budget: each first gets its smallest
 * size, then what remains is shared out smallest member first, so members under
 * an even share stay whole and the largest are cut to the same size.
 */
function fitObject(
  node: object,
  budget: number,
  depth: number,
  sizes: Map<object, Size>,
): Record<string, unknown> {
  const members = membersOf(node).map(([key, child]) => ({
    key,
    child,
    size: sizeOf(child, depth + 1, sizes),
  }));
  const own = sizeOf(node, depth, sizes);
  let spare = budget - own.min;
  const shares = new Map<string, number>();
  const bySlack = [...members].sort((a, b) => a.size.full - a.size.min - (b.size.full - b.size.min));
  bySlack.forEach((member, index) => {
    const extra = Math.min(member.size.full - member.size.min, Math.floor(spare / (bySlack.length - index)));
    shares.set(member.key, member.size.min + extra);
    spare -= extra;
  });
  const out: Record<string, unknown> = {};
  for (const { key, child } of members) {
    const cut = fitNode(child, shares.get(key) ?? 0, depth + 1, sizes);
    if (cut !== DROPPED) out[key] = cut;
  }
  return out;
}

/**
 * Bounds a result so its JSON is at most `maxBytes`: a result that already fits
 * is returned as is (same reference); otherwise a success's `value` (or a
 * failure's `error.details`) is shrunk to `maxBytes` less
 * {@link RESULT_ENVELOPE_RESERVE_BYTES} and the result marked `truncated` and
 * `shrunk` (so a reader tells it from a tool's own `truncated`). The one
 * shrinking mechanism: a tool's function bounds its result with it, and the
 * post-call work bounds what it does not claim-check (no workspace, a failed
 * write). "Fits" is the whole result's JSON against `maxBytes`, the same test the
 * post-call work uses to choose between keeping a result inline and
 * claim-checking it: a result at or under the inline budget is never shrunk
 * (it used to be when its value alone passed the budget less the reserve, so a
 * result of 6-8 KiB was neither claim-checked nor kept whole).
 */
export function boundResult(result: ToolResult, maxBytes: number): ToolResult {
  if (jsonByteLength(result) <= maxBytes) return result;
  const budget = Math.max(1024, maxBytes - RESULT_ENVELOPE_RESERVE_BYTES);
  if (result.ok) {
    const bounded = shrinkToFit(result.value, budget);
    return bounded.truncated ? { ...result, value: bounded.value, truncated: true, shrunk: true } : result;
  }
  if (!result.error.details) return result;
  const bounded = shrinkToFit(result.error.details, budget);
  return bounded.truncated
    ? { ...result, error: { ...result.error, details: bounded.value as Record<string, unknown> } }
    : result;
}
