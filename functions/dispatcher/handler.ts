import { LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
import { deadlineIn } from '../runtime/deadline';
import { resultMaxBytes } from '../runtime/harness';
import { logger } from '../runtime/logger';
import type { ToolResult } from '../runtime/result';
import { FILE_TOOLS, toolCatalog } from '../tools/catalog';
import { finishTool } from '../tools/files/finish';
import { createDispatcher } from './dispatch';
import { LambdaToolInvoker, toolFunctionsFromEnvironment } from './lambda-invoker';
import { levelWhitelistsFromEnvironment } from './levels';

// Read once per container; a missing variable fails the init, loudly.
const dispatch = createDispatcher({
  registry: toolCatalog,
  whitelists: levelWhitelistsFromEnvironment(),
  fileTools: FILE_TOOLS,
  invoker: new LambdaToolInvoker(new LambdaClient({}), toolFunctionsFromEnvironment()),
  localTools: [finishTool],
  services: { logger },
  logger,
  maxResultBytes: resultMaxBytes(),
  requireLevel: true,
});

/**
 * The dispatcher Lambda: takes the native envelope (DESIGN.md, "Dispatcher
 * envelope") and returns a ToolResult, `ok: false` for every failure.
 */
export async function handler(event: unknown, context: Context): Promise<ToolResult> {
  logger.addContext(context);
  return dispatch(event, deadlineIn(context.getRemainingTimeInMillis()));
}
