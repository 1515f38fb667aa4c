/**
 * The one registry (functions/tools/catalog.ts) in each caller's tool format:
 * `etp tools schema --format <format>`, the MCP server's `tools/list`, the
 * AgentCore Gateway target the CDK creates, and the decoding plans of the
 * Bedrock Agents and Gateway adapters all come from here.
 */
import { type ToolSpec, toJsonSchema } from '../../runtime/spec';
import {
  type ArgumentPlan,
  clipText,
  constrainedDescription,
  flatPlan,
  type JsonSchema,
  jsonEncodedDescription,
  nestedPlan,
  propertiesOf,
  requiredOf,
} from './json-schema';
import { toolResultJsonSchema } from './tool-result-schema';

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

function assertName(pattern: RegExp, name: string, format: string): void {
  if (!pattern.test(name)) {
    throw new ToolFormatError(
      `Tool "${name}" cannot be exported to ${format}: its name must match ${pattern}`,
    );
  }
}

/** The input schema without `$schema`: model APIs take the bare object schema. */
function bareInputSchema(spec: ToolSpec): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = toJsonSchema(spec.inputSchema);
  return schema;
}

// ---------------------------------------------------------------- MCP

/** MCP tool annotations (MCP specification 2025-11-25, "Tools", ToolAnnotations). */
export interface McpToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** One entry of MCP `tools/list` (MCP specification 2025-11-25, "Tools", Tool). */
export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { readonly type: 'object'; readonly [key: string]: unknown };
  readonly outputSchema: { readonly type: 'object'; readonly [key: string]: unknown };
  readonly annotations: McpToolAnnotations;
}

/**
 * The hints MCP clients use to decide what to confirm, from `sideEffects`:
 * a `none` tool reads only (`readOnlyHint`), so repeating it changes nothing;
 * a `write` tool is taken as possibly destructive and not idempotent across
 * calls (each MCP call is a new call id), so a client asks before running it.
 * Every tool reaches an outside service (AWS, Slack): `openWorldHint`.
 */
export function mcpAnnotations(spec: ToolSpec): McpToolAnnotations {
  const readOnly = spec.sideEffects === 'none';
  return {
    title: titleOf(spec.name),
    readOnlyHint: readOnly,
    destructiveHint: !readOnly,
    idempotentHint: readOnly,
    openWorldHint: true,
  };
}

/**
 * How a word of a tool name is written in a title: service names and acronyms
 * as their owners write them (`aws` → `AWS`, `cloudtrail` → `CloudTrail`).
 * Words not listed are written as they are (lower case) after the first.
 */
export const TITLE_WORDS: Readonly<Record<string, string>> = {
  aws: 'AWS',
  ec2: 'EC2',
  ebs: 'EBS',
  eips: 'EIPs',
  iam: 'IAM',
  nat: 'NAT',
  rds: 'RDS',
  s3: 'S3',
  cloudtrail: 'CloudTrail',
  slack: 'Slack',
  github: 'GitHub',
  pagerduty: 'PagerDuty',
  hubspot: 'HubSpot',
  crm: 'CRM',
  ats: 'ATS',
  api: 'API',
  id: 'ID',
  url: 'URL',
  mcp: 'MCP',
};

/** `aws_ec2_inventory` → `AWS EC2 inventory`: a display title (MCP `title`). */
export function titleOf(name: string): string {
  const words = name.split('_').map((word) => (Object.hasOwn(TITLE_WORDS, word) ? TITLE_WORDS[word] : word));
  const first = words[0] ?? '';
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ');
}

/**
 * A tool as MCP `tools/list` lists it: the input schema as is (draft 2020-12,
 * MCP's default dialect), the ToolResult as `outputSchema` (a call's
 * `structuredContent` is the ToolResult), annotations from `sideEffects`.
 */
export function toMcpTool(spec: ToolSpec): McpTool {
  assertName(MCP_TOOL_NAME, spec.name, 'MCP');
  return {
    name: spec.name,
    title: titleOf(spec.name),
    description: spec.description,
    inputSchema: toJsonSchema(spec.inputSchema) as McpTool['inputSchema'],
    outputSchema: toolResultJsonSchema() as McpTool['outputSchema'],
    annotations: mcpAnnotations(spec),
  };
}

// ---------------------------------------------------------------- Bedrock Agents

/** A Bedrock Agents parameter (Bedrock API reference, "ParameterDetail"). */
export interface BedrockParameterDetail {
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  readonly description: string;
  readonly required: boolean;
}

/** A Bedrock Agents function (Bedrock API reference, "Function"). */
export interface BedrockFunction {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, BedrockParameterDetail>>;
  /** `ENABLED` for write tools: the agent asks the user before calling one. */
  readonly requireConfirmation: 'ENABLED' | 'DISABLED';
}

/** What `CreateAgentActionGroup` takes as `functionSchema` (Bedrock API reference, "FunctionSchema"). */
export interface BedrockFunctionSchema {
  readonly functions: BedrockFunction[];
}

/**
 * How each argument of a tool travels through Bedrock Agents (function details
 * and the OpenAPI document alike): primitives as typed parameters, everything
 * else as a JSON-encoded string (see `flatPlan`).
 */
export function bedrockPlan(spec: ToolSpec): Record<string, ArgumentPlan> {
  return Object.fromEntries(
    Object.entries(propertiesOf(toJsonSchema(spec.inputSchema))).map(([name, schema]) => [
      name,
      flatPlan(schema),
    ]),
  );
}

function bedrockParameterDescription(schema: JsonSchema, plan: ArgumentPlan): string {
  const text = plan.kind === 'json' ? jsonEncodedDescription(schema) : constrainedDescription(schema);
  return clipText(text || 'See the function description.', BEDROCK_PARAMETER_DESCRIPTION_MAX);
}

/**
 * A tool as a Bedrock Agents function: one flat parameter per top-level
 * argument, primitives typed, arrays, objects and unions as JSON-encoded
 * strings (their descriptions say so and what they hold); constraints Bedrock
 * cannot express are written into the descriptions; descriptions clipped to
 * Bedrock's limits; write tools require the user's confirmation.
 *
 * @throws ToolFormatError when a tool or argument name breaks Bedrock's name pattern.
 */
export function toBedrockFunction(spec: ToolSpec): BedrockFunction {
  assertName(BEDROCK_FUNCTION_NAME, spec.name, 'Bedrock Agents');
  const schema = toJsonSchema(spec.inputSchema);
  const required = new Set(requiredOf(schema));
  const plan = bedrockPlan(spec);
  const parameters: Record<string, BedrockParameterDetail> = {};
  for (const [name, property] of Object.entries(propertiesOf(schema))) {
    assertName(BEDROCK_FUNCTION_NAME, name, `Bedrock Agents (argument of ${spec.name})`);
    const argument = plan[name] ?? { kind: 'json' };
    parameters[name] = {
      type: argument.kind === 'primitive' ? argument.type : 'string',
      description: bedrockParameterDescription(property, argument),
      required: required.has(name),
    };
  }
  return {
    name: spec.name,
    description: clipText(spec.description, BEDROCK_FUNCTION_DESCRIPTION_MAX),
    parameters,
    requireConfirmation: spec.sideEffects === 'write' ? 'ENABLED' : 'DISABLED',
  };
}

function assertActionGroupSize(specs: readonly ToolSpec[]): void {
  if (specs.length > BEDROCK_ACTION_GROUP_MAX_OPERATIONS) {
    throw new ToolFormatError(
      `A Bedrock Agents action group holds at most ${BEDROCK_ACTION_GROUP_MAX_OPERATIONS} functions; ` +
        `${specs.length} tools were selected. Select fewer with --tools or --scenario/--level, ` +
        'and spread the rest over more action groups',
    );
  }
}

/**
 * The `functionSchema` of an action group.
 *
 * @throws ToolFormatError for more than {@link BEDROCK_ACTION_GROUP_MAX_OPERATIONS} tools.
 */
export function toBedrockFunctionSchema(specs: readonly ToolSpec[]): BedrockFunctionSchema {
  assertActionGroupSize(specs);
  return { functions: specs.map(toBedrockFunction) };
}

/** The API path of a tool in the OpenAPI document (and in an API-schema event's `apiPath`). */
export function bedrockApiPath(tool: string): string {
  return `/tools/${tool}`;
}

/**
 * The OpenAPI 3.0 document of an API-schema action group: one `POST
 * /tools/<tool>` per tool, `operationId` the tool name, the request body's
 * properties planned as for function details (Bedrock hands every property value
 * to the Lambda as a string), the ToolResult as the 200 response.
 *
 * @throws ToolFormatError for more than {@link BEDROCK_ACTION_GROUP_MAX_OPERATIONS} tools.
 */
export function toBedrockOpenApi(specs: readonly ToolSpec[]): Record<string, unknown> {
  assertActionGroupSize(specs);
  const paths: Record<string, unknown> = {};
  for (const spec of specs) {
    const fn = toBedrockFunction(spec);
    const properties = Object.fromEntries(
      Object.entries(fn.parameters).map(([name, parameter]) => [
        name,
        { type: parameter.type, description: parameter.description },
      ]),
    );
    const required = Object.entries(fn.parameters)
      .filter(([, parameter]) => parameter.required)
      .map(([name]) => name);
    paths[bedrockApiPath(spec.name)] = {
      post: {
        operationId: spec.name,
        summary: titleOf(spec.name),
        description: fn.description,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
            },
          },
        },
        responses: {
          '200': {
            description: 'The ToolResult (ok true with value, or ok false with a normalized error).',
            content: { 'application/json': { schema: toolResultJsonSchema() } },
          },
        },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: {
      title: 'External Tools Platform',
      version: '1.0.0',
      description: 'Tools of the External Tools Platform; each call returns a ToolResult.',
    },
    paths,
  };
}

// ---------------------------------------------------------------- AgentCore Gateway

/** AgentCore Gateway `SchemaDefinition` (AgentCore Control API reference, "SchemaDefinition"). */
export interface GatewaySchemaDefinition {
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  readonly description?: string;
  readonly items?: GatewaySchemaDefinition;
  readonly properties?: Readonly<Record<string, GatewaySchemaDefinition>>;
  readonly required?: string[];
}

/** AgentCore Gateway `ToolDefinition` of a Lambda target (AgentCore Control API reference, "ToolDefinition"). */
export interface GatewayToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: GatewaySchemaDefinition;
}

/** How each argument of a tool travels through an AgentCore Gateway (see `nestedPlan`). */
export function gatewayPlan(spec: ToolSpec): ArgumentPlan {
  return nestedPlan(toJsonSchema(spec.inputSchema));
}

function gatewaySchema(schema: JsonSchema, plan: ArgumentPlan): GatewaySchemaDefinition {
  switch (plan.kind) {
    case 'primitive':
      return withDescription({ type: plan.type }, constrainedDescription(schema));
    case 'json':
      return { type: 'string', description: jsonEncodedDescription(schema) };
    case 'array':
      return withDescription(
        { type: 'array', items: gatewaySchema(schema.items as JsonSchema, plan.items) },
        constrainedDescription(schema),
      );
    case 'object': {
      const properties = propertiesOf(schema);
      return withDescription(
        {
          type: 'object',
          properties: Object.fromEntries(
            Object.entries(plan.properties).map(([name, property]) => [
              name,
              gatewaySchema(properties[name] ?? {}, property),
            ]),
          ),
          ...(plan.required.length > 0 ? { required: [...plan.required] } : {}),
        },
        constrainedDescription(schema),
      );
    }
  }
}

function withDescription(definition: GatewaySchemaDefinition, description: string): GatewaySchemaDefinition {
  return description ? { ...definition, description } : definition;
}

/**
 * A tool as an AgentCore Gateway Lambda-target tool definition: nested typed
 * properties, unions and open objects as JSON-encoded strings, constraints in
 * the descriptions. No `outputSchema`: the SchemaDefinition language cannot
 * type the ToolResult's `value` (any JSON), and a declared output schema the
 * result might not match is worse than none.
 */
export function toGatewayTool(spec: ToolSpec): GatewayToolDefinition {
  assertName(MODEL_TOOL_NAME, spec.name, 'AgentCore Gateway');
  const schema = toJsonSchema(spec.inputSchema);
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: gatewaySchema(schema, gatewayPlan(spec)),
  };
}

// ---------------------------------------------------------------- model APIs

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
