import * as z from 'zod/mini';
import type { ToolContext } from './context';
import { PlatformError } from './errors';
import type { TokenScopes } from './http/scopes';
import type { ErrorMapper } from './normalize-error';

/**
 * One IAM statement a tool's function role needs. The CDK construct grants
 * exactly these and nothing else; the customer-account audit role is the union
 * of the `aws` tools' statements.
 */
export interface IamGrant {
  /** IAM actions, `service:Action` (`ec2:DescribeInstances`). */
  readonly actions: readonly string[];
  /** Resource ARNs. @default ['*'] (the Describe/List/Get actions used here support no resource-level scoping) */
  readonly resources?: readonly string[];
  /**
   * Why a grant with an action that is not Describe/List/Get needs a wildcard in
   * its resources (cdk-nag IAM5 otherwise fails synthesis): the human decision,
   * written where the grant is declared (the snapshot tools' Athena route).
   * @default none: such a wildcard is a finding
   */
  readonly wildcardReason?: string;
}

/**
 * One explicit Deny statement a tool's role carries (and, for an `aws` tool, the
 * customer-account role too): a Deny beats any Allow (IAM User Guide, "Policy
 * evaluation logic"), so a role an administrator later widens still cannot do
 * it. `resources` or `notResources`, as IAM's `Resource` / `NotResource`.
 */
export interface IamDeny {
  /** The statement id (`DenySnapshotBlockContent`): letters and digits only, as IAM requires. */
  readonly sid: string;
  readonly actions: readonly string[];
  readonly resources?: readonly string[];
  readonly notResources?: readonly string[];
}

/**
 * The files of run workspaces a tool keeps: `paths` relative to a run's workspace
 * root. The tool's role gets no right there; the dispatcher vends each call a
 * run-data session narrowed to these files of the call's own run
 * (functions/runtime/run-data-sessions.ts, `workspaceSessionPolicy`).
 */
export interface WorkspaceAccess {
  /** `read`: s3:GetObject; `read_write`: s3:GetObject and s3:PutObject. */
  readonly access: 'read' | 'read_write';
  /** Relative paths (`snapshots/findings.json`); IAM wildcards allowed. */
  readonly paths: readonly string[];
}

/** How the tool's function is sized. Units: MB and seconds, as Lambda takes them. */
export interface ToolRuntimeSettings {
  /** Lambda memory in MB. @default 256 */
  readonly memorySizeMb?: number;
  /** Lambda timeout in seconds; the tool's deadline is derived from it. @default {@link DEFAULT_TOOL_TIMEOUT_SECONDS} */
  readonly timeoutSeconds?: number;
  /**
   * Node.js options of the function (`NODE_OPTIONS`; the platform sets none of
   * its own: stack traces are mapped without `--enable-source-maps`,
   * functions/runtime/source-map-stacks.ts), such as heap limits that keep a large streaming read within its memory.
   * @default none
   */
  readonly nodeOptions?: string;
}

/** A tool's timeout when its spec sets none, in seconds. */
export const DEFAULT_TOOL_TIMEOUT_SECONDS = 60;

/**
 * How long one call of the tool may run, in seconds: its spec's
 * `runtime.timeoutSeconds`, else {@link DEFAULT_TOOL_TIMEOUT_SECONDS}. Its
 * function's Lambda timeout, the in-process deadline of local runs, and the base
 * of its Task states' `TimeoutSeconds`.
 */
export function toolTimeoutSeconds(spec: Pick<ToolSpec, 'runtime'>): number {
  return spec.runtime?.timeoutSeconds ?? DEFAULT_TOOL_TIMEOUT_SECONDS;
}

/** A strict zod object schema (`zod/mini`): the single source of a tool's args type and its JSON Schema. */
export type ToolInputSchema = z.ZodMiniObject<z.core.$ZodShape, z.core.$strict>;

/**
 * A tool's metadata and argument schema (docs/design.md, "ToolSpec"): everything the
 * dispatcher, the CLI and the CDK need, with no service client. Lives in a
 * `<tool>.meta.ts` file apart from the handler so the dispatcher bundle never
 * pulls in a client it does not call; `functions/tools/catalog.ts` registers it.
 */
export interface ToolSpec<S extends ToolInputSchema = ToolInputSchema> {
  /** snake_case, unique in the registry (`aws_ec2_inventory`). */
  readonly name: string;
  /** Written for the model: what it returns, what it costs, its limits. */
  readonly description: string;
  /** Strict zod object (`z.strictObject`); exported as JSON Schema draft 2020-12 with `additionalProperties: false`. */
  readonly inputSchema: S;
  /** Free-form labels: `aws`, `ec2`, `read_only`, `slack`, `write`, `workspace`. */
  readonly tags: readonly string[];
  /** The remote service it calls (`ec2`, `ce`, `slack`), reported in its errors' `service`. */
  readonly service?: string;
  /** Secret names the tool resolves for the tenant (`aws_default`, `slack_default`). */
  readonly requiresSecrets: readonly string[];
  /** `write` tools are made idempotent per call (`runId` + `callId`). */
  readonly sideEffects: 'none' | 'write';
  /**
   * The arguments of a `write` tool that say where it writes (Slack's `channel`,
   * a CRM record's id): `etp scenario validate` warns about an agent level that
   * offers the tool without pinning them (docs/scenarios.md, "Pinned arguments").
   * @default [] (none declared: the warning then names the tool as wholly unpinned)
   */
  readonly destinationArgs?: readonly string[];
  /**
   * The arguments of a `write` tool that name its target (a CRM lead's id, a
   * PagerDuty incident's): the tool writes at most once per target per run. Its
   * exactly-once record is keyed by tenant, run and these arguments' values
   * instead of the call id, so a second call on the same target in one run gets
   * the first call's result when its arguments are the same, and is refused
   * (`invalid_args`) when they differ (docs/rest-connectors.md, "Once per target").
   * @default none: once per call (`runId` + `callId`)
   */
  readonly oncePerRunArgs?: readonly string[];
  /** Exactly the IAM statements its function's role needs. Empty for tools that call no AWS API. */
  readonly iam: readonly IamGrant[];
  /**
   * The token scopes a REST connector's tool needs, per scope system of its
   * connector(s) (GitHub fine-grained permissions and classic scopes, HubSpot
   * private-app scopes…; `functions/runtime/http/scopes.ts`): what the tenant's
   * token must be granted, listed in docs/tools.md. Every request the tool sends
   * in its tests must be covered (`callRestTool` in test/helpers/rest-tool.ts
   * fails naming the missing scope).
   * @default {} (calls no REST API)
   */
  readonly tokenScopes?: TokenScopes;
  /**
   * What the tool's role must never do, whatever it is granted later (the
   * snapshot tools: no content read). For an `aws` tool the customer-account
   * role carries the same Deny. The run workspace is never excepted: a tool
   * with `workspaceAccess` reaches its files with the vended run-data session
   * (another principal).
   * @default [] (none)
   */
  readonly iamDeny?: readonly IamDeny[];
  /**
   * Files of the call's run workspace (in the platform's bucket, `RUN_BUCKET`)
   * the tool's function reads, or reads and writes, with the run-data session the
   * dispatcher vends for the call (`ctx.runData`, narrowed to these files of the
   * call's own run: functions/runtime/run-data-sessions.ts); its own role has no
   * right there. For tools that keep a run's derived data there (snapshot
   * findings, the Athena route's answers). Function tools only.
   * @default none
   */
  readonly workspaceAccess?: WorkspaceAccess;
  /** Lambda sizing of the tool's own function (file tools, run by the dispatcher, have none). */
  readonly runtime?: ToolRuntimeSettings;
  /**
   * Output keys that stay visible although redaction's key rule would mask them
   * (`redact(value, { keepKeys })`): fields of the remote service that describe a
   * credential without holding one. Their string values still pass the text and
   * exact-match layers. docs/redaction.md, "Keys a tool keeps".
   * @default [] (none)
   */
  readonly visibleOutputKeys?: readonly string[];
  /**
   * Whether the harness may run the call a second time after an auth failure once
   * a re-read secret changed or an expired session was dropped
   * (functions/runtime/credential-renewal.ts). A `write` tool opts in only when a
   * second run cannot repeat its effect (its write is idempotent per call);
   * otherwise it recovers inside the call (`ctx.secret(name, { fresh: true })`).
   * @default true for `sideEffects: 'none'`, false for `'write'`
   */
  readonly retryAfterSecretRenewal?: boolean;
}

/** The arguments a tool's handler receives: the schema's output (defaults applied). */
export type ToolArgs<S extends ToolInputSchema> = z.output<S>;

/**
 * What a handler returns; the harness wraps it into a {@link ToolResult}
 * (adding `tool`, `callId`, `durationMs`, bounding the size).
 */
export interface ToolOutput<V = unknown> {
  /** JSON-serializable output. */
  readonly value: V;
  /** Set when the tool stopped early (deadline, page cap) or bounded its own output. @default false */
  readonly truncated?: boolean;
  /** One line for people and reports (`12 instances in 2 regions, 9 running`). */
  readonly summary?: string;
}

/**
 * A tool: its spec plus the handler. Handlers may throw (typed errors, SDK
 * errors); the harness turns every exception into `ok: false`.
 */
export interface Tool<S extends ToolInputSchema = ToolInputSchema> extends ToolSpec<S> {
  readonly handler: (ctx: ToolContext, args: ToolArgs<S>) => Promise<ToolOutput>;
  /**
   * The connector's own error table, consulted by `normalizeError` before the
   * generic mapping (set once per connector, e.g. by `defineSlackTool`), so the
   * runtime stays free of any one service's error strings.
   */
  readonly mapError?: ErrorMapper;
}

/** The spec as advertised to models and printed by `etp tools list --json`. */
export interface PublicToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema draft 2020-12. */
  readonly inputSchema: Record<string, unknown>;
  readonly tags: readonly string[];
  readonly requiresSecrets: readonly string[];
  readonly sideEffects: 'none' | 'write';
  readonly iam: readonly IamGrant[];
  /** The token scopes the tenant's credential needs (REST connectors' tools only). */
  readonly tokenScopes?: TokenScopes;
}

/**
 * The tool's input schema as JSON Schema draft 2020-12.
 *
 * @returns a fresh object every call (callers may mutate it).
 */
export function toJsonSchema(schema: ToolInputSchema): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
}

/** The public view of a spec (no handler, JSON Schema instead of zod). */
export function publicSpec(spec: ToolSpec): PublicToolSpec {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: toJsonSchema(spec.inputSchema),
    tags: [...spec.tags],
    requiresSecrets: [...spec.requiresSecrets],
    sideEffects: spec.sideEffects,
    iam: spec.iam.map((grant) => ({
      actions: [...grant.actions],
      resources: [...(grant.resources ?? ['*'])],
    })),
    ...(spec.tokenScopes ? { tokenScopes: spec.tokenScopes } : {}),
  };
}

/**
 * Whether a schema is a strict object (`z.strictObject`: unknown keys rejected,
 * JSON Schema `additionalProperties: false`), read from its definition.
 */
export function isStrictObject(schema: ToolInputSchema): boolean {
  const def = schema._zod.def;
  return def.type === 'object' && def.catchall?._zod.def.type === 'never';
}

/** What {@link defineToolSpec} takes: a spec whose schema may be given as a factory. */
export type ToolSpecDefinition<S extends ToolInputSchema> = Omit<ToolSpec<S>, 'inputSchema'> & {
  /** The schema, or a function building it on first use (what the catalog's specs do). */
  readonly inputSchema: S | (() => S);
};

/**
 * Declares a tool spec, keeping its schema's type for {@link defineTool}.
 *
 * A schema given as a factory is built on first use and kept: the dispatcher
 * loads every spec but validates one tool per call, and building every tool's
 * schema at load cost its cold start ~11 ms when measured (bench, "Cold start").
 *
 * @throws PlatformError (`internal_error`) when the schema, once built, is not a strict object.
 * @example
 * export const echoSpec = defineToolSpec({ name: 'echo', description: 'Echoes text.',
 *   inputSchema: () => z.strictObject({ text: z.string() }), tags: [], requiresSecrets: [],
 *   sideEffects: 'none', iam: [] });
 */
export function defineToolSpec<S extends ToolInputSchema>(definition: ToolSpecDefinition<S>): ToolSpec<S> {
  const { inputSchema, ...rest } = definition;
  if (typeof inputSchema !== 'function')
    return { ...rest, inputSchema: strict(definition.name, inputSchema) };
  let built: S | undefined;
  return Object.defineProperty({ ...rest }, 'inputSchema', {
    enumerable: true,
    get: () => {
      built ??= strict(definition.name, inputSchema());
      return built;
    },
  }) as ToolSpec<S>;
}

function strict<S extends ToolInputSchema>(name: string, schema: S): S {
  if (!isStrictObject(schema)) {
    throw new PlatformError('internal_error', `Tool "${name}" must use a strict object schema`);
  }
  return schema;
}

/** Attaches a handler to a spec; the handler's `args` are typed from the spec's schema. */
export function defineTool<S extends ToolInputSchema>(
  spec: ToolSpec<S>,
  handler: (ctx: ToolContext, args: ToolArgs<S>) => Promise<ToolOutput>,
): Tool<S> {
  // Copy property descriptors, not values, so a lazily built schema stays lazy.
  return Object.defineProperties({ handler }, Object.getOwnPropertyDescriptors(spec)) as Tool<S>;
}
