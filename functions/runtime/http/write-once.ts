/**
 * Exactly-once writes of REST connectors. The call's idempotency record
 * (functions/runtime/idempotency.ts: one per tenant, run and call) keeps a
 * finished call from running again; this module covers what the record cannot
 * know: a write whose answer never came. Every write carries the call's marker
 * (its public key, `callKey`) in what it writes — a GitHub issue's body, a
 * PagerDuty note's content — and a write whose outcome is unknown is looked up
 * by that marker instead of being sent again, as the Slack posts look up their
 * message metadata.
 */
import { callKey } from '../call-key';
import type { ToolContext } from '../context';
import { PlatformError } from '../errors';
import { normalizeError } from '../normalize-error';
import { UnclearWriteError } from '../write-answer';
import { HttpRequestError } from './errors';
import { RestApiError } from './rest-errors';

/** Prefix of the marker text (`etp-call:<32 hex>`). */
export const MARKER_PREFIX = 'etp-call:';

/**
 * The call's marker, carried in what a write tool writes.
 *
 * @example writeMarker(ctx) // 'etp-call:3f1c…' (32 hex)
 */
export function writeMarker(
  ctx: Pick<ToolContext, 'idempotency' | 'tenant' | 'runId' | 'callId' | 'tool'>,
): string {
  return `${MARKER_PREFIX}${ctx.idempotency?.key ?? callKey(ctx.tenant, ctx.runId, ctx.callId, ctx.tool)}`;
}

/** One write and how to find it again. */
export interface OnceWrite<T> {
  /** Reported as the errors' `service`. */
  readonly service: string;
  /** What is written, for messages (`issue in acme/api`). */
  readonly what: string;
  /** Performs the write, carrying {@link writeMarker}. */
  write(): Promise<T>;
  /** Looks for a write carrying the marker; undefined when there is none. */
  find(): Promise<T | undefined>;
}

/** A write's outcome: what it made, and whether it was found made by an earlier attempt. */
export interface WriteOutcome<T> {
  readonly value: T;
  /** Found by its marker (an earlier attempt, or an answer that never came) instead of written again. */
  readonly recovered: boolean;
}

/**
 * Whether a failed write may have been acted on: no answer after the request may
 * have left (`reached: 'maybe'`), a 5xx, or a 2xx that did not acknowledge the
 * write. A refused connection or any 4xx answer (429 included: the APIs here do
 * not act on a throttled request) means nothing was written.
 */
export function writeOutcomeUnknown(err: unknown): boolean {
  if (err instanceof HttpRequestError) return err.reached === 'maybe';
  if (err instanceof RestApiError) return err.status >= 500;
  return err instanceof UnclearWriteError;
}

/**
 * Writes once: after an earlier attempt that never recorded its outcome
 * (`ctx.idempotency.resumed`), looks for its write first; a write whose outcome
 * is unknown is looked up by its marker, and reported `recovered` when found.
 *
 * @throws the write's error as is when nothing can have been written.
 * @throws the write's error with `details.effect: 'none'` when its outcome was
 *   unknown and the lookup found nothing (the call may run again).
 * @throws PlatformError with `details.effect: 'unknown'` when the lookup itself failed.
 * @example
 * const { value, recovered } = await writeOnce(ctx, { service: 'pagerduty', what: 'note on PXXXX',
 *   write: () => session.json({ method: 'POST', path: `/incidents/${id}/notes`, body }),
 *   find: () => findNote(session, id, writeMarker(ctx)) });
 */
export async function writeOnce<T>(ctx: ToolContext, once: OnceWrite<T>): Promise<WriteOutcome<T>> {
  if (ctx.idempotency?.resumed) {
    const earlier = await lookUp(
      ctx,
      once,
      'an earlier attempt of this call ended without an outcome',
      undefined,
    );
    if (earlier !== undefined) return { value: earlier, recovered: true };
  }
  try {
    return { value: await once.write(), recovered: false };
  } catch (err) {
    if (!writeOutcomeUnknown(err)) throw err;
    ctx.logger.warn('write outcome unknown; looking it up by its marker', { service: once.service });
    const found = await lookUp(ctx, once, 'its answer never came', err);
    if (found !== undefined) return { value: found, recovered: true };
    const info = normalizeError(ctx.tool, err, once.service);
    throw new PlatformError(
      info.code,
      `${info.message} (the ${once.what} was not found written: safe to retry)`,
      {
        retryable: info.retryable,
        service: once.service,
        details: { ...info.details, effect: 'none' },
        cause: err,
      },
    );
  }
}

async function lookUp<T>(
  ctx: ToolContext,
  once: OnceWrite<T>,
  why: string,
  cause: unknown,
): Promise<T | undefined> {
  try {
    return await once.find();
  } catch (err) {
    const reason = normalizeError(ctx.tool, err, once.service);
    throw new PlatformError(
      cause === undefined ? reason.code : normalizeError(ctx.tool, cause, once.service).code,
      `The ${once.what} may have been written (${why}), and it could not be looked up (${reason.message}); it is not written again`,
      {
        retryable: false,
        service: once.service,
        details: { effect: 'unknown', marker: writeMarker(ctx) },
        cause,
      },
    );
  }
}
