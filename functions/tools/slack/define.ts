import type { ToolContext } from '../../runtime/context';
import {
  defineTool,
  type Tool,
  type ToolArgs,
  type ToolInputSchema,
  type ToolOutput,
  type ToolSpec,
} from '../../runtime/spec';
import { mapSlackError } from './errors';

/**
 * `defineTool` for a Slack tool: the handler plus Slack's error table as the
 * tool's `mapError`, set here once for every Slack tool.
 *
 * @example export const slackPostMessageTool = defineSlackTool(slackPostMessageSpec, async (ctx, args) => …);
 */
export function defineSlackTool<S extends ToolInputSchema>(
  spec: ToolSpec<S>,
  handler: (ctx: ToolContext, args: ToolArgs<S>) => Promise<ToolOutput>,
): Tool<S> {
  return Object.defineProperty(defineTool(spec, handler), 'mapError', {
    value: mapSlackError,
    enumerable: true,
  });
}
