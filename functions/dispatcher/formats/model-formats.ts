/** The registry in the model APIs' tool formats: Bedrock Converse `toolConfig`, OpenAI and Anthropic `tools`. */
import type { ToolSpec } from '../../runtime/spec';
import { assertName, bareInputSchema, MODEL_TOOL_NAME } from './format-names';

/** Bedrock Converse `toolConfig` (Bedrock Runtime API reference, "ToolConfiguration"). */
export interface ConverseToolConfig {
  readonly tools: readonly {
    readonly toolSpec: {
      readonly name: string;
      readonly description: string;
      readonly inputSchema: { readonly json: Record<string, unknown> };
    };
  }[];
}

/** The Converse `toolConfig` of the tools (what an agent level offers the model). */
export function toConverseToolConfig(specs: readonly ToolSpec[]): ConverseToolConfig {
  return {
    tools: specs.map((spec) => {
      assertName(MODEL_TOOL_NAME, spec.name, 'Bedrock Converse');
      return {
        toolSpec: {
          name: spec.name,
          description: spec.description,
          inputSchema: { json: bareInputSchema(spec) },
        },
      };
    }),
  };
}

/**
 * An OpenAI Chat Completions tool (OpenAI API reference, "Chat Completions",
 * `tools[]`). `strict` is false: strict mode needs every property required and
 * no optional ones, which the tools' schemas (defaults, optional filters) are not.
 */
export interface OpenAiTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: Record<string, unknown>;
    readonly strict: false;
  };
}

/** The tools as OpenAI Chat Completions `tools`. */
export function toOpenAiTools(specs: readonly ToolSpec[]): OpenAiTool[] {
  return specs.map((spec) => {
    assertName(MODEL_TOOL_NAME, spec.name, 'OpenAI');
    return {
      type: 'function',
      function: {
        name: spec.name,
        description: spec.description,
        parameters: bareInputSchema(spec),
        strict: false,
      },
    };
  });
}

/** An Anthropic Messages API tool (Anthropic API reference, "Messages", `tools[]`). */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Record<string, unknown>;
}

/** The tools as Anthropic Messages `tools`. */
export function toAnthropicTools(specs: readonly ToolSpec[]): AnthropicTool[] {
  return specs.map((spec) => {
    assertName(MODEL_TOOL_NAME, spec.name, 'Anthropic');
    return { name: spec.name, description: spec.description, input_schema: bareInputSchema(spec) };
  });
}
