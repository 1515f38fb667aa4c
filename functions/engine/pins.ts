/**
 * Resolves an agent level's pins (docs/scenarios.md, "Pinned arguments") when
 * the level starts: references to the run's input and identity, earlier
 * levels' records, and earlier results' values (read whole from the run's
 * workspace, claim-checked or not). The resolved pins ride in the turn state
 * (`$.turn.pins`) to every call's envelope, where the dispatcher enforces them
 * (functions/dispatcher/pins.ts). A value that is absent (the earlier call
 * failed, the model did not finish) fails closed.
 */
import type { ResolvedPin, ResolvedPins } from '../dispatcher/pins';
import { jsonByteLength } from '../runtime/bound';
import type { ToolResult } from '../runtime/result';
import type { Workspace } from '../runtime/workspace';
import { fullValue } from './actions/plan-done';
import type { AgentLevel, PinSpec } from './definition';
import { PINS_MAX_BYTES } from './limits';
import type { LevelRecord } from './records';
import { parseTemplate, soleRef, type TemplateRef } from './template';
import { ENGINE_PATHS, readJson } from './workspaces';

/** What pins are resolved from. */
export interface PinContext {
  readonly input: Readonly<Record<string, unknown>>;
  readonly levels: Readonly<Record<string, LevelRecord>>;
  readonly run: { readonly id: string; readonly tenant: string; readonly scenario: string };
  readonly workspace: Workspace;
}

/** Marks a value a reference could not find. */
const ABSENT = Symbol('absent');
type Found = unknown | typeof ABSENT;

/** Follows `path` into `value`; a `*` segment takes every item of a list (flattened). */
export function walk(value: unknown, path: readonly string[]): Found {
  if (path.length === 0) return value;
  const [segment, ...rest] = path as [string, ...string[]];
  if (segment === '*') {
    if (!Array.isArray(value)) return ABSENT;
    return value.flatMap((item) => {
      const found = walk(item, rest);
      if (found === ABSENT) return [];
      return rest.includes('*') && Array.isArray(found) ? found : [found];
    });
  }
  if (value === null || typeof value !== 'object') return ABSENT;
  if (Array.isArray(value)) {
    const index = Number(segment);
    return Number.isInteger(index) && index >= 0 && index < value.length ? walk(value[index], rest) : ABSENT;
  }
  return Object.hasOwn(value, segment) ? walk((value as Record<string, unknown>)[segment], rest) : ABSENT;
}

/** The value a reference names in this run, or ABSENT. */
async function lookUp(ref: TemplateRef, context: PinContext): Promise<Found> {
  const [head, name, field, ...rest] = ref.path;
  if (head === 'input' && name !== undefined)
    return Object.hasOwn(context.input, name) ? context.input[name] : ABSENT;
  if (head === 'run') {
    if (name === 'id') return context.run.id;
    if (name === 'tenant') return context.run.tenant;
    if (name === 'scenario') return context.run.scenario;
    return ABSENT;
  }
  const record =
    head === 'levels' && name !== undefined && Object.hasOwn(context.levels, name)
      ? context.levels[name]
      : undefined;
  if (!record || name === undefined) return ABSENT;
  if ((field === 'summary' || field === 'outcome') && rest.length === 0) return record[field];
  if (record.kind === 'agent' && field === 'data') {
    if (record.outcome !== 'finished') return ABSENT;
    try {
      const finish = await readJson<{ data?: unknown }>(context.workspace, ENGINE_PATHS.finish(name));
      return walk(finish.data ?? {}, rest);
    } catch {
      return walk(record.data, rest);
    }
  }
  if (record.kind === 'plan' && field === 'results') {
    const [position, key, ...deeper] = rest;
    const call = record.calls[Number(position)];
    if (!call || key === undefined) return ABSENT;
    if (key !== 'value') return walk(call, [key, ...deeper]);
    if (!call.ok) return ABSENT;
    try {
      const stored = await readJson<ToolResult>(
        context.workspace,
        ENGINE_PATHS.callResult(name, Number(position), call.tool),
      );
      return stored.ok ? walk(await fullValue(context.workspace, stored), deeper) : ABSENT;
    } catch {
      return ABSENT;
    }
  }
  return ABSENT;
}

/** A pin's fixed value: a sole reference keeps its type, text with references is formatted. */
async function fixedValue(value: unknown, context: PinContext): Promise<ResolvedPin> {
  if (typeof value !== 'string') return { value };
  const sole = soleRef(value);
  if (sole) {
    const found = await lookUp(sole, context);
    return found === ABSENT
      ? { unavailable: `{{${sole.expression}}} is absent in this run` }
      : { value: found };
  }
  let text = '';
  for (const part of parseTemplate(value)) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const found = await lookUp(part, context);
    if (found === ABSENT) return { unavailable: `{{${part.expression}}} is absent in this run` };
    text += typeof found === 'string' ? found : JSON.stringify(found);
  }
  return { value: text };
}

/** A restricted pin's values: a list as written, or what one reference gives (a list, or one value). */
async function allowedValues(oneOf: unknown, context: PinContext): Promise<ResolvedPin> {
  if (Array.isArray(oneOf)) return { one_of: oneOf };
  const sole = typeof oneOf === 'string' ? soleRef(oneOf) : undefined;
  if (!sole) return { one_of: [oneOf] };
  const found = await lookUp(sole, context);
  if (found === ABSENT) return { one_of: [] };
  return {
    one_of: Array.isArray(found) ? [...new Set(found.filter((item) => item !== undefined))] : [found],
  };
}

/** One pin for this run. */
export function resolvePin(pin: PinSpec, context: PinContext): Promise<ResolvedPin> {
  return 'one_of' in pin ? allowedValues(pin.one_of, context) : fixedValue(pin.value, context);
}

/**
 * The level's pins for this run, `{}` without any, within {@link PINS_MAX_BYTES}:
 * the largest pins past it are made unavailable (every call to their tool refused).
 */
export async function resolvePins(level: AgentLevel, context: PinContext): Promise<ResolvedPins> {
  const out: Record<string, Record<string, ResolvedPin>> = {};
  const sizes: { tool: string; arg: string; bytes: number }[] = [];
  for (const [tool, args] of Object.entries(level.pin ?? {})) {
    out[tool] = {};
    for (const [arg, pin] of Object.entries(args)) {
      const resolved = await resolvePin(pin, context);
      out[tool][arg] = resolved;
      sizes.push({ tool, arg, bytes: jsonByteLength(resolved) });
    }
  }
  sizes.sort((a, b) => b.bytes - a.bytes);
  for (const { tool, arg, bytes } of sizes) {
    if (jsonByteLength(out) <= PINS_MAX_BYTES) break;
    const pins = out[tool] as Record<string, ResolvedPin>;
    pins[arg] = {
      unavailable: `its values are ${bytes} bytes of JSON, more than the ${PINS_MAX_BYTES} a step's pins may hold`,
    };
  }
  return out;
}
