import * as z from 'zod/mini';
import type {
  AgentLevel,
  PlanLevel,
  ScenarioDefinition,
  ScenarioInput,
} from '../../functions/engine/definition';
import {
  DEFAULT_ASK_TIMEOUT_SECONDS,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_TURNS,
  MAX_OUTPUT_TOKENS,
} from '../../functions/engine/limits';
import { BUDGET_ACCEPTS, MAX_BUDGET_USD } from '../../functions/engine/run-budget';
import { DEFAULT_ORG_SECRET } from '../../functions/runtime/aws/organization';
import { ORG_SECRET_NAME, SNAKE_CASE_NAME } from '../../functions/runtime/ids';
import '../../functions/runtime/zod-locale';

const name = z.string().check(z.regex(SNAKE_CASE_NAME.pattern, SNAKE_CASE_NAME.accepted));

/**
 * Bedrock model ids (`anthropic.claude-3-5-haiku-20241022-v1:0`), cross-region
 * inference profile ids (`us.…`, `eu.…`, `apac.…`, `global.…`) and ARNs of
 * foundation models, inference profiles and provisioned models (Bedrock user
 * guide, "Supported foundation models", "Inference profiles").
 */
export const MODEL_ID =
  /^(?:arn:aws[a-z-]*:bedrock:[a-z0-9-]*:\d{0,12}:(?:foundation-model|inference-profile|application-inference-profile|provisioned-model)\/[A-Za-z0-9.:_-]+|(?:[a-z]{2,6}(?:-[a-z]+)?\.)?[a-z0-9-]+\.[A-Za-z0-9.:_-]+)$/;

/** One fixed call of a plan level. String args may hold `{{…}}` references. */
const call = z.strictObject({
  tool: name,
  args: z._default(z.record(z.string(), z.unknown()), {}),
});

const planLevel = z.strictObject({
  kind: z.literal('plan'),
  name,
  description: z.optional(z.string()),
  intra_tools: z.array(name),
  calls: z.array(call).check(z.minLength(1), z.maxLength(20)),
  concurrency: z._default(z.int().check(z.minimum(1), z.maximum(20)), 4),
  track_findings: z._default(z.boolean(), false),
  for_each_account: z.optional(
    z.strictObject({
      accounts_per_child: z._default(z.int().check(z.minimum(1), z.maximum(50)), 1),
      tolerated_failure_percentage: z._default(z.number().check(z.minimum(0), z.maximum(100)), 10),
      // The tenant's organization target the level's calls reach member accounts with.
      org_secret: z._default(
        z.string().check(z.regex(ORG_SECRET_NAME.pattern, ORG_SECRET_NAME.accepted)),
        DEFAULT_ORG_SECRET,
      ),
    }),
  ),
});

const askUser = z.strictObject({
  // Step Functions waits at most a year for a task token; a day is the default, a week the ceiling here.
  timeout_seconds: z._default(
    z.int().check(z.minimum(60), z.maximum(7 * 86_400)),
    DEFAULT_ASK_TIMEOUT_SECONDS,
  ),
  slack_channel: z.optional(z.string().check(z.minLength(1))),
});

const agentLevel = z.strictObject({
  kind: z.literal('agent'),
  name,
  description: z.optional(z.string()),
  intra_tools: z._default(z.array(name), []),
  model: z
    .string()
    .check(
      z.regex(
        MODEL_ID,
        'a Bedrock model id, inference profile id or ARN (anthropic.claude-3-5-haiku-20241022-v1:0)',
      ),
    ),
  prompt: z.optional(z.string().check(z.minLength(1))),
  prompt_file: z.optional(z.string().check(z.minLength(1))),
  max_turns: z._default(z.int().check(z.minimum(1), z.maximum(50)), DEFAULT_MAX_TURNS),
  // Bounded so one turn's tool-call args stay small in the state (functions/engine/limits.ts).
  max_tokens: z._default(z.int().check(z.minimum(1), z.maximum(MAX_OUTPUT_TOKENS)), DEFAULT_MAX_TOKENS),
  temperature: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
  ask_user: z._default(z.union([z.boolean(), askUser]), false),
  // The ceiling of the output budget a cut answer is retried with (functions/engine/limits.ts).
  max_tokens_ceiling: z.optional(z.int().check(z.minimum(1), z.maximum(MAX_OUTPUT_TOKENS))),
  // Under the engine function's 300 s timeout, with room for the invocation's own work.
  model_call_timeout_seconds: z.optional(z.int().check(z.minimum(1), z.maximum(240))),
  level_timeout_seconds: z.optional(z.int().check(z.minimum(1), z.maximum(3600))),
  /** `{ tool: { argument: pin } }` (docs/scenarios.md, "Pinned arguments"); lib/scenarios/pins.ts checks it. */
  pin: z.optional(z.record(name, z.record(z.string(), z.unknown()))),
});

const input = z.strictObject({
  type: z.enum([
    'string',
    'integer',
    'number',
    'boolean',
    'string_list',
    'regions',
    'accounts',
    'account_ids',
  ]),
  description: z.string().check(z.minLength(1)),
  default: z.optional(z.unknown()),
  enum: z.optional(z.array(z.string()).check(z.minLength(1))),
});

/**
 * A scenario file (`functions/scenarios/*.yaml`; docs/scenarios.md is the
 * reference). A level's `kind` may be left out: a level with `calls` is a plan,
 * one with `model` an agent (the loader fills it in before this schema).
 */
export const scenarioSchema = z.strictObject({
  name,
  description: z.string().check(z.minLength(1)),
  inputs: z._default(z.record(name, input), {}),
  /** The run budget in USD (functions/engine/run-budget.ts); a run's `budget_usd` input overrides it. */
  budget_usd: z.optional(z.number().check(z.gt(0, BUDGET_ACCEPTS), z.lte(MAX_BUDGET_USD, BUDGET_ACCEPTS))),
  levels: z.array(z.discriminatedUnion('kind', [planLevel, agentLevel])).check(z.minLength(1)),
  /** docs/scenarios.md, "Watermark"; the loader checks the input and the reference. */
  watermark: z.optional(z.strictObject({ input: name, value: z.string().check(z.minLength(1)) })),
});

/** A scenario file as parsed, before the loader reads prompt files. */
export type ScenarioFile = z.output<typeof scenarioSchema>;

/** A validated scenario, prompts read: what the CDK, the engine and local runs use. */
export type Scenario = ScenarioDefinition;

/** A level of a scenario. */
export type ScenarioLevel = Scenario['levels'][number];

/** A plan level. */
export type { AgentLevel, PlanLevel, ScenarioInput };
