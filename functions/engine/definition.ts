/**
 * A validated scenario as the engine runs it (docs/design.md, "Scenarios"): the
 * shape `lib/scenarios/loader.ts` produces from a YAML file at synth time, with
 * every agent prompt read from its file. The CDK bundles these into the engine
 * function (`ETP_ENGINE_CONFIG`, see config.ts); local runs build them from the
 * same files. Types only: the schema lives with the loader (lib/scenarios/model.ts).
 */

/** Input types a scenario may declare (functions/engine/inputs.ts checks values against them). */
export type InputType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'string_list'
  | 'regions'
  | 'accounts'
  | 'account_ids';

/** A declared input: its type, what it is for, and the value a run uses when the input leaves it out. */
export interface ScenarioInput {
  readonly type: InputType;
  readonly description: string;
  /** Absent: the input is required. */
  readonly default?: unknown;
  /** For `string`: the only values accepted. */
  readonly enum?: readonly string[];
}

/** One fixed call of a plan level. String values may hold `{{…}}` references (functions/engine/template.ts). */
export interface PlanCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** A level that runs a fixed list of calls, in parallel up to `concurrency`. */
export interface PlanLevel {
  readonly kind: 'plan';
  readonly name: string;
  readonly description?: string;
  /** Tools the level may call; file tools are always allowed. */
  readonly intra_tools: readonly string[];
  readonly calls: readonly PlanCall[];
  /** Calls in flight at once (Map `MaxConcurrency`). */
  readonly concurrency: number;
  /**
   * Whether the findings of the level's results are kept per tenant and scenario,
   * so the next run can say what is new, resolved or unchanged (functions/engine/findings.ts).
   */
  readonly track_findings: boolean;
  /**
   * The level's calls run once per member account of the tenant's organization,
   * on a Distributed Map (docs/organizations-runs.md). Absent: once, in the tenant's account.
   */
  readonly for_each_account?: AccountFanOut;
}

/** How a per-account plan level fans out (lib/scenarios/asl-states/org.ts). */
export interface AccountFanOut {
  /** Accounts one child execution audits, side by side (`ItemBatcher.MaxItemsPerBatch`). */
  readonly accounts_per_child: number;
  /**
   * Percentage of child executions that may fail (a platform failure: an account whose
   * calls fail is a result, not a failed child) before the Map stops (`ToleratedFailurePercentage`).
   */
  readonly tolerated_failure_percentage: number;
  /**
   * The tenant's organization secret (`aws_org_*`, default `aws_org_default`) whose member
   * role the level's AWS tools assume in each account (functions/runtime/aws/organization.ts).
   */
  readonly org_secret: string;
}

/** How an agent level may pause to ask a person. */
export interface AskUserSettings {
  /** Seconds the run waits for an answer before it resumes with "no answer". */
  readonly timeout_seconds: number;
  /** Channel the question is posted to with `slack_post_message` (may hold `{{…}}` references). */
  readonly slack_channel?: string;
}

/** A model-driven level: a Converse loop over the level's tools until `finish`, `max_turns` or a stop. */
export interface AgentLevel {
  readonly kind: 'agent';
  readonly name: string;
  readonly description?: string;
  readonly intra_tools: readonly string[];
  /** A Bedrock model id, inference profile id or ARN. */
  readonly model: string;
  /** The prompt text (from `prompt`, or the file named by `prompt_file`), with `{{…}}` references. */
  readonly prompt: string;
  /** The file the prompt was read from, relative to the scenario file, when it came from one. */
  readonly prompt_file?: string;
  readonly max_turns: number;
  readonly max_tokens: number;
  readonly temperature?: number;
  /** `false`: the model is not offered `ask_user`. */
  readonly ask_user: false | AskUserSettings;
  /**
   * The largest output budget (tokens) an answer cut at `max_tokens` is retried
   * with (the budget doubles per retry); past it the level ends `truncated`.
   * @default min(4 × max_tokens, 8192) (limits.ts, maxTokensCeilingOf)
   */
  readonly max_tokens_ceiling?: number;
  /** Seconds one model call may take, SDK retries included. @default 120 (limits.ts) */
  readonly model_call_timeout_seconds?: number;
  /** Seconds the level's model calls may take in all, waits between retries included. @default 600 (limits.ts) */
  readonly level_timeout_seconds?: number;
  /** Arguments the level pins, per tool (docs/scenarios.md, "Pinned arguments"). @default none */
  readonly pin?: LevelPinSpecs;
}

/**
 * A pin as the loader keeps it: a fixed value (`value`; a string may hold
 * `{{…}}` references) or the values the model may choose from (`one_of`: a list,
 * or a string that is one reference).
 */
export type PinSpec = { readonly value: unknown } | { readonly one_of: unknown };

/** A level's pins: `{ tool: { argument: pin } }`. */
export type LevelPinSpecs = Readonly<Record<string, Readonly<Record<string, PinSpec>>>>;

/** One level of a scenario. */
export type ScenarioLevel = PlanLevel | AgentLevel;

/**
 * A scenario's watermark (docs/scenarios.md, "Watermark"): the high-water mark a
 * succeeded run keeps per tenant and scenario, and the input it fills on the
 * tenant's next run when that run's input leaves it out (an explicit value wins).
 */
export interface ScenarioWatermark {
  /** The string input the previous run's mark fills (`since`). */
  readonly input: string;
  /**
   * One reference to what the run read, such as
   * `{{levels.read.results.0.value.next_since}}`: resolved when the run ends, like a pin.
   */
  readonly value: string;
}

/** A validated scenario. */
export interface ScenarioDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputs: Readonly<Record<string, ScenarioInput>>;
  readonly levels: readonly ScenarioLevel[];
  /**
   * The run budget, in USD (docs/scenarios.md, "Run budget"): no call, model turn or
   * account starts whose estimate would take the run past it. A run's `budget_usd`
   * input overrides it. @default none (no budget)
   */
  readonly budget_usd?: number;
  /** @default none: no state is kept from run to run beyond tracked findings. */
  readonly watermark?: ScenarioWatermark;
}

/**
 * The level name the dispatcher's whitelists give the engine for posting an
 * `ask_user` question to Slack (`slack_post_message` only). A scenario may not
 * name a level of its own so.
 */
export const ASK_USER_LEVEL = 'ask_user';

/** The engine's own tool, offered to the model where a level allows it (not a catalog tool). */
export const ASK_USER_TOOL = 'ask_user';
