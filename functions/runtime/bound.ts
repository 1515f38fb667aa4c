/**
 * Output bounding: shrink a JSON value until its serialization fits a byte
 * budget, keeping it well-formed (arrays keep their first items, strings their
 * first characters). Written here rather than taken from a library because the
 * shape it keeps (prefixes, same types) is part of the ToolResult contract.
 */

/** The Step Functions limit on a state's input or output: 256 KiB (AWS docs, "Step Functions service quotas"). */
export const STEP_FUNCTIONS_PAYLOAD_BYTES = 256 * 1024;

/** The Lambda limit on a synchronous invocation's response: 6 MB (AWS docs, "Lambda quotas"). */
export const LAMBDA_SYNC_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** Size of `value` serialized as JSON, in UTF-8 bytes. */
export function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

/** A bounded value and whether anything was removed. */
export interface Bounded<T> {
  readonly value: T | unknown;
  readonly truncated: boolean;
}

const ELLIPSIS = '…';
const MAX_ROUNDS = 200;

/**
 * Shrinks `value` until `JSON.stringify(value)` is at most `maxBytes` UTF-8 bytes.
 * The input is never mutated. Each round cuts the largest array or string so the
 * excess goes away, keeping its prefix; when no such cut is possible (a huge
 * object with many small keys) the value is replaced by `{ preview }`, a prefix
 * of its JSON text.
 *
 * @param maxBytes - budget in bytes; at least 64.
 * @example
 * shrinkToFit({ items: Array(10_000).fill('x') }, 1024).value.items.length; // < 10_000
 */
export function shrinkToFit<T>(value: T, maxBytes: number): Bounded<T> {
  let current: unknown = value;
  let size = jsonByteLength(current);
  if (size <= maxBytes) return { value, truncated: false };
  for (let round = 0; round < MAX_ROUNDS && size > maxBytes; round++) {
    const next = cutLargest(current, size - maxBytes);
    if (next === undefined) break;
    current = next;
    size = jsonByteLength(current);
  }
  if (size > maxBytes) current = preview(value, maxBytes);
  return { value: current, truncated: true };
}

function preview(value: unknown, maxBytes: number): { preview: string } {
  const text = JSON.stringify(value) ?? '';
  // Reserve room for the wrapper and JSON escaping of the prefix (at most 6 bytes per char).
  const chars = Math.max(0, Math.floor((maxBytes - 32) / 6));
  return { preview: text.slice(0, chars) + ELLIPSIS };
}

interface Candidate {
  path: (string | number)[];
  size: number;
}

/** Returns a copy of `root` with its largest array or string cut by at least `excess` bytes, or undefined. */
function cutLargest(root: unknown, excess: number): unknown {
  const largest: Candidate = { path: [], size: 0 };
  measure(root, [], largest);
  if (largest.size === 0) return undefined;
  return replaceAt(root, largest.path, (node) => cut(node, excess));
}

/** Computes the JSON size of `node`, recording the largest array/string seen. */
function measure(node: unknown, path: (string | number)[], largest: Candidate): number {
  let size: number;
  if (typeof node === 'string') {
    size = jsonByteLength(node);
  } else if (Array.isArray(node)) {
    size = 2;
    node.forEach((item, index) => {
      size += measure(item, [...path, index], largest) + 1;
    });
  } else if (node !== null && typeof node === 'object') {
    size = 2;
    for (const [key, child] of Object.entries(node)) {
      size += jsonByteLength(key) + 2 + measure(child, [...path, key], largest);
    }
    return size;
  } else {
    return jsonByteLength(node);
  }
  const reducible = typeof node === 'string' ? node.length > 1 : node.length > 0;
  if (reducible && size > largest.size) {
    largest.path = path;
    largest.size = size;
  }
  return size;
}

function cut(node: unknown, excess: number): unknown {
  if (typeof node === 'string') {
    const keep = Math.max(0, Math.min(node.length - 1, node.length - excess - ELLIPSIS.length));
    return node.slice(0, keep) + ELLIPSIS;
  }
  const items = node as unknown[];
  const sizes = items.map((item) => jsonByteLength(item) + 1);
  const total = sizes.reduce((sum, s) => sum + s, 0);
  let kept = 0;
  let keptSize = 0;
  while (kept < items.length && keptSize + (sizes[kept] ?? 0) <= total - excess)
    keptSize += sizes[kept++] ?? 0;
  return items.slice(0, Math.min(kept, items.length - 1));
}

function replaceAt(node: unknown, path: (string | number)[], replace: (node: unknown) => unknown): unknown {
  if (path.length === 0) return replace(node);
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(node)) {
    const copy = [...node];
    copy[head as number] = replaceAt(node[head as number], rest, replace);
    return copy;
  }
  const record = node as Record<string, unknown>;
  return { ...record, [head]: replaceAt(record[head as string], rest, replace) };
}
