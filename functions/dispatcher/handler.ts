import { LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
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
import type { WorkspaceProvider } from '../runtime/workspace';
import { s3WorkspaceProvider } from '../runtime/workspace-s3';
import { toolCatalog } from '../tools/catalog';
import { type EntryPointResponse, routeEntryPoint } from './adapters/route';
import { bundledDispatcherConfig, type DispatcherConfig, toolFunctionName } from './config';
import { createDispatcher, type Dispatch } from './dispatch';
import type { ToolInvoker } from './invoker';
import { LambdaToolInvoker } from './lambda-invoker';
import { VendingToolInvoker } from './vending-invoker';

/**
 * The deployed dispatcher's wiring: the catalog, the configuration's whitelists,
 * tool functions invoked by name through `lambda`, and — when `workspaces` is
 * given — file tools on the run workspaces and the claim-check of results over
 * the inline budget (`RESULT_INLINE_BYTES`); without it results are shrunk to
 * `RESULT_MAX_BYTES`. Tools that list secrets get their call's tenant-scoped reader
 * sessions in the invocation (`SECRET_READER_ROLES`: the dispatcher vends them).
 * Exported so the end-to-end tests run this very wiring with
 * a local-directory workspace in place of the bucket.
 */
export function createDeployedDispatcher(
  config: DispatcherConfig,
  lambda: LambdaClient,
  workspaces?: WorkspaceProvider,
): Dispatch {
  const functions = new LambdaToolInvoker(lambda, (tool) =>
    toolFunctionName(config.toolFunctionNamePrefix, tool),
  );
  return createDispatcher({
    catalog: toolCatalog,
    whitelists: config.scenarios,
    pins: config.pins,
    accountLevels: config.accountLevels,
    invoker: vendingInvoker(functions),
    services: { logger },
    logger,
    maxResultBytes: resultMaxBytes(),
    requireLevel: true,
    ...(workspaces ? { workspaces, inlineResultBytes: resultInlineBytes() } : {}),
  });
}

/**
 * With `SECRET_READER_ROLES` (set by the CDK): the invoker that vends each call's
 * tenant-scoped reader sessions to the tool (vending-invoker.ts). Without it (a
 * local wiring with `env` references): the functions invoked as they are.
 *
 * @throws Error when `SECRET_READER_ROLES` is malformed: the container's init fails loudly.
 */
function vendingInvoker(functions: ToolInvoker): ToolInvoker {
  const roles = process.env[SECRET_READER_ROLES_ENV];
  if (!roles) return functions;
  const parsed = parseSecretReaderRoles(roles);
  const sessions = new TenantSecretSessions(parsed);
  // Workspace tools get a run-data session narrowed to their files of the call's run.
  const runDataRole = Object.hasOwn(parsed, RUN_DATA_SESSION) ? parsed[RUN_DATA_SESSION] : undefined;
  const bucket = process.env.RUN_BUCKET;
  const workspace =
    runDataRole && bucket ? { bucket, partition: runDataRole.split(':')[1] ?? 'aws' } : undefined;
  return new VendingToolInvoker(functions, new CredentialVendor(sessions), workspace);
}

// Read once per container; a missing or invalid configuration fails the init, loudly.
// The run workspaces' bucket (RUN_BUCKET) is set by the CDK.
const config = bundledDispatcherConfig();
// Each workspace is opened with its tenant's run-data session (RUN_DATA_ROLE, run-data-sessions.ts).
const runBucket = process.env.RUN_BUCKET;
const dispatch = createDeployedDispatcher(
  config,
  new LambdaClient({}),
  runBucket ? s3WorkspaceProvider(runBucket, undefined, runDataCredentials()) : undefined,
);

/**
 * The dispatcher Lambda: takes the native envelope (docs/design.md, "Dispatcher
 * envelope") and returns a ToolResult, `ok: false` for every failure; through
 * the adapters at its edge (functions/dispatcher/adapters/route.ts), also
 * AgentCore Gateway tool calls, Bedrock Agents action-group events and MCP
 * requests of its function URL, each answered in its caller's format.
 */
export async function handler(event: unknown, context: Context): Promise<ToolResult | EntryPointResponse> {
  logger.addContext(context);
  const deadline = deadlineIn(context.getRemainingTimeInMillis());
  try {
    return await routeEntryPoint(event, context, deadline, {
      catalog: toolCatalog,
      dispatch,
      profiles: config.accessProfiles,
      bindings: config.entryPoints,
    });
  } finally {
    deadline.dispose?.();
  }
}
