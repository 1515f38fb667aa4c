import * as z from 'zod/mini';
import { jsonByteLength } from '../runtime/bound';
import { builtOnce } from '../runtime/built-once';
import { InvalidArgsError } from '../runtime/errors';
import { identifierProblem, TENANT_ID } from '../runtime/ids';
import { MAX_ARGS_DEPTH, tooDeepAt } from '../runtime/schema-violations';
import { regionsList } from '../tools/aws/shared/arg-schemas';
import type { InputType, ScenarioDefinition, ScenarioInput } from './definition';
import { BUDGET_INPUT, budgetProblem } from './run-budget';
import '../runtime/zod-locale';

/**
 * Largest execution input accepted, in bytes of JSON: the input stays in the
 * state for the whole run, whose every state must stay well under Step
 * Functions' 256 KiB ("Step Functions service quotas").
 */
export const MAX_INPUT_BYTES = 8 * 1024;

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
  regions: '"all" or a list of 1-40 AWS region names such as ["eu-west-1"]',
  accounts:
    '"all" or a list of 1-1000 12-digit account ids, OU ids (ou-ab12-cd34ef56) or root ids (r-ab12), such as ["123456789012", "ou-ab12-cd34ef56"]',
  account_ids:
    'a list of at most 1000 12-digit account ids, OU ids (ou-ab12-cd34ef56) or root ids (r-ab12), such as ["123456789012"]',
};

const SCHEMAS = builtOnce(
  (): Readonly<Record<InputType, z.ZodMiniType>> => ({
    string: z.string(),
    integer: z.int(),
    number: z.number(),
    boolean: z.boolean(),
    string_list: z.array(z.string()),
    regions: regionsList(),
    accounts: z.union([z.literal('all'), z.array(ORG_ID()).check(z.minLength(1), z.maxLength(1000))]),
    account_ids: z.array(ORG_ID()).check(z.maxLength(1000)),
  }),
);

/** Why `value` is not accepted by `input`, or undefined when it is. */
export function inputValueProblem(input: ScenarioInput, value: unknown): string | undefined {
  const parsed = SCHEMAS()[input.type].safeParse(value);
  if (!parsed.success) {
    return `expected ${INPUT_TYPE_ACCEPTS[input.type]}, got ${faultyIds(input.type, value) ?? describe(value)}`;
  }
  if (input.enum && !input.enum.includes(value as string)) {
    return `expected one of ${input.enum.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(value)}`;
  }
  return undefined;
}

/** Most faulty entries an input's error names; the others are counted. */
const FAULTY_ENTRIES_NAMED = 5;

/**
 * The faulty entries of an `accounts` or `account_ids` list, each with its index
 * (`[3] "12345"`), or undefined when the value is not such a list or its fault is
 * not in its entries (its length).
 */
function faultyIds(type: InputType, value: unknown): string | undefined {
  if ((type !== 'accounts' && type !== 'account_ids') || !Array.isArray(value)) return undefined;
  const faulty = value.flatMap((entry, index) =>
    ORG_ID().safeParse(entry).success
      ? []
      : [`[${index}] ${truncated(JSON.stringify(entry) ?? String(entry))}`],
  );
  if (faulty.length === 0) return undefined;
  const more = faulty.length - FAULTY_ENTRIES_NAMED;
  return `${faulty.length === 1 ? 'a faulty entry' : `${faulty.length} faulty entries`} in a list of ${value.length}: ${faulty
    .slice(0, FAULTY_ENTRIES_NAMED)
    .join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array ${truncated(JSON.stringify(value))}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${truncated(JSON.stringify(value))}`;
}

function truncated(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
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
 * @throws InvalidArgsError listing every problem: an input over {@link MAX_INPUT_BYTES}
 *   or nested deeper than tool args may be, keys the scenario does not declare
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
  if (jsonByteLength(given) > MAX_INPUT_BYTES) {
    throw new InvalidArgsError(`${where}: the input is over ${MAX_INPUT_BYTES} bytes of JSON`);
  }
  if (tooDeepAt(given, MAX_ARGS_DEPTH) !== undefined) {
    throw new InvalidArgsError(`${where}: objects and arrays nest deeper than ${MAX_ARGS_DEPTH} levels`);
  }
  const declared = declaredInputs(scenario);
  const problems: string[] = [];
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
    if (problem) problems.push(name === 'tenant' ? problem : `${name}: ${problem}`);
    merged[name] = value;
  }
  if (problems.length > 0) throw new InvalidArgsError(`${where}: ${problems.join('; ')}`);
  return merged;
}
