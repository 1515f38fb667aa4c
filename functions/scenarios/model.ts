import { z } from 'zod';

const name = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'snake_case, at most 64 characters');

/** One fixed tool call of a plan level. `args` keys ending in `.$` are JSONPath / intrinsic functions, as in ASL Parameters. */
const call = z.strictObject({
  tool: name,
  args: z.record(z.string(), z.unknown()).default({}),
});

/** A plan level: its whitelist and its fixed calls, run in order. */
const level = z.strictObject({
  name,
  description: z.string().optional(),
  intra_tools: z.array(name).min(1),
  calls: z.array(call).min(1).max(20),
});

/** An input parameter of a scenario, with the default a run uses when the input leaves it out. */
const input = z.strictObject({
  description: z.string(),
  default: z.unknown().optional(),
});

/**
 * A scenario definition as written in `functions/scenarios/*.yaml`
 * (DESIGN.md, "Scenarios"). Model-driven (agent) levels arrive with the model loop.
 */
export const scenarioSchema = z.strictObject({
  name,
  description: z.string().min(1),
  inputs: z.record(z.string(), input).default({}),
  levels: z.array(level).min(1),
});

/** A parsed, validated scenario. */
export type Scenario = z.output<typeof scenarioSchema>;

/** A level of a scenario. */
export type ScenarioLevel = Scenario['levels'][number];
