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

/**
 * The prefix of every exactly-once record key of `tool` for `tenant`:
 * `<tenant>#<tool>` (Powertools' `keyPrefix`; the full key is
 * `<tenant>#<tool>#<sha256>`, functions/runtime/idempotency.ts). Tenant ids and
 * tool names hold no `#`, `*` or `?` (functions/runtime/ids.ts), so the prefix
 * followed by `#` names this tool's records of this tenant and nothing else.
 *
 * @example recordKeyPrefix('acme', 'slack_post_message') // 'acme#slack_post_message'
 */
export function recordKeyPrefix(tenant: string, tool: string): string {
  return `${tenant}#${tool}`;
}

/** The DynamoDB actions on exactly-once records (Powertools' DynamoDB persistence layer). */
export const RECORD_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
] as const;

/**
 * The STS session policy (IAM JSON) the dispatcher narrows a write tool's records
 * session with: the records role reaches the tenant's items (`<tenant>#*`,
 * lib/tenant-secret-readers.ts, `TenantIdempotencyRecords`); the session, only
 * those of the call's own tool (`<tenant>#<tool>#*`, `dynamodb:LeadingKeys`), so
 * one write tool's function can neither read nor forge nor delete another's
 * records — a deleted record would let that tool write twice. `Resource: "*"`:
 * a session may do what both its role (the idempotency table only) and this
 * policy allow (IAM User Guide, "Session policies").
 *
 * @example recordsSessionPolicy('acme', 'slack_post_message') // '{"Version":"2012-10-17",…}'
 */
export function recordsSessionPolicy(tenant: string, tool: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'OwnToolRecords',
        Effect: 'Allow',
        Action: [...RECORD_ACTIONS],
        Resource: '*',
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${recordKeyPrefix(tenant, tool)}#*`] },
        },
      },
    ],
  });
}

/**
 * The least time a call's record is kept, seconds: 24 hours, longer than any
 * retry of a call outside a scenario run (EventBridge retries an event for at most
 * 24 hours, "Event retry policy"; an entry point's logical call spans 10 minutes).
 * A deployed write tool keeps its records longer, {@link IDEMPOTENCY_RECORD_SECONDS_ENV}.
 */
export const IDEMPOTENCY_RECORD_SECONDS = 24 * 60 * 60;

/**
 * The variable the CDK sets on a write tool's function: how long its records are
 * kept, in seconds — the longest a scenario run may last (its state machine's
 * `TimeoutSeconds`: an hour of work plus every `ask_user` wait, up to a week per
 * question) plus the 14 days within which Step Functions may redrive an ended
 * execution under the same name ("Redriving state machines in Step Functions"),
 * so no record of a run expires while a call of that run can still be made
 * again (a target written once per run, a redriven Task) — lib/scenarios/asl.ts,
 * `recordLifetimeSeconds`.
 */
export const IDEMPOTENCY_RECORD_SECONDS_ENV = 'IDEMPOTENCY_RECORD_SECONDS';

/**
 * How long this function keeps a call's record, in seconds: `IDEMPOTENCY_RECORD_SECONDS`
 * when set (never less than {@link IDEMPOTENCY_RECORD_SECONDS}), else that default.
 *
 * @returns undefined when the variable is set but is not a whole number of seconds.
 */
export function recordSeconds(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env[IDEMPOTENCY_RECORD_SECONDS_ENV];
  if (raw === undefined || raw === '') return IDEMPOTENCY_RECORD_SECONDS;
  if (!/^[0-9]{1,10}$/.test(raw)) return undefined;
  return Math.max(IDEMPOTENCY_RECORD_SECONDS, Number(raw));
}
