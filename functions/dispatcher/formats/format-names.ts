/**
 * The name and size rules every tool format checks, the error a format that
 * cannot hold a selection throws, and the bare input schema model APIs take.
 */
import { type ToolSpec, toJsonSchema } from '../../runtime/spec';

/**
 * Tool names OpenAI, Anthropic and the Bedrock Converse API accept:
 * `^[a-zA-Z0-9_-]{1,64}$` (OpenAI API reference, "Chat Completions: tools
 * function.name"; Anthropic API reference, "Messages: tools.name"; Bedrock
 * API reference, "ToolSpecification": name). Every registry name (snake_case,
 * at most 64) fits; exporters check anyway, so a future name cannot silently
 * produce a rejected definition.
 */
export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Bedrock Agents function names and parameter names (Bedrock API reference, "Function": `([0-9a-zA-Z][_-]?){1,100}`). */
export const BEDROCK_FUNCTION_NAME = /^([0-9a-zA-Z][_-]?){1,100}$/;

/** Longest Bedrock Agents function description (Bedrock API reference, "Function": 1-1200). */
export const BEDROCK_FUNCTION_DESCRIPTION_MAX = 1200;

/** Longest Bedrock Agents parameter description (Bedrock API reference, "ParameterDetail": 1-500). */
export const BEDROCK_PARAMETER_DESCRIPTION_MAX = 500;

/**
 * Most API operations (and functions) in one action group: "An action group can
 * contain up to 11 API operations" (Bedrock user guide, "Configure Lambda
 * functions to send information that an Amazon Bedrock agent elicits from the user").
 */
export const BEDROCK_ACTION_GROUP_MAX_OPERATIONS = 11;

/** MCP tool names (MCP specification 2025-11-25, "Tools", Tool names: 1-128 of `A-Za-z0-9_-.`). */
export const MCP_TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** The error a format cannot express the selected tools in (an operator's usage error). */
export class ToolFormatError extends Error {
  override readonly name = 'ToolFormatError';
}

export function assertName(pattern: RegExp, name: string, format: string): void {
  if (!pattern.test(name)) {
    throw new ToolFormatError(
      `Tool "${name}" cannot be exported to ${format}: its name must match ${pattern}`,
    );
  }
}

/** The input schema without `$schema`: model APIs take the bare object schema. */
export function bareInputSchema(spec: ToolSpec): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = toJsonSchema(spec.inputSchema);
  return schema;
}

// ---------------------------------------------------------------- MCP
