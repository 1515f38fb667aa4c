import type * as z from 'zod/mini';
import { InvalidArgsError } from './errors';
import type { ToolArgs, ToolInputSchema, ToolSpec } from './spec';
import './zod-locale';

/** One schema violation: where (`regions[0]`, `(root)`) and what is accepted. */
export interface ArgsViolation {
  readonly path: string;
  readonly message: string;
}

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

function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out || '(root)';
}

/** Every violation zod reports, with its path. */
export function violationsOf(error: z.core.$ZodError): ArgsViolation[] {
  return error.issues.map((issue) => ({ path: pathOf(issue.path), message: issue.message }));
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
  const parsed = spec.inputSchema.safeParse(candidate);
  if (!parsed.success) {
    const violations = violationsOf(parsed.error);
    throw new InvalidArgsError(
      `Invalid arguments for ${spec.name}: ${violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
      { details: { violations } },
    );
  }
  return parsed.data;
}
