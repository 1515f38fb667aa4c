import { createHash } from 'node:crypto';

/**
 * The public key of a call: 32 hex characters of SHA-256 over tenant, run, call
 * and tool. Carried in what a write tool leaves behind (Slack message metadata) so
 * an attempt can recognize an earlier attempt's effect; reveals nothing.
 *
 * A module of its own: a write tool reads it at load, while the exactly-once
 * machinery (functions/runtime/idempotency.ts, Powertools and its DynamoDB layer)
 * loads only when a call first needs it.
 *
 * @example callKey('acme', 'run-1', 'report/0', 'slack_post_message') // '3f1c…' (32 hex)
 */
export function callKey(tenant: string, runId: string, callId: string, tool: string): string {
  return createHash('sha256').update([tenant, runId, callId, tool].join('\u0000')).digest('hex').slice(0, 32);
}
