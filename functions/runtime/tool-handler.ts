import type { Context } from 'aws-lambda';
import type { ToolContextServices } from './context';
import { deadlineIn } from './deadline';
import { runTool } from './harness';
import { assertToolInvocation } from './invocation';
import { logger } from './logger';
import { normalizeError } from './normalize-error';
import { failureResult, type ToolResult } from './result';
import { toolResultMaxBytes } from './result-limits';
import { DynamoDbSecretReferenceStore } from './secrets/dynamodb-store';
import { SecretResolver } from './secrets/resolver';
import type { Tool } from './spec';
import { toolHostServices } from './tool-host';

/** Container-level services of a tool function, built once from its environment. */
function servicesFromEnvironment(toolName: string): ToolContextServices {
  const table = process.env.SECRET_REFS_TABLE;
  if (!table) throw new Error(`SECRET_REFS_TABLE is not set for the ${toolName} function`);
  return toolHostServices(new SecretResolver(new DynamoDbSecretReferenceStore(table)));
}

/**
 * The Lambda handler of a tool's own function. Its services (the secret resolver
 * on `SECRET_REFS_TABLE`) are built once per container, on the first call rather
 * than at import so the CLI and tests can import the tool module; a missing
 * variable fails that call loudly (a Lambda error the dispatcher reports as
 * `internal_error`). Each call is narrowed, run by the harness and answered with
 * a ToolResult.
 *
 * @example
 * // functions/tools/aws/ec2-inventory.ts
 * export const handler = createToolHandler(ec2InventoryTool);
 */
export function createToolHandler(tool: Tool): (event: unknown, context: Context) => Promise<ToolResult> {
  let services: ToolContextServices | undefined;
  return async (event, context) => {
    services ??= servicesFromEnvironment(tool.name);
    logger.addContext(context);
    try {
      assertToolInvocation(event);
      // Bounded at TOOL_RESULT_MAX_BYTES: the dispatcher claim-checks what does not fit the state.
      return await runTool(
        tool,
        event,
        deadlineIn(context.getRemainingTimeInMillis()),
        services,
        toolResultMaxBytes(),
      );
    } catch (err) {
      const callId = (event as { callId?: unknown } | null)?.callId;
      return failureResult(
        tool.name,
        typeof callId === 'string' ? callId : 'unknown',
        normalizeError(tool.name, err),
        0,
      );
    }
  };
}
