/**
 * `pin:` of agent levels, checked at synth (docs/scenarios.md, "Pinned
 * arguments"): each pin names a tool the level offers and a real argument of
 * it, a fixed literal is a value the argument accepts, every reference names
 * what a run has; a write tool offered without pins on its destination
 * arguments is a warning. Also the dispatcher's {@link PinnedArgs} table.
 */
import type { PinnedArgs } from '../../functions/dispatcher/pins';
import type { LevelPinSpecs, PinSpec, ScenarioDefinition } from '../../functions/engine/definition';
import { type TemplateRef, templateRefs } from '../../functions/engine/template';
import type { ToolCatalog } from '../../functions/runtime/catalog';
import { toJsonSchema } from '../../functions/runtime/spec';
import type { Scenario } from './model';
import { resolveRef } from './references';

/** A path segment of a value path: a name, an index, or `*` (every item of a list). */
const VALUE_SEGMENT = /^(?:[A-Za-z_][A-Za-z0-9_-]*|\d+|\*)$/;

/**
 * The problem with a reference in a pin, or undefined. Besides what call args
 * may reference, a pin may name earlier results' values
 * (`levels.<plan>.results.<n>.value.<path>`) and an agent's data
 * (`levels.<agent>.data.<path>`): an absent value fails closed at run time.
 */
export function pinRefProblem(
  ref: TemplateRef,
  scenario: Pick<ScenarioDefinition, 'name' | 'inputs' | 'levels'>,
  levelIndex: number,
): string | undefined {
  const [head, name, field, ...rest] = ref.path;
  const earlier = scenario.levels.slice(0, levelIndex).find((level) => level.name === name);
  if (head === 'levels' && earlier) {
    const valuePath =
      earlier.kind === 'plan' && field === 'results' && rest[1] === 'value'
        ? rest.slice(2)
        : earlier.kind === 'agent' && field === 'data'
          ? rest
          : undefined;
    if (valuePath) {
      if (earlier.kind === 'plan') {
        const n = Number(rest[0]);
        if (!Number.isInteger(n) || n < 0 || n >= earlier.calls.length)
          return `{{${ref.expression}}}: level ${name} has calls 0 to ${earlier.calls.length - 1}`;
      }
      const bad = valuePath.find((segment) => !VALUE_SEGMENT.test(segment));
      return bad === undefined
        ? undefined
        : `{{${ref.expression}}}: "${bad}" is not a field name, an index or * (every item of a list)`;
    }
  }
  // A level that is not an earlier one is reported as such, whatever the value path after it
  // (a `*` segment would otherwise read as a malformed path).
  const scoped = head === 'levels' && !earlier && name !== undefined ? { ...ref, path: [head, name] } : ref;
  const resolution = resolveRef(scoped, { scenario, levelIndex, use: 'args' });
  return 'problem' in resolution ? resolution.problem : undefined;
}

/** A pin as written, normalized: `{ value }` or `{ one_of }`; or the problem with its form. */
function pinForm(written: unknown): PinSpec | string {
  if (written === null || typeof written !== 'object' || Array.isArray(written)) return { value: written };
  const keys = Object.keys(written);
  if (keys.length === 1 && keys[0] === 'value') return { value: (written as { value: unknown }).value };
  if (keys.length === 1 && keys[0] === 'one_of') {
    const oneOf = (written as { one_of: unknown }).one_of;
    if (Array.isArray(oneOf) || typeof oneOf === 'string') return { one_of: oneOf };
    return 'one_of takes a list of values or one {{reference}} that gives a list';
  }
  return `an object pin is { value: <fixed value> } or { one_of: <list or {{reference}}> }, not { ${keys.join(', ')} }`;
}

/** What {@link checkPins} found. */
export interface PinCheck {
  readonly pins?: LevelPinSpecs;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

/** Checks an agent level's `pin:` and its write tools (`at`: the level's place for messages). */
export function checkPins(
  level: {
    readonly intra_tools: readonly string[];
    readonly pin?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  },
  levelIndex: number,
  scenario: Pick<ScenarioDefinition, 'name' | 'inputs' | 'levels'>,
  catalog: ToolCatalog,
  at: string,
): PinCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  const pins: Record<string, Record<string, PinSpec>> = {};
  for (const [tool, args] of Object.entries(level.pin ?? {})) {
    const place = `${at}.pin.${tool}`;
    if (!catalog.has(tool)) {
      problems.push(`${place}: Unknown tool "${tool}". Registered tools: ${catalog.names().join(', ')}`);
      continue;
    }
    if (!level.intra_tools.includes(tool) && !catalog.isFileTool(tool)) {
      problems.push(
        `${place}: the level does not offer ${tool} (its intra_tools: ${level.intra_tools.join(', ') || 'none'})`,
      );
      continue;
    }
    const spec = catalog.get(tool);
    const properties = (toJsonSchema(spec.inputSchema).properties ?? {}) as Record<
      string,
      { type?: unknown }
    >;
    const shape = (
      spec.inputSchema as unknown as {
        def: { shape: Record<string, { safeParse(v: unknown): { success: boolean } }> };
      }
    ).def.shape;
    pins[tool] = {};
    for (const [arg, written] of Object.entries(args)) {
      const where = `${place}.${arg}`;
      if (!Object.hasOwn(properties, arg)) {
        problems.push(
          `${where}: ${tool} has no argument "${arg}". Its arguments: ${Object.keys(properties).join(', ')}`,
        );
        continue;
      }
      const pin = pinForm(written);
      if (typeof pin === 'string') {
        problems.push(`${where}: ${pin}`);
        continue;
      }
      const literal = 'value' in pin ? pin.value : pin.one_of;
      const refs = typeof literal === 'string' ? templateRefs(literal) : [];
      for (const ref of refs) {
        const problem = pinRefProblem(ref, scenario, levelIndex);
        if (problem) problems.push(`${where}: ${problem}`);
      }
      if (
        'one_of' in pin &&
        typeof pin.one_of === 'string' &&
        (refs.length !== 1 || pin.one_of.trim() !== `{{${refs[0]?.expression}}}`)
      )
        problems.push(
          `${where}.one_of: a string one_of is exactly one {{reference}} that gives the allowed values`,
        );
      if (JSON.stringify(literal ?? null).includes('{{') && typeof literal !== 'string')
        problems.push(
          `${where}: references inside lists or objects are not supported: reference a list whole`,
        );
      // Literals are checked against the argument's own schema, as call args are.
      const candidates = refs.length > 0 ? [] : 'value' in pin ? [pin.value] : (pin.one_of as unknown[]);
      const itemSchema = properties[arg]?.type === 'array' && 'one_of' in pin ? undefined : shape[arg];
      for (const candidate of candidates) {
        if (itemSchema && !itemSchema.safeParse(candidate).success)
          problems.push(`${where}: ${JSON.stringify(candidate)} is not a value ${tool}'s ${arg} accepts`);
      }
      pins[tool][arg] = pin;
    }
  }
  for (const tool of level.intra_tools) {
    if (!catalog.has(tool) || catalog.isFileTool(tool)) continue;
    const spec = catalog.get(tool);
    // Writes into the run's own workspace only (file tools, a tool keeping its derived data there): nowhere to redirect.
    if (spec.sideEffects !== 'write' || (spec.workspaceAccess && !spec.destinationArgs)) continue;
    const destinations = spec.destinationArgs ?? [];
    const pinned = Object.keys(pins[tool] ?? {});
    const unpinned = destinations.filter((arg) => !pinned.includes(arg));
    if (destinations.length === 0 && pinned.length === 0) {
      warnings.push(
        `${at}: ${tool} writes outside the run and the model chooses all its arguments (no pin:): a model obeying text injected into what it reads (a tool result, a file, a message) can make it write anywhere; pin where it writes`,
      );
    } else if (unpinned.length > 0) {
      warnings.push(
        `${at}: ${tool} writes outside the run and its destination ${unpinned.length === 1 ? 'argument' : 'arguments'} ${unpinned.join(', ')} ${unpinned.length === 1 ? 'is' : 'are'} not pinned: a model obeying text injected into what it reads (a tool result, a file, a message) can redirect the write; pin ${unpinned.map((arg) => `${tool}.${arg}`).join(', ')} (pin: { ${tool}: { ${unpinned[0]}: … } })`,
      );
    }
  }
  return { ...(Object.keys(pins).length > 0 ? { pins } : {}), problems, warnings };
}

/** `{ scenario: { level: { tool: [pinned argument…] } } }` for the dispatcher (functions/dispatcher/pins.ts). */
export function levelPins(scenarios: readonly Scenario[]): PinnedArgs {
  return Object.fromEntries(
    scenarios.flatMap((scenario) => {
      const levels = scenario.levels.flatMap((level) =>
        level.kind === 'agent' && level.pin
          ? [
              [
                level.name,
                Object.fromEntries(
                  Object.entries(level.pin).map(([tool, args]) => [tool, Object.keys(args)]),
                ),
              ],
            ]
          : [],
      );
      return levels.length > 0 ? [[scenario.name, Object.fromEntries(levels)]] : [];
    }),
  );
}
