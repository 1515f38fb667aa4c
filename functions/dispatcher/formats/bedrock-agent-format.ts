/** The registry as Bedrock Agents action-group functions and their OpenAPI document (Bedrock API reference). */
import { type ToolSpec, toJsonSchema } from '../../runtime/spec';
import {
  assertName,
  BEDROCK_ACTION_GROUP_MAX_OPERATIONS,
  BEDROCK_FUNCTION_DESCRIPTION_MAX,
  BEDROCK_FUNCTION_NAME,
  BEDROCK_PARAMETER_DESCRIPTION_MAX,
  ToolFormatError,
} from './format-names';
import {
  type ArgumentPlan,
  clipText,
  constrainedDescription,
  flatPlan,
  type JsonSchema,
  jsonEncodedDescription,
  propertiesOf,
  requiredOf,
} from './json-schema';
import { titleOf } from './mcp-format';
import { toolResultJsonSchema } from './tool-result-schema';

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
