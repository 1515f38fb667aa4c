/**
 * The platform's dispatcher run in this process for local runs and `etp tools invoke`: every tool
 * in process, secret references from a table or the embedded store, and the callback dispatch of
 * plan calls answered on local task tokens.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type CallbackDispatch, createCallbackDispatch } from '../../functions/dispatcher/callback';
import {
  createDispatchCore,
  type Dispatch,
  type DispatcherOptions,
} from '../../functions/dispatcher/dispatch';
import type { ToolInvoker } from '../../functions/dispatcher/invoker';
import { defaultLocalDir } from '../../functions/runtime/local-workspace-dir';
import { logger as platformLogger } from '../../functions/runtime/logger';
import { createPostCall } from '../../functions/runtime/post-call';
import type { ToolResult } from '../../functions/runtime/result';
import {
  FULL_RESULT_MAX_BYTES,
  resultInlineBytes,
  resultMaxBytes,
} from '../../functions/runtime/result-limits';
import { DynamoDbSecretReferenceStore } from '../../functions/runtime/secrets/dynamodb-store';
import { InMemorySecretReferenceStore } from '../../functions/runtime/secrets/memory-store';
import type { SecretReferenceStore } from '../../functions/runtime/secrets/reference';
import { SecretResolver } from '../../functions/runtime/secrets/resolver';
import { toolHostServices } from '../../functions/runtime/tool-host';
import { toolCatalog } from '../../functions/tools/catalog';
import { inlineResultBudget } from '../../lib/scenarios/budget';
import { accountLevels, levelWhitelists } from '../../lib/scenarios/level-tables';
import { levelPins } from '../../lib/scenarios/loader';
import type { Scenario } from '../../lib/scenarios/model';
import { InProcessToolInvoker } from './in-process-invoker';
import { callbackServices, InProcessHandOff, LocalTaskTokens } from './local-callbacks';
import { localWorkspaceProvider } from './local-workspace';

/**
 * The dispatcher ARN written into a locally run definition. Never called: every
 * Task state is answered in this process.
 */
export const LOCAL_DISPATCHER_ARN = 'arn:aws:lambda:local:000000000000:function:etp-dispatcher';

/**
 * Time budget of one local dispatcher call, in ms: 900 s, the longest a Lambda
 * function may run (AWS docs, "Lambda quotas"), so a local call is never cut
 * shorter than a deployed one. Tools in their own function get their spec's timeout.
 */
export const LOCAL_CALL_BUDGET_MS = 900_000;

/**
 * Where a local run reads secret references: the DynamoDB table when one is
 * named (its endpoint from the SDK's `AWS_ENDPOINT_URL_DYNAMODB`, e.g. a local
 * dynalite), else the embedded default store (`EMBEDDED_DEFAULT_REFERENCES`).
 */
export function localSecretReferences(table?: string): SecretReferenceStore {
  return table ? new DynamoDbSecretReferenceStore(table) : new InMemorySecretReferenceStore();
}

/** What {@link createLocalDispatcher} wires. */
export interface LocalDispatcherOptions {
  /** Secret references of the tenants, see {@link localSecretReferences}. */
  readonly references: SecretReferenceStore;
  /** Scenarios whose levels' `intra_tools` are enforced (`loadScenarios`). */
  readonly scenarios: readonly Scenario[];
  /** Whether every call must name its scenario and level: true for scenario runs, false for `etp tools invoke`. */
  readonly requireLevel: boolean;
  /** @default the platform's redacting Powertools logger */
  readonly logger?: Logger;
  /**
   * Base directory of the runs' workspaces (the local bucket): file tools and
   * claim-checked results go to `<dir>/runs/<tenant>/<scenario>/<runId>/`.
   * @default defaultLocalDir() (`ETP_LOCAL_DIR`, else <OS temp dir>/etp-local)
   */
  readonly workspaceDir?: string;
  /**
   * Told how long each function tool's invocation took (its module's load
   * included, as a function's init would be), in ms: the scenario bench counts
   * the functions a call keeps busy with it. @default none
   */
  readonly onToolInvoked?: (callId: string, ms: number) => void;
}

/**
 * A local dispatcher: the {@link Dispatch} of synchronous calls, and the callback
 * dispatch of plan calls whose Tasks wait for their tokens, answered on `tokens`
 * (bin/local/local-callbacks.ts).
 */
export type LocalDispatcher = Dispatch & {
  readonly callback: CallbackDispatch;
  readonly tokens: LocalTaskTokens;
};

/**
 * The deployed dispatcher's core with every tool run in this process
 * (`InProcessToolInvoker`, file tools in the dispatcher as deployed) and a
 * local-directory workspace in place of the bucket. AWS tools
 * fall back to the default credential chain when the tenant has no `aws_*`
 * secret, as a developer expects of a local command; deployed functions never do.
 * Its `callback` runs a plan call as deployed: the checks, then the tool started
 * without being awaited and finished as its function finishes it (the post-call
 * work, then its task token answered).
 *
 * @returns a {@link LocalDispatcher} that never throws: every failure is an `ok: false` result.
 */
export function createLocalDispatcher(options: LocalDispatcherOptions): LocalDispatcher {
  const logger = options.logger ?? platformLogger;
  const maxResultBytes = resultMaxBytes();
  const services = toolHostServices(new SecretResolver(options.references), {
    logger,
    awsFallbackToDefaultChain: true,
  });
  // Tools return their whole result, as deployed: the dispatcher (or the tool, for a plan call) claim-checks what is too large.
  const tools = new InProcessToolInvoker(toolCatalog, services, FULL_RESULT_MAX_BYTES);
  const dispatcherOptions: DispatcherOptions = {
    catalog: toolCatalog,
    whitelists: levelWhitelists(options.scenarios),
    pins: levelPins(options.scenarios),
    accountLevels: accountLevels(options.scenarios),
    invoker: timedInvoker(tools, options.onToolInvoked),
    services,
    logger,
    maxResultBytes,
    requireLevel: options.requireLevel,
    workspaces: localWorkspaceProvider(options.workspaceDir ?? defaultLocalDir()),
    // As deployed: the smaller of the configured budget and the scenarios' (lib/scenarios/budget.ts).
    inlineResultBytes: Math.min(resultInlineBytes(), inlineResultBudget(options.scenarios, maxResultBytes)),
  };
  const core = createDispatchCore(dispatcherOptions);
  const tokens = new LocalTaskTokens();
  const handOff = new InProcessHandOff(
    tools,
    // The same post-call work as the dispatcher's: a tool's function is deployed with the same budget.
    callbackServices({ postCall: createPostCall(dispatcherOptions), tokens, logger }),
    LOCAL_CALL_BUDGET_MS,
    options.onToolInvoked,
  );
  // Without a hand-off the core always ends with a result.
  const dispatch: Dispatch = async (envelope, deadline, scope) =>
    (await core(envelope, deadline, scope)) as ToolResult;
  return Object.assign(dispatch, {
    callback: createCallbackDispatch({ core, handOff, responder: tokens, logger }),
    tokens,
  });
}

/**
 * The callback route of a plain {@link Dispatch} (a test's stand-in dispatcher):
 * it answers each token with its result, as the dispatcher answers a call that
 * ends in it.
 */
export function answeringDispatch(dispatch: Dispatch, tokens: LocalTaskTokens): CallbackDispatch {
  return async (envelope, taskToken, deadline) => {
    const result = await dispatch(envelope, deadline);
    await tokens.succeed(taskToken, result);
    return { tool: result.tool, callId: result.callId, answeredBy: 'dispatcher', answer: 'succeeded' };
  };
}

/** `invoker`, telling `onInvoked` how long each invocation took. */
function timedInvoker(invoker: ToolInvoker, onInvoked?: (callId: string, ms: number) => void): ToolInvoker {
  if (!onInvoked) return invoker;
  return {
    async invoke(spec, invocation, signal) {
      const started = performance.now();
      try {
        return await invoker.invoke(spec, invocation, signal);
      } finally {
        onInvoked(invocation.callId, performance.now() - started);
      }
    },
  };
}
