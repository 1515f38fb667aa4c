import type { z } from 'zod/mini';
import { jsonByteLength } from './bound';
import { InvalidArgsError } from './errors';
import { jsonSyntaxMessage } from './json-syntax';
import { STEP_FUNCTIONS_PAYLOAD_BYTES } from './result-limits';
import { type ArgsViolation, MAX_ARGS_DEPTH, violationsOf } from './schema-violations';
import type { ToolArgs, ToolInputSchema, ToolSpec } from './spec';

/**
 * Largest args accepted, in bytes of JSON (UTF-8): 256 KiB, what one Step
 * Functions state can hold ("Step Functions service quotas"), so no args a
 * scenario could pass are refused. Checked before a JSON string is parsed and
 * before an object is validated, logged or redacted.
 */
export const MAX_ARGS_BYTES = STEP_FUNCTIONS_PAYLOAD_BYTES;

/**
 * Most values (object members and array items, at any depth) accepted in args:
 * 10,000. The largest legitimate args hold a few hundred (50 Slack blocks, a
 * list of regions or ids); validating, redacting and logging grow with the count
 * (a `finish` with 100,000 keys took 9 s and wrote a 1.5 MB log line).
 */
export const MAX_ARGS_VALUES = 10_000;

function formatBytes(bytes: number): string {
  return bytes.toLocaleString('en-US');
}

/** What is wrong with the shape of args: nested too deep (under which top-level key), or too many values. */
type ShapeProblem = { readonly tooDeepAt: string } | { readonly tooManyValues: true };

/**
 * One pass over args, without recursion, stopping at the first problem: objects
 * and arrays nested deeper than `maxDepth` (the args object is level 1), or more
 * than `maxValues` members and items in all. Keys are listed with `Object.keys`
 * (the cheapest enumeration: a 100,000-key object costs it tens of ms).
 */
function shapeProblem(value: unknown, maxDepth: number, maxValues: number): ShapeProblem | undefined {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  const owners: string[] = ['(root)'];
  let count = 0;
  while (values.length > 0) {
    const node = values.pop() as object;
    const depth = depths.pop() as number;
    const owner = owners.pop() as string;
    if (depth > maxDepth) return { tooDeepAt: owner };
    const keys = Array.isArray(node) ? undefined : Object.keys(node);
    const size = keys ? keys.length : (node as unknown[]).length;
    count += size;
    if (count > maxValues) return { tooManyValues: true };
    for (let i = 0; i < size; i++) {
      const key = keys ? (keys[i] as string) : undefined;
      const child = key === undefined ? (node as unknown[])[i] : (node as Record<string, unknown>)[key];
      if (child === null || typeof child !== 'object') continue;
      values.push(child);
      depths.push(depth + 1);
      owners.push(depth === 1 ? (key ?? `[${i}]`) : owner);
    }
  }
  return undefined;
}

/**
 * Normalizes raw args: an object is used as is; a JSON string is parsed; `""`,
 * a whitespace-only string, `null` and `undefined` mean "no arguments" (`{}`).
 *
 * @throws InvalidArgsError when a string is not JSON or over {@link MAX_ARGS_BYTES}.
 */
export function normalizeRawArgs(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'string') return raw;
  // Measured before parsing: JSON.parse of megabytes is the cost the cap avoids.
  const bytes = raw.length > MAX_ARGS_BYTES / 3 ? Buffer.byteLength(raw, 'utf8') : raw.length;
  if (bytes > MAX_ARGS_BYTES) {
    throw new InvalidArgsError(
      `args is ${formatBytes(bytes)} bytes of JSON; at most ${formatBytes(MAX_ARGS_BYTES)} are accepted`,
    );
  }
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed === null ? {} : parsed;
  } catch (err) {
    throw new InvalidArgsError(
      `args is a string but not JSON (${jsonSyntaxMessage(err)}); send a JSON object`,
    );
  }
}

/**
 * Parses and validates a tool's args against its schema, before any remote call.
 * Coercion is strict: `"50"` is not a number and `null` is not `0`; the error says
 * what was received and what is accepted so the caller can fix the call.
 * The input is never mutated; defaults are applied to a copy.
 *
 * @throws InvalidArgsError (`invalid_args`) listing every violation with its path
 *   (`details.violations`), or for args nested deeper than `MAX_ARGS_DEPTH`, holding
 *   more than {@link MAX_ARGS_VALUES} values or over {@link MAX_ARGS_BYTES}.
 * @example
 * parseToolArgs(ec2InventorySpec, '{"regions":["eu-west-1"]}'); // { regions: ['eu-west-1'], topN: 20 }
 */
export function parseToolArgs<S extends ToolInputSchema>(spec: ToolSpec<S>, raw: unknown): ToolArgs<S> {
  const candidate = normalizeRawArgs(raw);
  if (candidate === null || typeof candidate !== 'object' || Array.isArray(candidate)) {
    throw new InvalidArgsError(
      `Arguments for ${spec.name} must be a JSON object, got ${Array.isArray(candidate) ? 'an array' : typeof candidate}`,
    );
  }
  // Before zod, and before anything logs or redacts the args: each walks them recursively.
  const refused = argsShapeError(spec.name, candidate);
  if (refused) throw refused;
  const present = withoutNullOptionals(spec.inputSchema, candidate as Record<string, unknown>);
  const parsed = spec.inputSchema.safeParse(present);
  if (!parsed.success)
    throw invalidArguments(
      spec.name,
      violationsOf(parsed.error, present, spec.inputSchema, { sayReceived: true }),
    );
  return parsed.data;
}

/**
 * `args` without the top-level members sent as `null` whose property is optional
 * (or has a default) and does not accept `null`: MCP clients and models send
 * `"limit": null` for "not given", and the schema they were shown says the
 * property may be left out, so it is read as left out (its default applies). A
 * property that accepts `null` keeps it; a required property sent as `null` stays
 * and is refused (`invalid_args`). The input is not mutated.
 */
export function withoutNullOptionals(
  schema: ToolInputSchema,
  args: Record<string, unknown>,
): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(args)) {
    if (args[key] !== null || !Object.hasOwn(schema.shape, key)) continue;
    const property = schema.shape[key] as z.ZodMiniType;
    if (property.safeParse(null).success || !property.safeParse(undefined).success) continue;
    copy ??= { ...args };
    delete copy[key];
  }
  return copy ?? args;
}

/**
 * Why args are refused before any recursive work (validation, redaction, logging,
 * an entry point's canonical call key), or undefined: nested deeper than
 * `MAX_ARGS_DEPTH`, more than {@link MAX_ARGS_VALUES} values, or over
 * {@link MAX_ARGS_BYTES} of JSON. One iterative pass: a 5,000-level nesting is
 * refused, never a stack overflow. Entry points call it on what they decoded.
 *
 * @example argsShapeError('slack_post_message', deeplyNested)?.code // 'invalid_args'
 */
export function argsShapeError(tool: string, candidate: unknown): InvalidArgsError | undefined {
  if (candidate === null || typeof candidate !== 'object') return undefined;
  const problem = shapeProblem(candidate, MAX_ARGS_DEPTH, MAX_ARGS_VALUES);
  if (problem && 'tooDeepAt' in problem) {
    return invalidArguments(tool, [
      {
        path: problem.tooDeepAt,
        message: `Too deeply nested: objects and arrays may nest at most ${MAX_ARGS_DEPTH} levels deep`,
      },
    ]);
  }
  if (problem) {
    return new InvalidArgsError(
      `Arguments for ${tool} hold more than ${formatBytes(MAX_ARGS_VALUES)} values (object members and array items); send fewer`,
    );
  }
  const bytes = jsonByteLength(candidate);
  if (bytes > MAX_ARGS_BYTES) {
    return new InvalidArgsError(
      `Arguments for ${tool} are ${formatBytes(bytes)} bytes of JSON; at most ${formatBytes(MAX_ARGS_BYTES)} are accepted`,
    );
  }
  return undefined;
}

function invalidArguments(tool: string, violations: ArgsViolation[]): InvalidArgsError {
  return new InvalidArgsError(
    `Invalid arguments for ${tool}: ${violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
    { details: { violations } },
  );
}
