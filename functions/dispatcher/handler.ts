import { LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
import { deadlineIn } from '../runtime/deadline';
import { resultMaxBytes } from '../runtime/harness';
import { logger } from '../runtime/logger';
import type { ToolResult } from '../runtime/result';
import { toolCatalog } from '../tools/catalog';
import { type EntryPointResponse, routeEntryPoint } from './adapters/route';
import { bundledDispatcherConfig, toolFunctionName } from './config';
import { createDispatcher } from './dispatch';
import { LambdaToolInvoker } from './lambda-invoker';

// Read once per container; a missing or invalid configuration fails the init, loudly.
const config = bundledDispatcherConfig();
const dispatch = createDispatcher({
  catalog: toolCatalog,
  whitelists: config.scenarios,
  invoker: new LambdaToolInvoker(new LambdaClient({}), (tool) =>
    toolFunctionName(config.toolFunctionNamePrefix, tool),
  ),
  services: { logger },
  logger,
  maxResultBytes: resultMaxBytes(),
  requireLevel: true,
});

/**
 * The dispatcher Lambda: takes the native envelope (DESIGN.md, "Dispatcher
 * envelope") and returns a ToolResult, `ok: false` for every failure; through
 * the adapters at its edge (functions/dispatcher/adapters/route.ts), also
 * AgentCore Gateway tool calls, Bedrock Agents action-group events and MCP
 * requests of its function URL, each answered in its caller's format.
 */
export async function handler(event: unknown, context: Context): Promise<ToolResult | EntryPointResponse> {
  logger.addContext(context);
  const deadline = deadlineIn(context.getRemainingTimeInMillis());
  return routeEntryPoint(event, context, deadline, {
    catalog: toolCatalog,
    dispatch,
    profiles: config.accessProfiles,
    bindings: config.entryPoints,
  });
}
