/**
 * Plan calls' `.waitForTaskToken` Tasks for the local interpreter. The
 * interpreter (aws-local-stepfunctions) hands a Task's effective input to a
 * local handler and takes its return as the Task's result, with one fixed
 * `$$.Task.Token` per execution; it has no SendTaskSuccess. So a dispatcher Task
 * that waits for its token (lib/scenarios/asl-states/tasks.ts, `callback`) is
 * routed here, as the Distributed Maps are routed to local-distributed-map.ts:
 *
 * - each Task gets a token of its own ({@link LocalTaskTokens.issue}), in place of
 *   the execution's fixed one, so calls running at once are told apart;
 * - the dispatcher's callback path runs as deployed (functions/dispatcher/callback.ts):
 *   the checks, then the tool started without being awaited ({@link InProcessHandOff}),
 *   or the token answered by the dispatcher;
 * - the tool's run is finished as its function finishes it
 *   (functions/runtime/tool-callback.ts: post-call work, then the answer), and the
 *   answer — SendTaskSuccess or SendTaskFailure on {@link LocalTaskTokens} — becomes
 *   the Task's result or error; the Task's `TimeoutSeconds` stays the backstop.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { CallbackDispatch, ToolHandOff } from '../../functions/dispatcher/callback';
import type { ToolInvoker } from '../../functions/dispatcher/invoker';
import { deadlineIn } from '../../functions/runtime/deadline';
import type { ToolInvocation } from '../../functions/runtime/invocation';
import type { PostCall } from '../../functions/runtime/post-call';
import type { ToolSpec } from '../../functions/runtime/spec';
import { TASK_TOKEN_FIELD, type TaskResponder } from '../../functions/runtime/task-callback';
import { type CallbackServices, finishCallback } from '../../functions/runtime/tool-callback';

/** A Step Functions error as a Task's error: its `name` is what a Catch's `ErrorEquals` matches. */
function stepFunctionsError(name: string, message: string): Error {
  return Object.assign(new Error(message), { name });
}

/**
 * Task tokens of one local run, and their answers: the local SendTaskSuccess and
 * SendTaskFailure. Like the service, a token is answered once; answering one that
 * was never issued or is already answered fails with `TaskTimedOut`, the error
 * Step Functions gives for a token whose Task has ended.
 */
export class LocalTaskTokens implements TaskResponder {
  readonly #waiting = new Map<string, { resolve: (output: unknown) => void; reject: (err: Error) => void }>();

  /** A new token and the Task's outcome: its output, or its error. */
  issue(): { readonly token: string; readonly answered: Promise<unknown> } {
    const token = `local-task-${randomUUID()}`;
    const answered = new Promise<unknown>((resolve, reject) => this.#waiting.set(token, { resolve, reject }));
    return { token, answered };
  }

  /** Tokens not answered yet. */
  get pending(): number {
    return this.#waiting.size;
  }

  async succeed(token: string, output: unknown): Promise<void> {
    // As the service receives it: JSON text, parsed by the Task.
    this.#take(token).resolve(JSON.parse(JSON.stringify(output)));
  }

  async fail(token: string, error: string, cause: string): Promise<void> {
    this.#take(token).reject(stepFunctionsError(error, cause));
  }

  #take(token: string) {
    const waiting = this.#waiting.get(token);
    if (!waiting) throw stepFunctionsError('TaskTimedOut', 'Task Timed Out: the token is not waiting');
    this.#waiting.delete(token);
    return waiting;
  }
}

/**
 * Starts a tool in this process without waiting for it, as an `Event` invocation
 * starts its function (on a later turn of the event loop, as a queued event):
 * `invoker` runs the call (the harness, the tool's deadline,
 * a write tool once), then it is finished as the tool's function finishes it
 * ({@link finishCallback}: post-call work, the `tool result` log line, the answer).
 * `onFinished` is told of every finished call and how long its function was busy
 * with it, in ms (the scenario bench counts it).
 */
export class InProcessHandOff implements ToolHandOff {
  constructor(
    private readonly invoker: ToolInvoker,
    private readonly services: CallbackServices,
    private readonly budgetMs: number,
    private readonly onFinished?: (callId: string, ms: number) => void,
  ) {}

  async start(spec: ToolSpec, invocation: ToolInvocation, taskToken: string): Promise<void> {
    void (async () => {
      // Queued, as Lambda queues an event: the tool starts once the dispatcher has returned.
      await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      const deadline = deadlineIn(this.budgetMs);
      try {
        const result = await this.invoker.invoke(spec, invocation);
        await finishCallback(this.services, spec, invocation, taskToken, result, deadline);
      } catch (err) {
        // The invoker never throws for a tool's failure; anything else ends the Task now.
        await this.services.responder
          .fail(taskToken, 'etp.internal_error', String((err as Error)?.message ?? err))
          .catch(() => undefined);
      } finally {
        deadline.dispose?.();
        this.onFinished?.(invocation.callId, performance.now() - started);
      }
    })();
  }
}

/** What {@link callbackServices} builds from. */
export interface LocalCallbackOptions {
  readonly postCall: PostCall;
  readonly tokens: LocalTaskTokens;
  readonly logger: Logger;
}

/** The services a locally run tool finishes a callback call with: the run's post-call work and its tokens. */
export function callbackServices(options: LocalCallbackOptions): CallbackServices {
  return { postCall: options.postCall, responder: options.tokens, logger: options.logger };
}

/**
 * The handler of a dispatcher `.waitForTaskToken` Task: a token of its own in
 * the payload, the callback dispatch, then the token's answer as the Task's
 * result (or its error). `input` is the Task's effective input,
 * `{ FunctionName, Payload }`.
 */
export function callbackTaskHandler(
  tokens: LocalTaskTokens,
  dispatch: CallbackDispatch,
  budgetMs: number,
): (input: unknown) => Promise<unknown> {
  return async (input) => {
    const payload = (input as { Payload?: Record<string, unknown> } | null)?.Payload ?? {};
    const { token, answered } = tokens.issue();
    const deadline = deadlineIn(budgetMs);
    try {
      await dispatch({ ...payload, [TASK_TOKEN_FIELD]: token }, token, deadline);
    } finally {
      deadline.dispose?.();
    }
    return answered;
  };
}
