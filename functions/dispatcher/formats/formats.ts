/**
 * The one registry (functions/tools/catalog.ts) in each caller's tool format:
 * `etp tools schema --format <format>`, the MCP server's `tools/list`, the
 * AgentCore Gateway target the CDK creates, and the decoding plans of the
 * Bedrock Agents and Gateway adapters all come from here.
 */
import type { ToolSpec } from '../../runtime/spec';
import { toGatewayTool } from './agentcore-format';
import { toBedrockFunctionSchema, toBedrockOpenApi } from './bedrock-agent-format';
import { toMcpTool } from './mcp-format';
import { toAnthropicTools, toConverseToolConfig, toOpenAiTools } from './model-formats';

export * from './agentcore-format';
export * from './bedrock-agent-format';
export * from './format-names';
export * from './mcp-format';
export * from './model-formats';

/** The formats `etp tools schema --format` prints. */
export const TOOL_FORMATS = [
  'mcp',
  'bedrock-agent',
  'bedrock-agent-openapi',
  'agentcore',
  'converse',
  'openai',
  'anthropic',
] as const;

/** One caller's format; see {@link TOOL_FORMATS}. */
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/**
 * The tools in `format`, as the caller takes them: MCP `{ tools }` (a
 * `tools/list` result), Bedrock `functionSchema`, the OpenAPI document,
 * AgentCore `ToolDefinition[]` (a target's inline payload), Converse
 * `toolConfig`, OpenAI and Anthropic `tools` arrays.
 *
 * @throws ToolFormatError when a format cannot hold the selection (see each exporter).
 */
export function exportTools(format: ToolFormat, specs: readonly ToolSpec[]): unknown {
  switch (format) {
    case 'mcp':
      return { tools: specs.map(toMcpTool) };
    case 'bedrock-agent':
      return toBedrockFunctionSchema(specs);
    case 'bedrock-agent-openapi':
      return toBedrockOpenApi(specs);
    case 'agentcore':
      return specs.map(toGatewayTool);
    case 'converse':
      return toConverseToolConfig(specs);
    case 'openai':
      return toOpenAiTools(specs);
    case 'anthropic':
      return toAnthropicTools(specs);
  }
}
