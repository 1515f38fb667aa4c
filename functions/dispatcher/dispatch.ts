import type { Logger } from '@aws-lambda-powertools/logger';
import { parseToolArgs } from '../runtime/args';
import { jsonByteLength } from '../runtime/bound';
import type { ToolCatalog } from '../runtime/catalog';
import type { ToolContextServices } from '../runtime/context';
import type { Deadline } from '../runtime/deadline';
import { InvalidArgsError } from '../runtime/errors';
import { boundResult, runTool } from '../runtime/harness';
import { assertToolInvocation, echoedField, invocationOf, type ToolInvocation } from '../runtime/invocation';
import { normalizeError } from '../runtime/normalize-error';
import { redact } from '../runtime/redact';
import { failureResult, type ToolResult } from '../runtime/result';
import type { ToolInvoker } from './invoker';
import { assertToolAllowed, type LevelWhitelists } from './levels';

/** What a dispatcher is built from. */
export interface DispatcherOptions {
  /** Every registered tool: specs, and the file tools the dispatcher runs itself. */
  readonly catalog: ToolCatalog;
  /** Levels' `intra_tools` per scenario. */
  readonly whitelists: LevelWhitelists;
  /** Runs tools that have their own function. */
  readonly invoker: ToolInvoker;
  /** Services for the file tools (logger; no secret store is needed by file tools). */
  readonly services: ToolContextServices;
  readonly logger: Logger;
  /** Bound on each returned result's JSON, in bytes. */
  readonly maxResultBytes: number;
  /**
   * Whether `scenario` and `level` are required. True in the deployed dispatcher
   * (every call is scoped to a level); false for `etp tools invoke` without them.
   */
  readonly requireLevel: boolean;
}

/** Handles one envelope; never throws. */
export type Dispatch = (envelope: unknown, deadline: Deadline) => Promise<ToolResult>;

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
  const { catalog, logger } = options;
  const fileTools = new Map(catalog.fileTools().map((tool) => [tool.name, tool]));
  const fileToolNames = [...fileTools.keys()];

  return async (envelope, deadline) => {
    const started = performance.now();
    // Echoed in a failure result and the log as received, bounded like everything else returned.
    const tool = echoedField(envelope, 'tool');
    const callId = echoedField(envelope, 'callId');
    let result: ToolResult;
    try {
      assertToolInvocation(envelope);
      const spec = catalog.get(envelope.tool);
      if (envelope.scenario !== undefined || envelope.level !== undefined || options.requireLevel) {
        if (envelope.scenario === undefined || envelope.level === undefined) {
          throw new InvalidArgsError(
            'scenario and level are required: every call is scoped to a scenario level',
          );
        }
        assertToolAllowed(options.whitelists, envelope.scenario, envelope.level, spec.name, fileToolNames);
      }
      // Validated here, before any remote call; the tool validates again in its function.
      const args = parseToolArgs(spec, envelope.args);
      logger.info('tool call', { ...envelopeKeys(envelope), args: loggedArgs(args) });
      // The envelope's own fields only: an extra field never travels on to a tool function.
      const invocation: ToolInvocation = invocationOf(envelope, args);
      const fileTool = fileTools.get(spec.name);
      result = fileTool
        ? await runTool(fileTool, invocation, deadline, options.services, options.maxResultBytes)
        : await options.invoker.invoke(spec, invocation, deadline.signal);
    } catch (err) {
      result = failureResult(
        tool,
        callId,
        normalizeError(tool, err),
        Math.round(performance.now() - started),
      );
    }
    // Redacted before bounding: a masked value can be longer than what it hides.
    const bounded = boundResult(redact(result), options.maxResultBytes);
    logger.info('tool result', {
      tool,
      callId,
      ok: bounded.ok,
      ...(bounded.ok ? { truncated: bounded.truncated } : { error: bounded.error }),
      durationMs: bounded.durationMs,
    });
    return bounded;
  };
}

/**
 * The envelope's identifying keys for a log line. `level` is Powertools' log-level
 * key (an extra `level` is dropped with a warning), hence `scenarioLevel`.
 */
function envelopeKeys(envelope: ToolInvocation): Record<string, string | undefined> {
  const { tenant, scenario, level, tool, runId, callId } = envelope;
  return { tenant, scenario, scenarioLevel: level, tool, runId, callId };
}
