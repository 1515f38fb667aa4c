import { createHash } from 'node:crypto';

/** The entry points whose calls carry no run of their own. */
export type EntryPointKind = 'bedrock' | 'gateway' | 'mcp';

/** The call-id level of each entry point (`bedrock_agent/0`): a snake_case name, as `CALL_ID` wants. */
const CALL_LEVEL: Readonly<Record<EntryPointKind, string>> = {
  bedrock: 'bedrock_agent',
  gateway: 'agentcore_gateway',
  mcp: 'mcp',
};

function digest(text: string, hexChars: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, hexChars);
}

/**
 * The `runId` and `callId` of a call without a scenario run. They identify the
 * call as a Step Functions execution name and call index do (idempotency keys,
 * STS session names, S3 keys), so:
 * - `runId` = `<entry>-<12 hex of the session>-<16 hex of the call>`: the
 *   session part groups a conversation's calls in logs and CloudTrail (session
 *   name `etp-<runId>`), the call part keeps two calls apart (64 bits);
 *   at most 38 characters, within `RUN_ID` (1-80 letters, digits, `-`, `_`);
 * - `callId` = `<entry level>/0`.
 * The same `session` and `call` keys give the same ids, so a caller's retry of
 * one call (the same Bedrock event, the same Gateway request id, the same MCP
 * `tools/call` within {@link LOGICAL_CALL_WINDOW_MS}: {@link logicalCallKey}) is the
 * same call to a write tool's idempotency, and a new call never is.
 *
 * @param session - what groups calls (agent id + session id, gateway id, MCP connection).
 * @param call - what identifies this call within it (see each adapter).
 */
export function entryCallIdentity(
  kind: EntryPointKind,
  session: string,
  call: string,
): { readonly runId: string; readonly callId: string } {
  return { runId: `${kind}-${digest(session, 12)}-${digest(call, 16)}`, callId: `${CALL_LEVEL[kind]}/0` };
}

/**
 * How long a repeat of the same call (same caller, tool and arguments) counts as
 * a retry of it, in ms: 10 minutes, longer than any client's retry schedule
 * (the MCP SDK's request timeout is 60 s; Bedrock Agents and AgentCore Gateway
 * retry within their own call's timeout) and short enough that a deliberate repeat
 * in a later turn is a new call. Windows are fixed (UTC-aligned): a retry that
 * straddles a window's end is a new call.
 */
export const LOGICAL_CALL_WINDOW_MS = 10 * 60_000;

/**
 * What identifies a logical call of an entry point whose protocol gives a retry no
 * id of its own (an MCP `tools/call`, whose JSON-RPC id a client may renew on
 * retry; a Gateway call without its request id; a Bedrock Agents event): the
 * tool, its arguments (canonical JSON: key order does not matter), what the
 * entry point adds (`extra`: Bedrock's input text) and the
 * {@link LOGICAL_CALL_WINDOW_MS} window the call falls in.
 *
 * @example logicalCallKey('slack_post_message', { channel: 'C1', text: 'hi' }) // 'slack_post_message\n{…}\n2948161'
 */
export function logicalCallKey(tool: string, args: unknown, extra = '', now: number = Date.now()): string {
  return `${tool}\n${canonicalJson(args)}\n${extra}\n${Math.floor(now / LOGICAL_CALL_WINDOW_MS)}`;
}

/** JSON with object keys sorted, so equal arguments give equal call keys whatever their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
