import { InvalidArgsError } from './errors';
import { type ArgsViolation, MAX_ARGS_DEPTH, tooDeepAt, violationsOf } from './schema-violations';
import type { ToolArgs, ToolInputSchema, ToolSpec } from './spec';

/**
 * Normalizes raw args: an object is used as is; a JSON string is parsed; `""`,
 * a whitespace-only string, `null` and `undefined` mean "no arguments" (`{}`).
 *
 * @throws InvalidArgsError when a string is not JSON or the args are not a JSON object.
 */
export function normalizeRawArgs(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'string') return raw;
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed === null ? {} : parsed;
  } catch (err) {
    throw new InvalidArgsError(
      `args is a string but not JSON (${(err as Error).message}); send a JSON object`,
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
 *   (`details.violations`).
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
  const tooDeep = tooDeepAt(candidate, MAX_ARGS_DEPTH);
  if (tooDeep !== undefined) {
    throw invalidArguments(spec.name, [
      {
        path: tooDeep,
        message: `Too deeply nested: objects and arrays may nest at most ${MAX_ARGS_DEPTH} levels deep`,
      },
    ]);
  }
  const parsed = spec.inputSchema.safeParse(candidate);
  if (!parsed.success)
    throw invalidArguments(spec.name, violationsOf(parsed.error, candidate, spec.inputSchema));
  return parsed.data;
}

function invalidArguments(tool: string, violations: ArgsViolation[]): InvalidArgsError {
  return new InvalidArgsError(
    `Invalid arguments for ${tool}: ${violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
    { details: { violations } },
  );
}
