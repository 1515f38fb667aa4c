import { LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import type { Context } from 'aws-lambda';
import { awsRequestHandler } from '../runtime/aws/http-timeouts';
import { deadlineIn } from '../runtime/deadline';
import { logger } from '../runtime/logger';
import type { ToolResult } from '../runtime/result';
import { resultInlineBytes, resultMaxBytes } from '../runtime/result-limits';
import { runDataCredentials } from '../runtime/run-data-sessions';
import {
  parseSecretReaderRoles,
  SECRET_READER_ROLES_ENV,
  TenantSecretSessions,
} from '../runtime/secrets/tenant-scope';
import { CredentialVendor, RUN_DATA_SESSION } from '../runtime/secrets/vended';
import { stepFunctionsResponder, type TaskResponder } from '../runtime/task-callback';
import type { WorkspaceProvider } from '../runtime/workspace';
import { s3WorkspaceProvider } from '../runtime/workspace-s3';
import { toolCatalog } from '../tools/catalog';
import { type EntryPointResponse, routeEntryPoint } from './adapters/route';
import {
  type CallbackDispatch,
  type CallbackOutcome,
  createCallbackDispatch,
  LambdaEventHandOff,
  type ToolHandOff,
  VendingHandOff,
} from './callback';
import { bundledDispatcherConfig, type DispatcherConfig, toolFunctionName } from './config';
import { createDispatchCore, type Dispatch, type DispatcherOptions } from './dispatch';
import { LambdaToolInvoker } from './lambda-invoker';
import { type RunWorkspaceBucket, VendingToolInvoker } from './vending-invoker';

/** The deployed dispatcher: its synchronous core and its callback dispatch (functions/dispatcher/callback.ts). */
export interface DeployedDispatcher {
  readonly dispatch: Dispatch;
  readonly callback: CallbackDispatch;
}

/**
 * The deployed dispatcher's wiring: the catalog, the configuration's whitelists,
 * tool functions invoked by name through `lambda`, and — when `workspaces` is
 * given — file tools on the run workspaces and the claim-check of results over
 * the inline budget (`RESULT_INLINE_BYTES`); without it results are shrunk to
 * `RESULT_MAX_BYTES`. Tools that list secrets get their call's tenant-scoped reader
 * sessions in the invocation (`SECRET_READER_ROLES`: the dispatcher vends them).
 * A plan call with a task token is started asynchronously (`Event`) with a
 * run-data session narrowed to its run's `results/*` for its tool's claim-check,
 * and answered through `responder` when it ends in the dispatcher.
 * Exported so the end-to-end tests run this very wiring with
 * a local-directory workspace in place of the bucket.
 */
export function createDeployedDispatcher(
  config: DispatcherConfig,
  lambda: LambdaClient,
  workspaces: WorkspaceProvider | undefined,
  responder: TaskResponder,
): DeployedDispatcher {
  const nameOf = (tool: string) => toolFunctionName(config.toolFunctionNamePrefix, tool);
  const vending = callVendor();
  const functions = new LambdaToolInvoker(lambda, nameOf);
  const options: DispatcherOptions = {
    catalog: toolCatalog,
    whitelists: config.scenarios,
    pins: config.pins,
    accountLevels: config.accountLevels,
    invoker: vending ? new VendingToolInvoker(functions, vending.vendor, vending.workspace) : functions,
    services: { logger },
    logger,
    maxResultBytes: resultMaxBytes(),
    requireLevel: true,
    ...(workspaces ? { workspaces, inlineResultBytes: resultInlineBytes() } : {}),
  };
  const core = createDispatchCore(options);
  const events = new LambdaEventHandOff(lambda, nameOf);
  const handOff: ToolHandOff = vending
    ? new VendingHandOff(events, vending.vendor, vending.workspace)
    : events;
  return {
    // Without a hand-off the core always ends with a result.
    dispatch: async (envelope, deadline, scope) => (await core(envelope, deadline, scope)) as ToolResult,
    callback: createCallbackDispatch({ core, handOff, responder, logger }),
  };
}

/**
 * The vendor of each call's tenant-scoped sessions (vending-invoker.ts), from the
 * roles the CDK names in `SECRET_READER_ROLES`: the secrets' reader roles, the
 * records role, and the run-data role (`etp:runs`), which with `RUN_BUCKET` gives
 * workspace tools and callback calls (whose tool claim-checks its own result) a
 * session narrowed to the call's run. Without the variable (a local wiring with
 * `env` references): none, the functions are invoked as they are.
 *
 * @throws Error when `SECRET_READER_ROLES` is malformed: the container's init fails loudly.
 */
function callVendor(): { vendor: CredentialVendor; workspace?: RunWorkspaceBucket } | undefined {
  const roles = process.env[SECRET_READER_ROLES_ENV];
  if (!roles) return undefined;
  const parsed = parseSecretReaderRoles(roles);
  // Workspace tools, and callback calls' claim-checks, get a run-data session narrowed to the call's run.
  const runDataRole = Object.hasOwn(parsed, RUN_DATA_SESSION) ? parsed[RUN_DATA_SESSION] : undefined;
  const bucket = process.env.RUN_BUCKET;
  const vendor = new CredentialVendor(new TenantSecretSessions(parsed));
  return runDataRole && bucket
    ? { vendor, workspace: { bucket, partition: runDataRole.split(':')[1] ?? 'aws' } }
    : { vendor };
}

// Read once per container; a missing or invalid configuration fails the init, loudly.
// The run workspaces' bucket (RUN_BUCKET) is set by the CDK.
const config = bundledDispatcherConfig();
// Each workspace is opened with its tenant's run-data session (RUN_DATA_ROLE, run-data-sessions.ts).
const runBucket = process.env.RUN_BUCKET;
const { dispatch, callback } = createDeployedDispatcher(
  config,
  new LambdaClient({}),
  runBucket ? s3WorkspaceProvider(runBucket, undefined, runDataCredentials()) : undefined,
  stepFunctionsResponder(new SFNClient({ requestHandler: awsRequestHandler() })),
);

/**
 * The dispatcher Lambda: takes the native envelope (docs/design.md, "Dispatcher
 * envelope") and returns a ToolResult, `ok: false` for every failure; through
 * the adapters at its edge (functions/dispatcher/adapters/route.ts), also
 * AgentCore Gateway tool calls, Bedrock Agents action-group events and MCP
 * requests of its function URL, each answered in its caller's format; a plan
 * call carrying its task token is handed to its tool's function (./callback.ts),
 * the state machine reading no return value.
 */
export async function handler(
  event: unknown,
  context: Context,
): Promise<ToolResult | EntryPointResponse | CallbackOutcome> {
  logger.addContext(context);
  const deadline = deadlineIn(context.getRemainingTimeInMillis());
  try {
    return await routeEntryPoint(event, context, deadline, {
      catalog: toolCatalog,
      dispatch,
      profiles: config.accessProfiles,
      bindings: config.entryPoints,
      callback,
    });
  } finally {
    deadline.dispose?.();
  }
}
