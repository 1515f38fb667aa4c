import { LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
import { deadlineIn } from '../runtime/deadline';
import { resultMaxBytes } from '../runtime/harness';
import { logger } from '../runtime/logger';
import type { ToolResult } from '../runtime/result';
import { resultInlineBytes } from '../runtime/result-limits';
import { s3WorkspaceProvider } from '../runtime/workspace-s3';
import { toolCatalog } from '../tools/catalog';
import { bundledDispatcherConfig, toolFunctionName } from './config';
import { createDispatcher } from './dispatch';
import { LambdaToolInvoker } from './lambda-invoker';

// Read once per container; a missing or invalid configuration fails the init, loudly.
const config = bundledDispatcherConfig();
// The run workspaces' bucket (the CDK sets it); without it results are shrunk, not claim-checked.
const runBucket = process.env.RUN_BUCKET;
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
  ...(runBucket
    ? { workspaces: s3WorkspaceProvider(runBucket), inlineResultBytes: resultInlineBytes() }
    : {}),
});

/**
 * The dispatcher Lambda: takes the native envelope (DESIGN.md, "Dispatcher
 * envelope") and returns a ToolResult, `ok: false` for every failure.
 */
export async function handler(event: unknown, context: Context): Promise<ToolResult> {
  logger.addContext(context);
  return dispatch(event, deadlineIn(context.getRemainingTimeInMillis()));
}
