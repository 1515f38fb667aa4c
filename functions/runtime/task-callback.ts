/**
 * A plan call answered by its tool's own function (issue 20, "one function per
 * in-flight call"; docs/architecture.md, "Functions a call keeps busy"): the
 * call's Task waits with `.waitForTaskToken` (Step Functions developer guide,
 * "Wait for a Callback with Task Token"), the dispatcher checks the call and
 * starts the tool asynchronously with the token, and whoever ends the call — the
 * tool's function, or the dispatcher when its checks refuse the call — answers
 * the token here with the post-call result.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { InvalidArgsError } from './errors';
import { normalizeError } from './normalize-error';
import type { ToolResult } from './result';

/** The field of a callback invocation that carries the task token (the ASL's `taskToken.$: $$.Task.Token`). */
export const TASK_TOKEN_FIELD = 'taskToken';

/** Longest task token accepted, in characters (Step Functions API Reference, "SendTaskSuccess": `taskToken` 1 to 2,048). */
export const MAX_TASK_TOKEN_CHARS = 2048;

/** Longest `error` of SendTaskFailure, in characters (Step Functions API Reference, "SendTaskFailure": 256). */
export const MAX_TASK_ERROR_CHARS = 256;

/** Longest `cause` of SendTaskFailure, in characters (Step Functions API Reference, "SendTaskFailure": 32,768). */
export const MAX_TASK_CAUSE_CHARS = 32_768;

/**
 * The `error` a task is failed with when its result could not be sent: the
 * state's Catch (`States.ALL`) turns it into an `internal_error` result naming it.
 */
export const TASK_FAILURE_ERROR = 'etp.internal_error';

/**
 * The Step Functions errors meaning the token can no longer be answered: the
 * Task already ended (its timeout, an earlier answer of a duplicate delivery,
 * the execution stopped) — Step Functions API Reference, "SendTaskSuccess", Errors.
 */
const TOKEN_GONE_ERRORS = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);

/**
 * The task token of a callback invocation, or undefined when the event has none
 * (a synchronous call). Own property only.
 *
 * @throws InvalidArgsError when `taskToken` is present but not a string of 1 to 2,048 characters.
 * @example taskTokenOf({ tool: 'x', taskToken: 'AAAA…' }) // 'AAAA…'
 */
export function taskTokenOf(event: unknown): string | undefined {
  if (event === null || typeof event !== 'object' || !Object.hasOwn(event, TASK_TOKEN_FIELD))
    return undefined;
  const token = (event as Record<string, unknown>)[TASK_TOKEN_FIELD];
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TASK_TOKEN_CHARS) {
    // What was given, never its text: a token is a credential to answer the Task.
    const given =
      typeof token !== 'string'
        ? token === null
          ? 'null'
          : `a ${typeof token}`
        : token.length === 0
          ? 'an empty string'
          : `a string of ${token.length} characters`;
    throw new InvalidArgsError(
      `taskToken must be a Step Functions task token: a string of 1 to ${MAX_TASK_TOKEN_CHARS} characters ($$.Task.Token), got ${given}`,
    );
  }
  return token;
}

/** Answers task tokens: Step Functions' SendTaskSuccess and SendTaskFailure, or their local stand-in. */
export interface TaskResponder {
  /** @throws the service's error (`TaskTimedOut`, `InvalidToken`, `InvalidOutput`, throttling…). */
  succeed(token: string, output: unknown): Promise<void>;
  /** @throws the service's error. */
  fail(token: string, error: string, cause: string): Promise<void>;
}

/** The SDK client part a {@link stepFunctionsResponder} needs (an `SFNClient`). */
export interface StepFunctionsSender {
  send(command: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

/**
 * A {@link TaskResponder} on Step Functions. `@aws-sdk/client-sfn` is loaded on
 * the first answer, so a function that never answers a token does not load it.
 *
 * @example const responder = stepFunctionsResponder(new SFNClient({}));
 */
export function stepFunctionsResponder(client: StepFunctionsSender): TaskResponder {
  const sfn = () => require('@aws-sdk/client-sfn') as typeof import('@aws-sdk/client-sfn');
  return {
    succeed: async (token, output) => {
      await client.send(
        new (sfn().SendTaskSuccessCommand)({ taskToken: token, output: JSON.stringify(output) }),
      );
    },
    fail: async (token, error, cause) => {
      await client.send(
        new (sfn().SendTaskFailureCommand)({
          taskToken: token,
          error: error.slice(0, MAX_TASK_ERROR_CHARS),
          cause: cause.slice(0, MAX_TASK_CAUSE_CHARS),
        }),
      );
    },
  };
}

/** How {@link answerTask} ended: sent as a success, sent as a failure, or the token was already gone. */
export type TaskAnswer = 'succeeded' | 'failed' | 'gone';

/**
 * Answers a call's task with its (post-call) result: SendTaskSuccess with the
 * ToolResult the Task would have had from a synchronous dispatcher — an
 * `ok: false` result too, so its error code reaches the engine. When the token is
 * gone (the Task timed out, or a duplicate delivery answered first) it is logged
 * and nothing else is done: the Task has its answer. When the success cannot be
 * sent otherwise, SendTaskFailure with {@link TASK_FAILURE_ERROR} and the reason,
 * so the Task ends now rather than at its timeout. Never throws; logs the task
 * token never.
 */
export async function answerTask(
  responder: TaskResponder,
  token: string,
  result: ToolResult,
  logger: Logger,
): Promise<TaskAnswer> {
  const where = { tool: result.tool, callId: result.callId };
  try {
    await responder.succeed(token, result);
    return 'succeeded';
  } catch (err) {
    if (isTokenGone(err)) {
      logger.warn('task already ended: the result was not sent', { ...where, error: errorName(err) });
      return 'gone';
    }
    const error = normalizeError(result.tool, err, 'states');
    logger.error('task result not sent: failing the task', { ...where, error });
    try {
      await responder.fail(
        token,
        TASK_FAILURE_ERROR,
        `The call's result could not be sent: ${error.message}`,
      );
      return 'failed';
    } catch (failure) {
      // The Task's own timeout ends it (TimeoutSeconds): nothing more can be done from here.
      logger.error('task failure not sent: the Task ends at its timeout', {
        ...where,
        error: normalizeError(result.tool, failure, 'states'),
      });
      return isTokenGone(failure) ? 'gone' : 'failed';
    }
  }
}

/**
 * Whether a result is a write tool's duplicate delivery of a call still running
 * when this delivery's deadline came (functions/runtime/idempotency.ts,
 * `call_in_progress`; a delivery that sees the running one finish in time answers
 * with its recorded result instead): that delivery must not answer the token —
 * the one running will, with the call's real outcome.
 */
export function isDuplicateDelivery(result: ToolResult): boolean {
  return (
    !result.ok &&
    result.error.code === 'throttled' &&
    (result.error.details as { reason?: unknown } | undefined)?.reason === 'call_in_progress'
  );
}

function errorName(err: unknown): string {
  return (err as { name?: unknown } | null)?.name === undefined
    ? 'unknown'
    : String((err as { name: unknown }).name);
}

function isTokenGone(err: unknown): boolean {
  return TOKEN_GONE_ERRORS.has(errorName(err));
}
