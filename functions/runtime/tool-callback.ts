/**
 * A tool's function finishing a plan call itself (docs/architecture.md,
 * "Functions a call keeps busy"): the post-call work the synchronous dispatcher
 * would do (functions/runtime/post-call.ts), then the call's task token answered
 * with the result (functions/runtime/task-callback.ts).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Deadline } from './deadline';
import type { ToolInvocation } from './invocation';
import { logger as platformLogger } from './logger';
import { createPostCall, type PostCall, toolResultLogFields } from './post-call';
import type { ToolResult } from './result';
import { resultInlineBytes } from './result-limits';
import type { VendedSessions } from './secrets/vended';
import { RUN_DATA_SESSION } from './secrets/vended';
import type { ToolSpec } from './spec';
import { answerTask, isDuplicateDelivery, stepFunctionsResponder, type TaskResponder } from './task-callback';

/** What a tool's function finishes a callback call with. */
export interface CallbackServices {
  /** The post-call work: redaction, then the claim-check into the call's run workspace, or the bound. */
  readonly postCall: PostCall;
  /** Answers the call's task token. */
  readonly responder: TaskResponder;
  readonly logger: Logger;
}

/**
 * Most milliseconds kept back from a callback call's tool for its post-call work
 * and its answer: 5 s, or a tenth of the call's budget when that is less. A tool
 * that runs to its deadline still leaves its function the time to claim-check
 * and answer, rather than ending at the Task's timeout.
 */
export const CALLBACK_RESERVE_MAX_MS = 5_000;

/** Milliseconds a callback call of `budgetMs` keeps for its post-call work ({@link CALLBACK_RESERVE_MAX_MS}). */
export function callbackReserveMs(budgetMs: number): number {
  return Math.min(CALLBACK_RESERVE_MAX_MS, Math.floor(budgetMs / 10));
}

/**
 * A deployed tool function's callback services, from its environment (set by
 * lib/tool-function.ts): the claim-check writes to `RUN_BUCKET` with the run-data
 * session the dispatcher vended for the call's tenant (`etp:runs`; the tool's
 * role has no right of its own there), results fit `RESULT_INLINE_BYTES` as the
 * dispatcher's do, and tokens are answered through Step Functions (its client and
 * `@aws-sdk/client-sfn` loaded on the first callback call).
 */
export function callbackServicesFromEnvironment(vended: VendedSessions): CallbackServices {
  const { SFNClient } = require('@aws-sdk/client-sfn') as typeof import('@aws-sdk/client-sfn');
  const { awsRequestHandler } = require('./aws/http-timeouts') as typeof import('./aws/http-timeouts');
  const bucket = process.env.RUN_BUCKET;
  const inlineResultBytes = resultInlineBytes();
  const workspaces = bucket
    ? (require('./workspace-s3') as typeof import('./workspace-s3')).s3WorkspaceProvider(
        bucket,
        undefined,
        (tenant) => vended.credentials(tenant, RUN_DATA_SESSION),
      )
    : undefined;
  return {
    postCall: createPostCall({
      logger: platformLogger,
      maxResultBytes: inlineResultBytes,
      ...(workspaces ? { workspaces, inlineResultBytes } : {}),
    }),
    responder: stepFunctionsResponder(new SFNClient({ requestHandler: awsRequestHandler() })),
    logger: platformLogger,
  };
}

/**
 * Finishes a callback call: the post-call work on `result` (the tool's
 * `visibleOutputKeys` kept), the `tool result` log line the dispatcher writes for
 * a synchronous call, and the token answered (an `ok: false` result as a success
 * too). A write tool's duplicate delivery of a call still running is not answered:
 * the running one will ({@link isDuplicateDelivery}). Never throws.
 *
 * @param invocation - the narrowed call; undefined when the invocation was malformed (no workspace then).
 * @returns the result as sent.
 */
export async function finishCallback(
  services: CallbackServices,
  tool: Pick<ToolSpec, 'name' | 'visibleOutputKeys'>,
  invocation: ToolInvocation | undefined,
  token: string,
  result: ToolResult,
  deadline: Deadline,
): Promise<ToolResult> {
  if (isDuplicateDelivery(result)) {
    services.logger.warn('duplicate delivery of a running call: not answered', {
      tool: tool.name,
      callId: result.callId,
    });
    return result;
  }
  const scope = invocation
    ? {
        tenant: invocation.tenant,
        runId: invocation.runId,
        scenario: invocation.scenario,
        ...(invocation.account === undefined ? {} : { account: invocation.account }),
      }
    : undefined;
  const finished = await services.postCall(result, scope, deadline, tool.visibleOutputKeys);
  services.logger.info('tool result', toolResultLogFields(finished));
  await answerTask(services.responder, token, finished, services.logger);
  return finished;
}
