import { InvalidArgsError } from './errors';
import { CALL_ID, type IdentifierRule, identifierProblem, RUN_ID, SNAKE_CASE_NAME, TENANT_ID } from './ids';

/**
 * What the dispatcher sends a tool's function (and the in-process invoker a
 * tool): the native envelope's fields, args as received. Secrets are never in it.
 */
export interface ToolInvocation {
  readonly tool: string;
  /** A tenant id (functions/runtime/ids.ts, `TENANT_ID`). */
  readonly tenant: string;
  /** The state machine execution name (or a CLI run id); `RUN_ID` in functions/runtime/ids.ts. */
  readonly runId: string;
  /** `level/index` (`collect/0`); with `runId`, identifies the call. */
  readonly callId: string;
  readonly scenario?: string;
  readonly level?: string;
  /** Object, JSON string, or null/empty for "no arguments"; validated by the tool's schema. */
  readonly args?: unknown;
}

/** The envelope's identifying fields and the rule each follows. */
const REQUIRED_FIELDS: readonly (readonly [keyof ToolInvocation, IdentifierRule])[] = [
  ['tool', SNAKE_CASE_NAME],
  ['tenant', TENANT_ID],
  ['runId', RUN_ID],
  ['callId', CALL_ID],
];
const OPTIONAL_FIELDS: readonly (readonly [keyof ToolInvocation, IdentifierRule])[] = [
  ['scenario', SNAKE_CASE_NAME],
  ['level', SNAKE_CASE_NAME],
];

/**
 * Narrows an incoming event to a {@link ToolInvocation} (the native dispatcher
 * envelope has the same fields), each identifier checked against its rule in
 * functions/runtime/ids.ts.
 *
 * @throws InvalidArgsError naming each missing or malformed field and what is accepted.
 */
export function assertToolInvocation(event: unknown): asserts event is ToolInvocation {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw new InvalidArgsError('The event must be a JSON object with tool, tenant, runId and callId');
  }
  const fields = event as Record<string, unknown>;
  const problems = [
    ...REQUIRED_FIELDS.map(([name, rule]) => identifierProblem(rule, fields[name], name)),
    ...OPTIONAL_FIELDS.map(([name, rule]) =>
      fields[name] === undefined ? undefined : identifierProblem(rule, fields[name], name),
    ),
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) throw new InvalidArgsError(`Invalid envelope: ${problems.join('; ')}`);
}
