import { InvalidArgsError } from './errors';
import {
  AWS_ACCOUNT_ID,
  CALL_ID,
  type IdentifierRule,
  identifierProblem,
  ORG_SECRET_NAME,
  RUN_ID,
  SNAKE_CASE_NAME,
  TENANT_ID,
} from './ids';
import type { VendedCredentials } from './secrets/vended';

/**
 * What the dispatcher sends a tool's function (and the in-process invoker a
 * tool): the native envelope's fields, args as received, and (deployed) the
 * call's vended reader sessions. Secret values are never in it.
 */
export interface ToolInvocation extends CallIdentity {
  /** Object, JSON string, or null/empty for "no arguments"; validated by the tool's schema. */
  readonly args?: unknown;
  /**
   * Deployed only: the reader sessions the dispatcher vended for this call's tenant
   * (./secrets/vended.ts). Taken by the tool function's handler and dropped by
   * {@link invocationOf}: the harness, the context and every log see the call without them.
   */
  readonly vendedCredentials?: VendedCredentials;
}

/** Who a call is for and where it stands: the identifying fields of an invocation and of its ToolContext. */
export interface CallIdentity {
  readonly tool: string;
  /** A tenant id (functions/runtime/ids.ts, `TENANT_ID`). */
  readonly tenant: string;
  /** The state machine execution name (or a CLI run id); `RUN_ID` in functions/runtime/ids.ts. */
  readonly runId: string;
  /** `level/index` (`collect/0`); with `runId`, identifies the call. */
  readonly callId: string;
  readonly scenario?: string;
  readonly level?: string;
  /**
   * A call of a per-account level (`for_each_account`; docs/organizations-runs.md):
   * the member account (12 digits) its AWS requests are made in. The dispatcher
   * accepts it on those levels' calls only, and requires it there.
   */
  readonly account?: string;
  /**
   * With `account`: the tenant's organization secret (`aws_org_*`) whose member role
   * `ctx.aws()` assumes in `account`; on the level's listing call (`aws_org_accounts`,
   * no `account`), the one whose organization role `ctx.organization()` assumes. Set
   * by the dispatcher from the level's `for_each_account.org_secret`, never taken from a caller.
   */
  readonly orgSecret?: string;
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
  ['account', AWS_ACCOUNT_ID],
  ['orgSecret', ORG_SECRET_NAME],
];

/**
 * The invocation's own fields and nothing else: what travels on to a tool
 * function (docs/design.md, "Dispatcher envelope": only these fields). An extra field
 * of the incoming event — however large or deep — is dropped here.
 *
 * @example invocationOf({ tool: 'finish', tenant: 't', runId: 'r', callId: 'l/0', extra: '…' })
 * // { tool: 'finish', tenant: 't', runId: 'r', callId: 'l/0' }
 */
export function invocationOf(event: ToolInvocation, args: unknown = event.args): ToolInvocation {
  const { tool, tenant, runId, callId, scenario, level, account, orgSecret } = event;
  return {
    tool,
    tenant,
    runId,
    callId,
    ...(scenario !== undefined ? { scenario } : {}),
    ...(level !== undefined ? { level } : {}),
    ...(account !== undefined ? { account } : {}),
    ...(orgSecret !== undefined ? { orgSecret } : {}),
    ...(args !== undefined ? { args } : {}),
  };
}

/** Longest `tool` or `callId` echoed back from an event that failed to narrow, in characters. */
export const MAX_ECHOED_CHARS = 80;

/**
 * An identifying field of an event as a failure result echoes it: the value when
 * it is a string, cut to {@link MAX_ECHOED_CHARS} characters (`…` marks the cut);
 * `unknown` otherwise. A 5 MB `tool` must not come back as a 5 MB result or log line.
 *
 * @example echoedField({ tool: 'x'.repeat(10_000) }, 'tool').length // 81
 */
export function echoedField(event: unknown, name: 'tool' | 'callId'): string {
  const value =
    event !== null && typeof event === 'object' ? (event as Record<string, unknown>)[name] : undefined;
  if (typeof value !== 'string') return 'unknown';
  return value.length > MAX_ECHOED_CHARS ? `${value.slice(0, MAX_ECHOED_CHARS)}…` : value;
}

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
  // Own properties only: an inherited `tool` (a prototype-polluted object) is no field.
  const own = event as Record<string, unknown>;
  const fields = (name: string) => (Object.hasOwn(own, name) ? own[name] : undefined);
  const problems = [
    ...REQUIRED_FIELDS.map(([name, rule]) => identifierProblem(rule, fields(name), name)),
    ...OPTIONAL_FIELDS.map(([name, rule]) =>
      fields(name) === undefined ? undefined : identifierProblem(rule, fields(name), name),
    ),
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) throw new InvalidArgsError(`Invalid envelope: ${problems.join('; ')}`);
}
