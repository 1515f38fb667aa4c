/** The registry as AgentCore Gateway tool definitions of a Lambda target (AgentCore Control API reference). */
import { type ToolSpec, toJsonSchema } from '../../runtime/spec';
import { assertName, MODEL_TOOL_NAME } from './format-names';
import {
  type ArgumentPlan,
  constrainedDescription,
  type JsonSchema,
  jsonEncodedDescription,
  nestedPlan,
  propertiesOf,
} from './json-schema';

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
