/**
 * The dispatcher's side of a plan call that waits for its task token (issue 20,
 * one function per in-flight call; docs/architecture.md, "Functions a call keeps
 * busy"). The call's Task is `lambda:invoke.waitForTaskToken` on the dispatcher;
 * the dispatcher makes every check it makes for a synchronous call, vends the
 * call's sessions, starts the tool's function asynchronously with the token
 * (`InvocationType: Event`) and returns: it is not busy while the tool runs. The
 * tool's function finishes the call and answers the token
 * (functions/runtime/tool-callback.ts). A call that ends in the dispatcher — refused
 * by a check, a file tool, a hand-off that failed — is answered by the dispatcher,
 * with the post-call result a synchronous call would have returned.
 */

import type { Logger } from '@aws-lambda-powertools/logger';
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { Deadline } from '../runtime/deadline';
import { PlatformError } from '../runtime/errors';
import type { ToolInvocation } from '../runtime/invocation';
import type { CredentialVendor } from '../runtime/secrets/vended';
import type { ToolSpec } from '../runtime/spec';
import { answerTask, TASK_TOKEN_FIELD, type TaskAnswer, type TaskResponder } from '../runtime/task-callback';
import type { DispatchCore } from './dispatch';
import { type RunWorkspaceBucket, withVendedSessions } from './vending-invoker';

/**
 * Starts a tool's function with a call and its task token, without waiting for
 * it. Implementations: {@link LambdaEventHandOff} (deployed), the in-process one of
 * bin/local (local runs).
 */
export interface ToolHandOff {
  /** @throws when the function could not be started (the dispatcher answers the token with the error). */
  start(spec: ToolSpec, invocation: ToolInvocation, taskToken: string, signal: AbortSignal): Promise<void>;
}

/**
 * Lambda's answer to an accepted asynchronous invocation (Lambda API Reference,
 * "Invoke": `StatusCode` 202 for `Event`).
 */
const ACCEPTED = 202;

/**
 * Starts a tool's own function asynchronously (`InvocationType: Event`), by the
 * name `functionNameOf` gives, the task token beside the invocation. Lambda
 * queues the event and answers 202 at once. The function's asynchronous retries
 * are 0 and its events expire (lib/tool-function.ts, `EventInvokeConfig`), so
 * Lambda never runs a call again after a failure; see docs/architecture.md for
 * how a call still runs at most once.
 */
export class LambdaEventHandOff implements ToolHandOff {
  constructor(
    private readonly lambda: LambdaClient,
    private readonly functionNameOf: (tool: string) => string,
  ) {}

  async start(
    spec: ToolSpec,
    invocation: ToolInvocation,
    taskToken: string,
    signal: AbortSignal,
  ): Promise<void> {
    const response = await this.lambda.send(
      new InvokeCommand({
        FunctionName: this.functionNameOf(spec.name),
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify({ ...invocation, [TASK_TOKEN_FIELD]: taskToken })),
      }),
      { abortSignal: signal },
    );
    if (response.StatusCode !== ACCEPTED) {
      throw new PlatformError(
        'internal_error',
        `Lambda did not accept the ${spec.name} call (status ${response.StatusCode ?? 'none'}, expected ${ACCEPTED})`,
        { service: 'lambda' },
      );
    }
  }
}

/**
 * The call's sessions vended before its tool starts (functions/dispatcher/vending-invoker.ts)
 * — deployed, with the run-data session (`etp:runs`) narrowed to the call's run,
 * that the tool's function claim-checks its result with, for the call's tenant only.
 */
export class VendingHandOff implements ToolHandOff {
  constructor(
    private readonly inner: ToolHandOff,
    private readonly vendor: CredentialVendor,
    /** The run workspaces' bucket; undefined: no run-data session is vended (the tool bounds its result instead). */
    private readonly workspace?: RunWorkspaceBucket,
  ) {}

  async start(
    spec: ToolSpec,
    invocation: ToolInvocation,
    taskToken: string,
    signal: AbortSignal,
  ): Promise<void> {
    const vended = await withVendedSessions(this.vendor, spec, invocation, this.workspace, true);
    return this.inner.start(spec, vended, taskToken, signal);
  }
}

/** How a callback call left the dispatcher: handed to its tool's function, or answered here. */
export type CallbackOutcome =
  | { readonly tool: string; readonly callId: string; readonly answeredBy: 'tool' }
  | {
      readonly tool: string;
      readonly callId: string;
      readonly answeredBy: 'dispatcher';
      readonly answer: TaskAnswer;
    };

/** A callback call through the dispatcher ({@link createCallbackDispatch}). Never throws. */
export type CallbackDispatch = (
  envelope: unknown,
  taskToken: string,
  deadline: Deadline,
) => Promise<CallbackOutcome>;

/** What {@link createCallbackDispatch} is built from. */
export interface CallbackDispatchOptions {
  /** The dispatcher's core (functions/dispatcher/dispatch.ts, `createDispatchCore`): the same checks as a synchronous call. */
  readonly core: DispatchCore;
  readonly handOff: ToolHandOff;
  /** Answers the token of a call that ends in the dispatcher. */
  readonly responder: TaskResponder;
  readonly logger: Logger;
}

/**
 * The dispatcher for a call whose Task waits for `taskToken`: the core's checks,
 * then the tool's function started with the token; or, when the call ends here,
 * the token answered with the call's post-call result (an `ok: false` one as a
 * success, so its error code reaches the engine). Only the state machine's plan
 * calls carry a token (lib/scenarios/asl-states/tasks.ts); the entry points'
 * adapters never pass one on.
 */
export function createCallbackDispatch(options: CallbackDispatchOptions): CallbackDispatch {
  const { core, handOff, responder, logger } = options;
  return async (envelope, taskToken, deadline) => {
    const ended = await core(envelope, deadline, undefined, (spec, invocation, signal) =>
      handOff.start(spec, invocation, taskToken, signal),
    );
    if ('handedOff' in ended) return { tool: ended.tool, callId: ended.callId, answeredBy: 'tool' };
    const answer = await answerTask(responder, taskToken, ended, logger);
    return { tool: ended.tool, callId: ended.callId, answeredBy: 'dispatcher', answer };
  };
}
