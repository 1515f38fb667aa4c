import type { Logger } from '@aws-lambda-powertools/logger';
import { parseToolArgs } from '../runtime/args';
import { jsonByteLength } from '../runtime/bound';
import type { ToolCatalog } from '../runtime/catalog';
import type { ToolContextServices } from '../runtime/context';
import type { Deadline } from '../runtime/deadline';
import { InvalidArgsError } from '../runtime/errors';
import { runTool } from '../runtime/harness';
import { assertToolInvocation, echoedField, invocationOf, type ToolInvocation } from '../runtime/invocation';
import { normalizeError } from '../runtime/normalize-error';
import { type CallScope, createPostCall, toolResultLogFields } from '../runtime/post-call';
import { failureResult, type ToolResult } from '../runtime/result';
import { FULL_RESULT_MAX_BYTES } from '../runtime/result-limits';
import type { ToolSpec } from '../runtime/spec';
import type { WorkspaceProvider } from '../runtime/workspace';
import { assertProfileAllows, type ProfileScope } from './access';
import type { ToolInvoker } from './invoker';
import { type AccountLevels, accountLevelSecret, assertToolAllowed, type LevelWhitelists } from './levels';
import { applyPins, type PinnedArgs } from './pins';

/** What a dispatcher is built from. */
export interface DispatcherOptions {
  /** Every registered tool: specs, and the file tools the dispatcher runs itself. */
  readonly catalog: ToolCatalog;
  /** Levels' `intra_tools` per scenario. */
  readonly whitelists: LevelWhitelists;
  /**
   * The per-account levels and their organization secret: their calls carry
   * `account`, which no other call may. @default none
   */
  readonly accountLevels?: AccountLevels;
  /** Arguments each level pins (functions/dispatcher/pins.ts). @default none */
  readonly pins?: PinnedArgs;
  /** Runs tools that have their own function. */
  readonly invoker: ToolInvoker;
  /** Services for the file tools (logger; no secret store is needed by file tools). */
  readonly services: ToolContextServices;
  readonly logger: Logger;
  /** Bound on each returned result's JSON, in bytes, when there is no workspace (`workspaces`). */
  readonly maxResultBytes: number;
  /**
   * Opens the call's run workspace: for the file tools, and the claim-check of
   * results larger than `inlineResultBytes`. Absent (no bucket configured):
   * file tools that need one fail, `finish` only returns its answer, and results
   * are shrunk to `maxResultBytes` as before the claim-check.
   * @default - none
   */
  readonly workspaces?: WorkspaceProvider;
  /**
   * With `workspaces`: results whose JSON is larger are written to the run's
   * workspace and returned as a compact stand-in with `resultRef`; failures are
   * bounded to it. @default DEFAULT_RESULT_INLINE_BYTES (8 KiB)
   */
  readonly inlineResultBytes?: number;
  /**
   * Whether `scenario` and `level` are required. True in the deployed dispatcher
   * (every call is scoped to a level); false for `etp tools invoke` without them.
   */
  readonly requireLevel: boolean;
}

/**
 * Handles one envelope; never throws. `scope` is given by the adapters of
 * callers without a scenario (functions/dispatcher/adapters/): the call is then
 * checked against the access profile's tools instead of a level's whitelist,
 * and the envelope must name no scenario or level (its tenant is the profile's,
 * set by the adapter from configuration, never from the caller's input).
 */
export type Dispatch = (envelope: unknown, deadline: Deadline, scope?: ProfileScope) => Promise<ToolResult>;

/**
 * Largest args logged whole, in bytes of JSON: 2 KiB. Larger args are logged as
 * their size and member count: a log line stays readable and cheap, whatever a
 * caller sends (within `MAX_ARGS_BYTES`).
 */
export const LOGGED_ARGS_MAX_BYTES = 2048;

/** Args as the `tool call` log line carries them (redacted by the logger). */
function loggedArgs(args: unknown): unknown {
  const bytes = jsonByteLength(args);
  if (bytes <= LOGGED_ARGS_MAX_BYTES) return args;
  const members = args !== null && typeof args === 'object' ? Object.keys(args).length : 0;
  return { omitted: `${bytes} bytes of JSON, ${members} top-level members` };
}

/** A call that passed every check made before anything runs: its tool's spec and its validated args. */
export interface CheckedCall {
  readonly spec: ToolSpec;
  readonly args: Record<string, unknown>;
  /** A per-account level's organization secret (`aws_org_…`), when the call names a member account. */
  readonly orgSecret?: string;
}

/**
 * The checks the dispatcher makes before anything runs, in its order: the
 * envelope's shape, the tool is registered, the access profile (`scope`) or the
 * scenario level's whitelist allows it, the level's pins, the args against the
 * tool's schema. `etp tools invoke` runs the same checks first, so what they
 * refuse is a usage error there (exit 2), not a tool's result.
 *
 * @throws InvalidArgsError (`invalid_args`) for a malformed envelope or args; UnknownToolError
 *   (`unknown_tool`) listing the registered tools; ToolNotAllowedError or PinnedArgumentError
 *   (`tool_not_allowed`) naming what the level allows.
 */
export function createCallCheck(
  options: Pick<DispatcherOptions, 'catalog' | 'whitelists' | 'pins' | 'requireLevel' | 'accountLevels'>,
): (envelope: unknown, scope?: ProfileScope) => CheckedCall {
  const { catalog } = options;
  const fileToolNames = catalog.fileToolNames();
  return (envelope, scope) => {
    assertToolInvocation(envelope);
    const spec = catalog.get(envelope.tool);
    if (scope) {
      assertProfileScoped(envelope, scope);
      assertProfileAllows(scope, spec.name);
    } else if (envelope.scenario !== undefined || envelope.level !== undefined || options.requireLevel) {
      if (envelope.scenario === undefined || envelope.level === undefined) {
        throw new InvalidArgsError(
          'scenario and level are required: every call is scoped to a scenario level',
        );
      }
      assertToolAllowed(options.whitelists, envelope.scenario, envelope.level, spec.name, fileToolNames);
    }
    // The member account: required on a per-account level's calls, refused elsewhere.
    const orgSecret = accountLevelSecret(
      options.accountLevels ?? {},
      envelope.scenario,
      envelope.level,
      envelope.account,
      spec.name,
    );
    // Pins first (a fixed argument is not in the model's schema), then validated here,
    // before any remote call; the tool validates again in its function.
    const args = parseToolArgs(spec, scope ? envelope.args : applyPins(options.pins, envelope));
    return { spec, args, ...(orgSecret ? { orgSecret } : {}) };
  };
}

/**
 * Hands a checked call of a function tool to its tool's function, with the call's
 * task token, and returns once it is started: the tool's function answers the
 * token (functions/dispatcher/callback.ts). May throw; the dispatcher normalizes.
 */
export type HandOff = (spec: ToolSpec, invocation: ToolInvocation, signal: AbortSignal) => Promise<void>;

/** A call handed to its tool's function ({@link HandOff}): no result here, the tool answers. */
export interface HandedOff {
  readonly handedOff: true;
  readonly tool: string;
  readonly callId: string;
}

/**
 * The dispatcher's core: {@link Dispatch}, and with `handOff` a function tool's
 * call is started by it instead of awaited through the invoker ({@link HandedOff});
 * everything else — a refused call, a file tool, a failed hand-off — ends here
 * with its post-call result, as without it.
 */
export type DispatchCore = (
  envelope: unknown,
  deadline: Deadline,
  scope?: ProfileScope,
  handOff?: HandOff,
) => Promise<ToolResult | HandedOff>;

/**
 * The dispatcher's core ({@link DispatchCore}): parse → level whitelist → validate
 * args (before any remote call) → invoke (or hand off) → redact/bound/log. Every
 * failure is an `ok: false` result.
 */
export function createDispatchCore(options: DispatcherOptions): DispatchCore {
  const { catalog, logger } = options;
  const fileTools = new Map(catalog.fileTools().map((tool) => [tool.name, tool]));
  const check = createCallCheck(options);
  const { workspaces } = options;
  const services = workspaces ? { ...options.services, workspaces } : options.services;
  // With a workspace, the claim-check bounds results, so file tools may return them whole.
  const fileToolMaxBytes = workspaces ? FULL_RESULT_MAX_BYTES : options.maxResultBytes;
  const postCall = createPostCall(options);
  const keptKeys = new Map(catalog.list().map((spec) => [spec.name, spec.visibleOutputKeys]));

  return async (envelope, deadline, scope, handOff) => {
    const started = performance.now();
    // Echoed in a failure result and the log as received, bounded like everything else returned.
    const tool = echoedField(envelope, 'tool');
    const callId = echoedField(envelope, 'callId');
    let result: ToolResult;
    let workspaceScope: CallScope | undefined;
    try {
      assertToolInvocation(envelope);
      workspaceScope = {
        tenant: envelope.tenant,
        runId: envelope.runId,
        scenario: envelope.scenario,
        ...(envelope.account === undefined ? {} : { account: envelope.account }),
      };
      const { spec, args, orgSecret } = check(envelope, scope);
      logger.info('tool call', { ...envelopeKeys(envelope), args: loggedArgs(args) });
      // The envelope's own fields only: an extra field never travels on to a tool function.
      // The organization secret is the level's, whatever the envelope said.
      const { orgSecret: _claimed, ...identity } = invocationOf(envelope, args);
      const invocation: ToolInvocation = orgSecret ? { ...identity, orgSecret } : identity;
      const fileTool = fileTools.get(spec.name);
      if (!fileTool && handOff) {
        await handOff(spec, invocation, deadline.signal);
        logger.info('tool handed off', { tool, callId });
        return { handedOff: true, tool, callId };
      }
      result = fileTool
        ? await runTool(fileTool, invocation, deadline, services, fileToolMaxBytes)
        : await options.invoker.invoke(spec, invocation, deadline.signal);
    } catch (err) {
      result = failureResult(
        tool,
        callId,
        normalizeError(tool, err),
        Math.round(performance.now() - started),
      );
    }
    // Redacted, then claim-checked or bounded (functions/runtime/post-call.ts);
    // keys the tool's spec keeps visible stay so here too.
    const bounded = await postCall(result, workspaceScope, deadline, keptKeys.get(tool));
    logger.info('tool result', toolResultLogFields(bounded));
    return bounded;
  };
}

/**
 * The dispatcher: parse → level whitelist → validate args (before any remote
 * call) → invoke → redact/bound/log. Every failure is an `ok: false` result.
 *
 * @example
 * const dispatch = createDispatcher({ catalog: toolCatalog, whitelists, … });
 * const result = await dispatch({ tenant: 'default', scenario: 'aws_pulse', level: 'collect',
 *   tool: 'aws_ec2_inventory', args: '{"regions":["eu-west-1"]}', runId: 'r1', callId: 'collect/0' }, deadline);
 */
export function createDispatcher(options: DispatcherOptions): Dispatch {
  const core = createDispatchCore(options);
  // Without a hand-off the core always ends with a result.
  return async (envelope, deadline, scope) => (await core(envelope, deadline, scope)) as ToolResult;
}

/** A profile-scoped call carries the profile's tenant and no scenario or level (adapters build it so). */
function assertProfileScoped(envelope: ToolInvocation, scope: ProfileScope): void {
  if (envelope.tenant !== scope.tenant || envelope.scenario !== undefined || envelope.level !== undefined) {
    throw new InvalidArgsError(
      `A call through access profile "${scope.profile}" runs for its tenant and names no scenario or level`,
    );
  }
}

/**
 * The envelope's identifying keys for a log line. `level` is Powertools' log-level
 * key (an extra `level` is dropped with a warning), hence `scenarioLevel`.
 */
function envelopeKeys(envelope: ToolInvocation): Record<string, string | undefined> {
  const { tenant, scenario, level, tool, runId, callId, account } = envelope;
  return { tenant, scenario, scenarioLevel: level, tool, runId, callId, account };
}
