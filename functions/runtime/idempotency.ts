/**
 * Exactly-once for `write` tools: a call (tenant + runId + callId) takes effect
 * at most once whatever retries happen; a tool that declares `oncePerRunArgs`
 * writes at most once per target (tenant + runId + those arguments) however
 * many calls name it — the dispatcher's Lambda invoke, a Step
 * Functions retry, a redelivered event. Built on Powertools Idempotency and its
 * DynamoDB persistence layer (idempotency-layers.ts; docs/slack.md, "Exactly once").
 *
 * Decisions:
 * - The record's key is `<tenant>#<tool>#<sha256 of [tenant, runId, callId]>`: the
 *   tenant and the tool lead, so IAM confines a function to its own tool's
 *   records of its tenant (`dynamodb:LeadingKeys` `<tenant>#*` on the role, `<tenant>#<tool>#*`
 *   on the session the dispatcher vends: call-key.ts, `recordsSessionPolicy`), and the args are checked against the
 *   record (the same call id with other args is `invalid_args`, not a replay).
 * - No local cache (`useLocalCache: false`) and one persistence layer and config
 *   per call: Powertools keeps its key prefix, cache and Lambda context on those
 *   objects, and a process-wide one would carry one tenant's call state into
 *   another's (a concurrent local run, a warm container). A duplicate costs one
 *   consistent DynamoDB read; a warm container rarely sees one.
 * - What is stored: a success, and a failure whose effect may have happened
 *   (`timeout`, `network_error`, `upstream_error`, `internal_error`, or a tool's
 *   `details.effect` of `unknown`/`partial`), made non-retryable: every retry
 *   returns it rather than act twice. A failure that certainly did nothing
 *   (`invalid_args`, `not_found`, `throttled`…, or `details.effect: 'none'`) is
 *   not stored: a retry runs again.
 * - An attempt that started and never recorded an outcome (a crashed function)
 *   holds the call until the end of its hard stop; the next attempt then runs
 *   with `ctx.idempotency.resumed`, and a tool looks for its earlier effect
 *   first (Slack: the message metadata) instead of acting again.
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { Context } from 'aws-lambda';
import { parseToolArgs } from './args';
import { callKey, IDEMPOTENCY_RECORD_SECONDS_ENV, recordKeyPrefix, recordSeconds } from './call-key';
import type { ToolContextServices } from './context';
import { DEADLINE_SAFETY_MARGIN_MS, type Deadline, hardStopGraceMs } from './deadline';
import { MAX_ERROR_MESSAGE_CHARS } from './error-sources/error-info';
import { type ErrorCode, PlatformError } from './errors';
import { runTool } from './harness';
import type { IdempotencyLayerFactory } from './idempotency-layers';
import type { ToolInvocation } from './invocation';
import { normalizeError } from './normalize-error';
import { failureResult, oneLineSummary, type ToolFailure, type ToolResult } from './result';
import { type Tool, toolTimeoutSeconds } from './spec';

/** How long a call's record is kept: call-key.ts (a module light enough for the CDK app and the CLI). */
export { IDEMPOTENCY_RECORD_SECONDS, IDEMPOTENCY_RECORD_SECONDS_ENV, recordSeconds } from './call-key';

/** Whether a failed write took effect: `none` (safe to run again), `unknown`, or `partial` (some of it). */
export type Effect = 'none' | 'unknown' | 'partial';

/** Codes whose effect is unknown unless the tool says otherwise: the request may have been acted on. */
const UNKNOWN_EFFECT_CODES: ReadonlySet<ErrorCode> = new Set([
  'timeout',
  'network_error',
  'upstream_error',
  'internal_error',
]);

/**
 * The effect of a failed write: the tool's own `details.effect` when it set one,
 * else `unknown` for {@link UNKNOWN_EFFECT_CODES} and `none` for every other code
 * (an answer that refused the request).
 */
export function effectOf(failure: ToolFailure): Effect {
  const declared = failure.error.details?.effect;
  if (declared === 'none' || declared === 'unknown' || declared === 'partial') return declared;
  return UNKNOWN_EFFECT_CODES.has(failure.error.code) ? 'unknown' : 'none';
}

/** A failure that certainly did nothing: thrown through Powertools so it deletes the record. */
class NothingDone extends Error {
  override readonly name = 'NothingDone';
  constructor(readonly result: ToolFailure) {
    super(result.error.message);
  }
}

/** Marks a target identity apart from any call id (call ids never hold `:`). */
const TARGET_PREFIX = 'target:';

/**
 * The target a `write` tool's call writes to, from its spec's `oncePerRunArgs`
 * (`lead_id=512`; several args joined with `, `, each value as JSON unless a
 * string), or undefined for a tool written once per call.
 */
export function writeTarget(tool: Pick<Tool, 'oncePerRunArgs'>, args: unknown): string | undefined {
  const names = tool.oncePerRunArgs ?? [];
  if (names.length === 0) return undefined;
  const values = (args ?? {}) as Record<string, unknown>;
  return names
    .map((name) => {
      const value = values[name];
      return `${name}=${typeof value === 'string' ? value : JSON.stringify(value ?? null)}`;
    })
    .join(', ');
}

/**
 * First wait, in ms, before the record of a call another attempt holds in progress
 * is read again ({@link onceSettled}); each next wait doubles, up to
 * {@link IN_PROGRESS_MAX_POLL_MS}. Each read is one consistent DynamoDB write
 * attempt (Powertools' conditional put) and, when it fails, one read.
 */
export const IN_PROGRESS_FIRST_POLL_MS = 200;

/** Longest wait between two reads of a record held in progress by another attempt, in ms. */
export const IN_PROGRESS_MAX_POLL_MS = 2_000;

/**
 * Runs `attempt` (the idempotent call) and, while it fails because another attempt
 * of the same call holds the record in progress (`IdempotencyAlreadyInProgressError`),
 * runs it again after a wait ({@link IN_PROGRESS_FIRST_POLL_MS}, doubling up to
 * {@link IN_PROGRESS_MAX_POLL_MS}) for as long as the wait fits before `deadline`.
 * Each new attempt returns the other attempt's stored outcome once it is recorded,
 * or takes the record over when its hold ran out (an attempt that died: the tool
 * then runs with `resumed`). Who makes a second attempt of a running call and
 * would otherwise get `throttled` that no one retries: a Step Functions `Retry`
 * of a Task whose Lambda invoke failed after the dispatcher ran (a callback Task's
 * retry carries a new task token, which only this attempt can answer), the
 * Lambda SDK's own retry of the dispatcher's Invoke, an entry point's caller
 * repeating the call, a second asynchronous delivery of the same event.
 *
 * @param ranTool - whether the tool itself ran in an attempt: its errors are never retried here.
 * @throws the last error of `attempt` (the in-progress one when the wait no longer fits).
 */
async function onceSettled<T>(
  attempt: () => Promise<T>,
  deadline: Deadline,
  ranTool: () => boolean,
): Promise<T> {
  for (let delay = IN_PROGRESS_FIRST_POLL_MS; ; delay = Math.min(delay * 2, IN_PROGRESS_MAX_POLL_MS)) {
    try {
      return await attempt();
    } catch (err) {
      const inProgress = (err as { name?: unknown } | null)?.name === 'IdempotencyAlreadyInProgressError';
      if (!inProgress || ranTool() || deadline.remainingMs() <= delay) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** What the record's key and args check are computed from. */
interface CallPayload {
  readonly tenant: string;
  readonly runId: string;
  readonly callId: string;
  readonly args: unknown;
}

const AT_MOST_ONCE = ' — not retried: it may have taken effect, and this call acts at most once';

/** A failure whose effect may have happened, as stored: final (not retryable), saying so. */
function settled(failure: ToolFailure, effect: Effect): ToolFailure {
  const room = MAX_ERROR_MESSAGE_CHARS - AT_MOST_ONCE.length;
  const message = `${failure.error.message.slice(0, room)}${AT_MOST_ONCE}`;
  return {
    ...failure,
    error: { ...failure.error, message, retryable: false, details: { ...failure.error.details, effect } },
    summary: oneLineSummary(`${failure.error.code}: ${message}`),
  };
}

function failure(tool: Tool, invocation: ToolInvocation, error: PlatformError): ToolFailure {
  return failureResult(tool.name, invocation.callId, normalizeError(tool.name, error, tool.service), 0);
}

/**
 * Runs a tool call through `runTool`, once per tenant + runId + callId when the
 * tool's spec says `sideEffects: 'write'` (other tools run as they are), once
 * per tenant + runId + target when it declares `oncePerRunArgs`. Never
 * throws. A replayed call returns the stored result of the first (with its own call id).
 *
 * The same call (or target) already running in another attempt: this one waits
 * for that attempt's outcome and returns it (or takes the record over once an
 * abandoned attempt's hold ends), for as long as its deadline allows.
 *
 * Failures of the mechanism itself: the same call still running when this
 * attempt's deadline comes → `throttled`, retryable; the same call id (or
 * target) with other args → `invalid_args`; the record unreadable → `upstream_error`
 * (retryable, service `dynamodb`), and the tool does not run.
 *
 * @param layers - the record's persistence (DynamoDB deployed, in memory locally).
 * @example
 * const result = await runToolOnce(tool, event, deadlineIn(context.getRemainingTimeInMillis()), services,
 *   dynamoDbIdempotency(process.env.IDEMPOTENCY_TABLE!));
 */
export async function runToolOnce(
  tool: Tool,
  invocation: ToolInvocation,
  deadline: Deadline,
  services: ToolContextServices,
  layers: IdempotencyLayerFactory,
  maxBytes?: number,
): Promise<ToolResult> {
  if (tool.sideEffects !== 'write') return runTool(tool, invocation, deadline, services, maxBytes);
  let args: unknown;
  try {
    args = parseToolArgs(tool, invocation.args);
  } catch {
    // Invalid args: nothing can happen, no record needed; runTool reports them.
    return runTool(tool, invocation, deadline, services, maxBytes);
  }
  if (/^(1|true|y|yes)$/i.test(process.env.POWERTOOLS_IDEMPOTENCY_DISABLED ?? '')) {
    return failure(
      tool,
      invocation,
      new PlatformError(
        'internal_error',
        `POWERTOOLS_IDEMPOTENCY_DISABLED is set: ${tool.name} is a write tool and does not run without its exactly-once record`,
      ),
    );
  }
  const keepSeconds = recordSeconds();
  if (keepSeconds === undefined) {
    return failure(
      tool,
      invocation,
      new PlatformError(
        'internal_error',
        `${IDEMPOTENCY_RECORD_SECONDS_ENV} must be a whole number of seconds: ${tool.name} is a write tool and does not run without knowing how long its exactly-once record is kept`,
      ),
    );
  }
  const layer = layers();
  const target = writeTarget(tool, args);
  // Once per target: the record (and the marker the tool writes) is the target's, not the call's.
  const identity = target === undefined ? invocation.callId : `${TARGET_PREFIX}${target}`;
  const key = callKey(invocation.tenant, invocation.runId, identity, tool.name);
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[tenant, runId, callId]',
    payloadValidationJmesPath: 'args',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: keepSeconds,
    useLocalCache: false,
    hashFunction: 'sha256',
  });
  // The in-progress hold lasts until this attempt can no longer be running: its hard
  // stop, the harness's grace, and the safety margin before Lambda's own timeout. Read
  // when the record is taken, which may be after a wait for an earlier attempt (below).
  const holdMs = () =>
    deadline.remainingMs() + hardStopGraceMs(deadline.remainingMs()) + DEADLINE_SAFETY_MARGIN_MS;
  config.registerLambdaContext({ getRemainingTimeInMillis: holdMs } as Context);
  let ran: ToolResult | undefined;
  const once = makeIdempotent(
    async (_payload: CallPayload): Promise<ToolResult> => {
      ran = await runTool(
        tool,
        invocation,
        deadline,
        { ...services, idempotency: { key, resumed: layer.resumed } },
        maxBytes,
      );
      if (ran.ok) return ran;
      const effect = effectOf(ran);
      if (effect === 'none') throw new NothingDone(ran);
      return settled(ran, effect);
    },
    { persistenceStore: layer, config, keyPrefix: recordKeyPrefix(invocation.tenant, tool.name) },
  );
  const payload: CallPayload = {
    tenant: invocation.tenant,
    runId: invocation.runId,
    callId: identity,
    args,
  };
  try {
    // Another attempt of the same call (or target) is running: wait for its outcome
    // rather than answer `throttled` that no caller retries (docs/errors.md, "Write tools").
    const result = (await onceSettled(
      () => once(payload),
      deadline,
      () => ran !== undefined,
    )) as ToolResult;
    // Another call's stored result (the same target, the same args) answers this call.
    return result.callId === invocation.callId ? result : { ...result, callId: invocation.callId };
  } catch (err) {
    if (err instanceof NothingDone) return err.result;
    const name = (err as { name?: unknown } | null)?.name;
    // The tool ran but its outcome could not be recorded: report what it did.
    if (ran) {
      services.logger.warn('idempotency record not updated', {
        tool: tool.name,
        callId: invocation.callId,
        err,
      });
      if (ran.ok) return ran;
      const effect = effectOf(ran);
      return effect === 'none' ? ran : settled(ran, effect);
    }
    if (name === 'IdempotencyAlreadyInProgressError') {
      const wait = toolTimeoutSeconds(tool);
      if (target !== undefined) {
        return failure(
          tool,
          invocation,
          new PlatformError(
            'throttled',
            `Another call of run ${invocation.runId} is writing ${target} with ${tool.name} now (it writes each target at most once per run); try again in ${wait} s to get its result`,
            { retryable: true, details: { retryAfterSeconds: wait, reason: 'target_in_progress' } },
          ),
        );
      }
      return failure(
        tool,
        invocation,
        new PlatformError(
          'throttled',
          `Call ${invocation.callId} of run ${invocation.runId} is already running (or its last attempt has not timed out yet); try again in ${wait} s to get its result`,
          { retryable: true, details: { retryAfterSeconds: wait, reason: 'call_in_progress' } },
        ),
      );
    }
    if (name === 'IdempotencyValidationError') {
      if (target !== undefined) {
        return failure(
          tool,
          invocation,
          new PlatformError(
            'invalid_args',
            `${tool.name} already wrote ${target} in run ${invocation.runId}, with other arguments: it writes each target at most once per run. Put everything for ${target} in one call`,
            { details: { reason: 'target_already_written' } },
          ),
        );
      }
      return failure(
        tool,
        invocation,
        new PlatformError(
          'invalid_args',
          `Call ${invocation.callId} of run ${invocation.runId} was already made with other arguments; a call id names one call: use a new one`,
        ),
      );
    }
    services.logger.warn('idempotency record unavailable', {
      tool: tool.name,
      callId: invocation.callId,
      err,
    });
    return failure(
      tool,
      invocation,
      new PlatformError(
        'upstream_error',
        `The exactly-once record of ${tool.name} could not be read or written, so the call was not made: ${(err as Error)?.message ?? String(err)}`,
        { retryable: true, service: 'dynamodb' },
      ),
    );
  }
}
