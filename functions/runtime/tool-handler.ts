import type { Context } from 'aws-lambda';
import { deadlineIn } from './deadline';
import { runTool } from './harness';
import { assertToolInvocation } from './invocation';
import { logger } from './logger';
import { normalizeError } from './normalize-error';
import { failureResult, type ToolResult } from './result';
import { DynamoDbSecretReferenceStore } from './secrets/dynamodb-store';
import { SecretResolver } from './secrets/resolver';
import type { Tool } from './spec';

/**
 * The Lambda handler of a tool's own function. Reads `SECRET_REFS_TABLE` once at
 * load time and fails fast when it is missing; each call is narrowed, run by the
 * harness and answered with a ToolResult (never an exception).
 *
 * @example
 * // functions/tools/aws/ec2-inventory.ts
 * export const handler = createToolHandler(ec2InventoryTool);
 */
export function createToolHandler(tool: Tool): (event: unknown, context: Context) => Promise<ToolResult> {
  const table = process.env.SECRET_REFS_TABLE;
  if (!table) throw new Error(`SECRET_REFS_TABLE is not set for the ${tool.name} function`);
  const services = { secrets: new SecretResolver(new DynamoDbSecretReferenceStore(table)), logger };

  return async (event, context) => {
    logger.addContext(context);
    try {
      assertToolInvocation(event);
      return await runTool(tool, event, deadlineIn(context.getRemainingTimeInMillis()), services);
    } catch (err) {
      const callId = (event as { callId?: unknown } | null)?.callId;
      return failureResult(tool.name, typeof callId === 'string' ? callId : 'unknown', normalizeError(tool.name, err), 0);
    }
  };
}
