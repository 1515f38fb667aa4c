import * as z from 'zod/mini';
import { jsonByteLength } from '../runtime/bound';
import { builtOnce } from '../runtime/built-once';
import { InvalidArgsError } from '../runtime/errors';
import { identifierProblem, TENANT_ID } from '../runtime/ids';
import { MAX_ARGS_DEPTH, redactedExcerpt, tooDeepAt } from '../runtime/schema-violations';
import { awsRegion, REGIONS_ACCEPTED, regionsList } from '../tools/aws/shared/arg-schemas';
import type { InputType, ScenarioDefinition, ScenarioInput } from './definition';
import { BUDGET_INPUT, budgetProblem } from './run-budget';
import '../runtime/zod-locale';

/**
 * Largest execution input accepted, in bytes of JSON: 8 KiB, the platform's own
 * choice. Step Functions accepts up to 256 KiB of input (AWS Step Functions
 * Developer Guide, "Step Functions service quotas": 256 KiB for a state's input
 * or output and an execution's input), but the input stays in the state for the
 * whole run, beside the levels' records: the state budget (lib/scenarios/budget.ts)
 * counts it at 8 KiB, and each `{{input.…}}` of a call's args at 8 KiB, within
 * 180 KiB; a Distributed Map child carries it too (`MaxInputBytesPerBatch`,
 * lib/scenarios/asl-states/org.ts). docs/scenarios.md, "Inputs".
 *
 * One limit, one check ({@link inputSizeProblem}): the CLI, the console, the
 * schedules and the run's `Start` state count the same input, the one the run
 * keeps (the scenario's defaults and the tenant filled in).
 */
export const MAX_INPUT_BYTES = 8 * 1024;

/** Bytes one 12-digit account id takes in a JSON list: its digits, two quotes and a comma. */
const ACCOUNT_ID_LISTED_BYTES = 12 + 3;

/**
 * Most ids an `accounts` or `account_ids` list holds: as many 12-digit account ids
 * as fit an input of {@link MAX_INPUT_BYTES} beside the shortest tenant
 * (`{"tenant":"a","accounts":[…]}`). Beside other inputs, or with OU ids, fewer fit.
 */
export const MAX_LISTED_ORG_IDS = Math.floor(
  (MAX_INPUT_BYTES - jsonByteLength({ tenant: 'a', accounts: [] }) + 1) / ACCOUNT_ID_LISTED_BYTES,
);

/**
 * An account id (12 digits), an organizational unit id (`ou-` + 4-32 + `-` + 8-32
 * lowercase letters or digits) or a root id (`r-` + 4-32): the patterns of the
 * AWS Organizations API reference ("Account", "OrganizationalUnit", "Root").
 */
const ORG_ID = builtOnce(() =>
  z.string().check(z.regex(/^(\d{12}|ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}|r-[0-9a-z]{4,32})$/)),
);

/** What each input type accepts, in words, for error messages. */
export const INPUT_TYPE_ACCEPTS: Readonly<Record<InputType, string>> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  string_list: 'a list of strings',
  regions: REGIONS_ACCEPTED,
  accounts: `"all" or a list of 1-${MAX_LISTED_ORG_IDS} 12-digit account ids, OU ids (ou-ab12-cd34ef56) or root ids (r-ab12), such as ["123456789012", "ou-ab12-cd34ef56"] (${MAX_LISTED_ORG_IDS} account ids fill the ${MAX_INPUT_BYTES}-byte input: name OU ids for more)`,
  account_ids: `a list of at most ${MAX_LISTED_ORG_IDS} 12-digit account ids, OU ids (ou-ab12-cd34ef56) or root ids (r-ab12), such as ["123456789012"] (${MAX_LISTED_ORG_IDS} account ids fill the ${MAX_INPUT_BYTES}-byte input: name OU ids for more)`,
};

const SCHEMAS = builtOnce(
  (): Readonly<Record<InputType, z.ZodMiniType>> => ({
    string: z.string(),
    integer: z.int(),
    number: z.number(),
    boolean: z.boolean(),
    string_list: z.array(z.string()),
    regions: regionsList(),
    accounts: z.union([
      z.literal('all'),
      z.array(ORG_ID()).check(z.minLength(1), z.maxLength(MAX_LISTED_ORG_IDS)),
    ]),
    account_ids: z.array(ORG_ID()).check(z.maxLength(MAX_LISTED_ORG_IDS)),
  }),
);

/** Why `value` is not accepted by `input`, or undefined when it is. */
export function inputValueProblem(input: ScenarioInput, value: unknown): string | undefined {
  const parsed = SCHEMAS()[input.type].safeParse(value);
  if (!parsed.success) {
    return `expected ${INPUT_TYPE_ACCEPTS[input.type]}, got ${faultyEntries(input.type, value) ?? describe(value)}`;
  }
  if (input.enum && !input.enum.includes(value as string)) {
    return `expected one of ${input.enum.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(value)}`;
  }
  return undefined;
}

/** Most faulty entries an input's error names; the others are counted. */
const FAULTY_ENTRIES_NAMED = 5;

/** What one entry of each list-typed input must be; the other types have no entries. */
const ENTRY_SCHEMAS = builtOnce(
  (): Partial<Readonly<Record<InputType, z.ZodMiniType>>> => ({
    string_list: z.string(),
    regions: awsRegion(),
    accounts: ORG_ID(),
    account_ids: ORG_ID(),
  }),
);

/**
 * The faulty entries of a list-typed input (`string_list`, `regions`, `accounts`,
 * `account_ids`), each with its index (`[3] "12345"`), or undefined when the value
 * is not a list or its fault is not in its entries (its length).
 */
function faultyEntries(type: InputType, value: unknown): string | undefined {
  const entry = ENTRY_SCHEMAS()[type];
  if (!entry || !Array.isArray(value)) return undefined;
  const faulty = value.flatMap((item, index) =>
    entry.safeParse(item).success
      ? []
      : [`[${index}] ${redactedExcerpt(JSON.stringify(item) ?? String(item))}`],
  );
  if (faulty.length === 0) return undefined;
  const more = faulty.length - FAULTY_ENTRIES_NAMED;
  return `${faulty.length === 1 ? 'a faulty entry' : `${faulty.length} faulty entries`} in a list of ${value.length}: ${faulty
    .slice(0, FAULTY_ENTRIES_NAMED)
    .join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
}

/** Whether `value`, a list of `input`'s type, is refused for its count alone: every entry is an id it accepts. */
function isOnlyTooLong(input: ScenarioInput, value: unknown): boolean {
  const entry = ENTRY_SCHEMAS()[input.type];
  return (
    (input.type === 'accounts' || input.type === 'account_ids') &&
    Array.isArray(value) &&
    value.length > MAX_LISTED_ORG_IDS &&
    entry !== undefined &&
    value.every((item) => entry.safeParse(item).success)
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value))
    return `an array of ${value.length} ${value.length === 1 ? 'entry' : 'entries'} ${redactedExcerpt(JSON.stringify(value))}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${redactedExcerpt(JSON.stringify(value))}`;
}

/** Bytes with thousands separators: `8,263`. */
function bytesInWords(bytes: number): string {
  return bytes.toLocaleString('en-US');
}

/**
 * How to bring an input under {@link MAX_INPUT_BYTES}: its largest values, then
 * OU or root ids (or "all") in place of long account lists, else shorter values.
 */
function inputSizeFix(
  scenario: Pick<ScenarioDefinition, 'inputs'>,
  input: Readonly<Record<string, unknown>>,
  merged: boolean,
): string {
  const largest = Object.entries(input)
    .map(([name, value]) => ({ name, bytes: jsonByteLength(value), type: scenario.inputs[name]?.type }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 3);
  const sizes = largest.map(({ name, bytes }) => `${name}: ${bytesInWords(bytes)} bytes`).join(', ');
  const lists = largest.filter(({ type }) => type === 'accounts' || type === 'account_ids');
  if (lists.length === 0) return `(largest: ${sizes}): shorten its largest values`;
  const all = lists.some(({ type }) => type === 'accounts') ? ', or "all"' : '';
  return (
    `(largest: ${sizes}${idsThatFit(input, lists[0] as ListSize, merged)}): name OU ids (ou-…) or root ids (r-…) in ` +
    `${lists.map(({ name }) => name).join(' and ')} instead of long lists of account ids${all}`
  );
}

/** One input's name and its size in bytes of JSON. */
interface ListSize {
  readonly name: string;
  readonly bytes: number;
}

/**
 * How many ids the largest account list holds and, in the merged input (the
 * one the run keeps, its other inputs final), how many 12-digit account ids
 * fit beside them: the count a caller trims its list to (`; accounts holds 544
 * ids, 540 account ids fit beside the other inputs`). A list of n account ids
 * is 15n + 1 bytes of JSON ({@link ACCOUNT_ID_LISTED_BYTES} each, brackets, no
 * trailing comma).
 */
function idsThatFit(input: Readonly<Record<string, unknown>>, list: ListSize, merged: boolean): string {
  const ids = input[list.name];
  if (!Array.isArray(ids)) return '';
  const held = `; ${list.name} holds ${bytesInWords(ids.length)} ids`;
  // As given, defaults and the tenant are still to be added: no count would be true.
  if (!merged) return held;
  const others = jsonByteLength(input) - list.bytes;
  const fit = Math.max(0, Math.floor((MAX_INPUT_BYTES - others - 1) / ACCOUNT_ID_LISTED_BYTES));
  return `${held}, ${bytesInWords(fit)} account ids fit beside the other inputs`;
}

/** What the merged input's size counts, in words. */
const MERGED_COUNTED = "with the scenario's defaults and the tenant filled in";

/**
 * Why an execution input is over {@link MAX_INPUT_BYTES}, or undefined when it
 * fits: its size in bytes, its largest values, and how to shorten it. The one
 * size check of a run's input, for the input as given and as merged alike.
 *
 * @param merged - whether `input` is the merged input (the scenario's defaults
 *   and the tenant filled in, said so in the message), not the input as given.
 * @example
 * inputSizeProblem(awsPulseOrg, { tenant: 'default', accounts: ids545, exclude: [], regions: 'all', slack_channel: '#aws-pulse' }, true);
 * // 'the input is 8,266 bytes of JSON with the scenario's defaults and the tenant filled in, over the 8,192 bytes a run's input may hold (largest: accounts: 8,176 bytes,
 * //  slack_channel: 12 bytes, tenant: 9 bytes; accounts holds 545 ids, 540 account ids fit beside the other inputs):
 * //  name OU ids (ou-…) or root ids (r-…) in accounts instead of long lists of account ids, or "all"'
 */
export function inputSizeProblem(
  scenario: Pick<ScenarioDefinition, 'inputs'>,
  input: Readonly<Record<string, unknown>>,
  merged: boolean,
): string | undefined {
  const bytes = jsonByteLength(input);
  if (bytes <= MAX_INPUT_BYTES) return undefined;
  return (
    `the input is ${bytesInWords(bytes)} bytes of JSON${merged ? ` ${MERGED_COUNTED}` : ''}, over the ` +
    `${bytesInWords(MAX_INPUT_BYTES)} bytes a run's input may hold ${inputSizeFix(scenario, input, merged)}`
  );
}

/**
 * The inputs every run has, declared or not: `tenant` (the Task states read
 * `$.input.tenant`) and `budget_usd` (the run budget, over the scenario's own:
 * functions/engine/run-budget.ts).
 */
function declaredInputs(
  scenario: Pick<ScenarioDefinition, 'inputs' | 'budget_usd'>,
): Record<string, ScenarioInput> {
  return {
    tenant: { type: 'string', description: 'Tenant of the run' },
    [BUDGET_INPUT]: {
      type: 'number',
      description: 'Run budget in USD',
      ...(scenario.budget_usd !== undefined ? { default: scenario.budget_usd } : {}),
    },
    ...scenario.inputs,
  };
}

/** Where the run's watermark stands when its input is resolved (docs/scenarios.md, "Watermark"). */
export type WatermarkInput =
  /** Before the run (the CLI, the console, a schedule at synth): the engine fills the input later. */
  | { readonly stage: 'before_run' }
  /** The engine's `start`: the tenant's kept mark, absent before its first succeeded run. */
  | { readonly stage: 'start'; readonly mark?: string };

/**
 * Checks an execution input against the scenario's declared inputs and merges it
 * over their defaults: the `$.input` of the run. Run before a run starts (the CLI)
 * and as the first state of every execution (the engine's `start`), so a run
 * started from the console or a schedule is held to the same rules.
 *
 * A scenario's watermark input takes, in order: the value given, the tenant's
 * kept mark, the input's default. Before the run (`watermark.stage`
 * `before_run`, the default) it may be left out: the merged input then leaves
 * it out too, for the engine's `start` to fill.
 *
 * @returns the merged input; its `tenant` is a tenant id.
 * The size limit ({@link MAX_INPUT_BYTES}) is checked on the input as given, then
 * on the merged input (the one the run keeps and its `Start` state checks again),
 * so an input the run would refuse is refused before it starts. A watermark input
 * left out is filled by `Start` only, and counted there.
 *
 * @throws InvalidArgsError listing every problem: an input over {@link MAX_INPUT_BYTES}
 *   (as given, or with the defaults and the tenant filled in) or nested deeper than tool args may be, keys the scenario does not declare
 *   (with the declared ones), values of the wrong type (with what each accepts), a
 *   required input left out (the watermark input: on the tenant's first run), a
 *   tenant that is not a tenant id, a `budget_usd` that is not a number of dollars
 *   in (0, 10000].
 * @example
 * resolveInput(awsPulse, { regions: 5 });
 * // InvalidArgsError: Invalid input for aws_pulse: regions: expected "all" or a list of 1-40 AWS region names …, got number 5
 */
export function resolveInput(
  scenario: Pick<ScenarioDefinition, 'name' | 'inputs' | 'watermark' | 'budget_usd'>,
  raw: unknown,
  watermark: WatermarkInput = { stage: 'before_run' },
): Record<string, unknown> {
  const where = `Invalid input for ${scenario.name}`;
  if (raw === null || raw === undefined) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidArgsError(`${where}: expected a JSON object, got ${describe(raw)}`);
  }
  const given = raw as Record<string, unknown>;
  // Before the values are read: a huge input is refused without walking it.
  const givenSize = inputSizeProblem(scenario, given, false);
  if (givenSize) throw new InvalidArgsError(`${where}: ${givenSize}`);
  if (tooDeepAt(given, MAX_ARGS_DEPTH) !== undefined) {
    throw new InvalidArgsError(`${where}: objects and arrays nest deeper than ${MAX_ARGS_DEPTH} levels`);
  }
  const declared = declaredInputs(scenario);
  const problems: string[] = [];
  /** Problems of account lists whose every entry is right and only their count is past the bound. */
  const tooLong: string[] = [];
  const unknown = Object.keys(given).filter((key) => !Object.hasOwn(declared, key));
  if (unknown.length > 0) {
    problems.push(
      `${unknown.join(', ')}: not declared by ${scenario.name}. Declared inputs: ${Object.keys(declared).join(', ')}`,
    );
  }
  const merged: Record<string, unknown> = {};
  for (const [name, input] of Object.entries(declared)) {
    const marked = scenario.watermark?.input === name;
    const value = Object.hasOwn(given, name)
      ? given[name]
      : ((marked && watermark.stage === 'start' ? watermark.mark : undefined) ?? input.default);
    if (name === BUDGET_INPUT) {
      // Optional: a run without one has no budget (and no `budget_usd` in its input).
      if (value === undefined) continue;
      const problem = budgetProblem(value);
      if (problem) problems.push(`${BUDGET_INPUT}: ${problem}`);
      merged[name] = value;
      continue;
    }
    if (value === undefined) {
      if (marked && watermark.stage === 'before_run') continue;
      problems.push(
        name === 'tenant'
          ? `tenant: required (${TENANT_ID.accepted}): pass --tenant or "tenant" in the input`
          : marked
            ? `${name}: required on the tenant's first run, which has no previous run's watermark: ${INPUT_TYPE_ACCEPTS[input.type]} (${input.description})`
            : `${name}: required: ${INPUT_TYPE_ACCEPTS[input.type]} (${input.description})`,
      );
      continue;
    }
    const problem =
      name === 'tenant' ? identifierProblem(TENANT_ID, value, 'tenant') : inputValueProblem(input, value);
    if (problem && isOnlyTooLong(input, value)) tooLong.push(`${name}: ${problem}`);
    else if (problem) problems.push(name === 'tenant' ? problem : `${name}: ${problem}`);
    merged[name] = value;
  }
  // The run keeps the merged input: the CLI's check counts what `Start` counts again. Said first;
  // a list past MAX_LISTED_ORG_IDS is then only its symptom, and the size problem already says how
  // many ids fit (fewer than that bound), so the bound is not said beside it as a second limit.
  const mergedSize = inputSizeProblem(scenario, merged, true);
  if (mergedSize) problems.unshift(mergedSize);
  else problems.push(...tooLong);
  if (problems.length > 0) throw new InvalidArgsError(`${where}: ${problems.join('; ')}`);
  return merged;
}
