import { InvalidArgsError } from './errors';

/**
 * What the dispatcher sends a tool's function (and the in-process invoker a
 * tool): the native envelope's fields, args as received. Secrets are never in it.
 */
export interface ToolInvocation {
  readonly tool: string;
  readonly tenant: string;
  /** The state machine execution name (or a CLI run id). */
  readonly runId: string;
  /** `level/index` (`collect/0`); with `runId`, identifies the call. */
  readonly callId: string;
  readonly scenario?: string;
  readonly level?: string;
  /** Object, JSON string, or null/empty for "no arguments"; validated by the tool's schema. */
  readonly args?: unknown;
}

const ID = /^[\w.:/@+=,-]{1,128}$/;

/**
 * Narrows an incoming event to a {@link ToolInvocation} (the native dispatcher
 * envelope has the same fields).
 *
 * @throws InvalidArgsError naming each missing or malformed field and what is accepted.
 */
export function assertToolInvocation(event: unknown): asserts event is ToolInvocation {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw new InvalidArgsError('The event must be a JSON object with tool, tenant, runId and callId');
  }
  const fields = event as Record<string, unknown>;
  const problems: string[] = [];
  for (const name of ['tool', 'tenant', 'runId', 'callId'] as const) {
    if (typeof fields[name] !== 'string' || !ID.test(fields[name] as string)) {
      problems.push(`${name} must be a string of 1-128 letters, digits or _ . : / @ + = , -`);
    }
  }
  for (const name of ['scenario', 'level'] as const) {
    if (
      fields[name] !== undefined &&
      (typeof fields[name] !== 'string' || !ID.test(fields[name] as string))
    ) {
      problems.push(`${name}, when given, must be a string of 1-128 letters, digits or _ . : / @ + = , -`);
    }
  }
  if (problems.length > 0) throw new InvalidArgsError(`Invalid envelope: ${problems.join('; ')}`);
}
