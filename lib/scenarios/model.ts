import * as z from 'zod/mini';
import { SNAKE_CASE_NAME } from '../../functions/runtime/ids';
import '../../functions/runtime/zod-locale';

const name = z.string().check(z.regex(SNAKE_CASE_NAME.pattern, SNAKE_CASE_NAME.accepted));

/** One fixed tool call of a plan level. `args` keys ending in `.$` are JSONPath / intrinsic functions, as in ASL Parameters. */
const call = z.strictObject({
  tool: name,
  args: z._default(z.record(z.string(), z.unknown()), {}),
});

/** A plan level: its whitelist and its fixed calls, run in order. */
const level = z.strictObject({
  name,
  description: z.optional(z.string()),
  intra_tools: z.array(name).check(z.minLength(1)),
  calls: z.array(call).check(z.minLength(1), z.maxLength(20)),
});

/** An input parameter of a scenario, with the default a run uses when the input leaves it out. */
const input = z.strictObject({
  description: z.string(),
  default: z.optional(z.unknown()),
});

/**
 * A scenario definition as written in `functions/scenarios/*.yaml`
 * (DESIGN.md, "Scenarios"). Model-driven (agent) levels arrive with the model loop.
 */
export const scenarioSchema = z.strictObject({
  name,
  description: z.string().check(z.minLength(1)),
  inputs: z._default(z.record(z.string(), input), {}),
  levels: z.array(level).check(z.minLength(1)),
});

/** A parsed, validated scenario. */
export type Scenario = z.output<typeof scenarioSchema>;

/** A level of a scenario. */
export type ScenarioLevel = Scenario['levels'][number];
