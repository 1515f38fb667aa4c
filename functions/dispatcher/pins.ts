/**
 * Arguments a scenario level pins (docs/scenarios.md, "Pinned arguments"),
 * enforced by the dispatcher on every call of the level before the arguments
 * are validated: which arguments are pinned comes from the dispatcher's own
 * bundled configuration ({@link PinnedArgs}), their values from the envelope's
 * `pins`, which the state machine sets from the engine's turn state (never from
 * the model's toolUse). A call that sets a pinned argument otherwise is refused
 * with `tool_not_allowed` naming the argument; a fixed argument left out gets
 * its pinned value.
 */
import { isDeepStrictEqual } from 'node:util';
import { normalizeRawArgs } from '../runtime/args';
import { PlatformError } from '../runtime/errors';

/** `{ scenario: { level: { tool: [pinned argument…] } } }`, computed at synth from the scenario files. */
export type PinnedArgs = Readonly<
  Record<string, Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>>
>;

/**
 * One pinned argument's value for a run, as the engine resolved it: fixed, one
 * of a set (for a list argument: each item), or unavailable (an earlier call it
 * is taken from failed), which refuses every call.
 */
export type ResolvedPin =
  | { readonly value: unknown }
  | { readonly one_of: readonly unknown[] }
  | { readonly unavailable: string };

/** A level's resolved pins: `{ tool: { argument: pin } }` (`$.turn.pins`, the envelope's `pins`). */
export type ResolvedPins = Readonly<Record<string, Readonly<Record<string, ResolvedPin>>>>;

/** A call that sets a pinned argument otherwise than its pin allows. */
export class PinnedArgumentError extends PlatformError {
  override readonly name = 'PinnedArgumentError';
  constructor(tool: string, level: string, argument: string, why: string) {
    super('tool_not_allowed', `${tool}: argument "${argument}" is pinned by level "${level}": ${why}`, {
      details: { pinned: argument },
    });
  }
}

const own = <T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined =>
  record && Object.hasOwn(record, key) ? record[key] : undefined;

/** Values listed in a refusal: the first few. */
function listed(values: readonly unknown[]): string {
  const shown = values.slice(0, 10).map((value) => JSON.stringify(value));
  return `${shown.join(', ')}${values.length > 10 ? `, … (${values.length} in all)` : ''}`;
}

/**
 * The call's arguments with its level's pins applied, or the refusal.
 *
 * @param envelope - the call: its scenario, level, tool, args (object or JSON string) and `pins`.
 * @returns the args unchanged when the level pins none of the tool's arguments.
 * @throws PinnedArgumentError (`tool_not_allowed`) naming the argument: set to another value than
 *   its fixed pin, outside its allowed values, pinned to a value this run does not have, or the
 *   envelope carries no pinned value for it (only the scenario's state machine sets them).
 */
export function applyPins(
  pinned: PinnedArgs | undefined,
  envelope: {
    readonly scenario?: string;
    readonly level?: string;
    readonly tool: string;
    readonly args?: unknown;
    readonly pins?: unknown;
  },
): unknown {
  const { scenario, level, tool } = envelope;
  if (scenario === undefined || level === undefined) return envelope.args;
  const names = own(own(own(pinned, scenario), level), tool);
  if (!names || names.length === 0) return envelope.args;
  const raw = normalizeRawArgs(envelope.args);
  // Not an object: the argument check that follows refuses it with what is accepted.
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return envelope.args;
  const args: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const pins = own(envelope.pins as ResolvedPins | undefined, tool);
  for (const name of names) {
    const pin = own(pins, name);
    const refuse = (why: string) => new PinnedArgumentError(tool, level, name, why);
    if (!pin || typeof pin !== 'object')
      throw refuse('the call carries no pinned value for it (only the scenario’s own run sets them)');
    const given = Object.hasOwn(args, name) ? args[name] : undefined;
    if ('unavailable' in pin)
      throw refuse(`this run has no value for it (${pin.unavailable}), so the tool cannot be called`);
    if ('value' in pin) {
      if (given !== undefined && !isDeepStrictEqual(given, pin.value))
        throw refuse('the scenario sets it: leave it out of the call');
      args[name] = pin.value;
      continue;
    }
    if (given === undefined) continue;
    const allowed = Array.isArray(pin.one_of) ? pin.one_of : [];
    const items = Array.isArray(given) ? given : [given];
    const outside = items.filter((item) => !allowed.some((value) => isDeepStrictEqual(value, item)));
    if (outside.length > 0) {
      throw refuse(
        allowed.length === 0
          ? 'no value is allowed in this run (the values it is taken from are absent)'
          : `${listed(outside)} ${outside.length === 1 ? 'is' : 'are'} not among the allowed values (${listed(allowed)})`,
      );
    }
  }
  return args;
}
