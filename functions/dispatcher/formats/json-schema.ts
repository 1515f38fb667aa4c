/**
 * Reading the tools' JSON Schemas (draft 2020-12, from zod) for the callers whose
 * schema language is narrower: Bedrock Agents function details take flat typed
 * parameters, AgentCore Gateway tool definitions take typed nested properties
 * without unions or constraints. The same plan that writes such a caller's schema
 * decodes the arguments it sends back, so export and decoding never drift.
 */

/** A JSON Schema node, as `z.toJSONSchema` writes them. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** The primitive types every narrow format has. */
export type PrimitiveType = 'string' | 'number' | 'integer' | 'boolean';

/**
 * How one argument travels through a narrow format:
 * - `primitive`: as its own typed parameter;
 * - `json`: as a string parameter holding JSON (unions, open objects, and, for
 *   Bedrock, every array and object): decoded with {@link decodeJsonEncoded};
 * - `array` / `object`: as the format's own array/object (AgentCore only), each
 *   item or property planned again.
 */
export type ArgumentPlan =
  | { readonly kind: 'primitive'; readonly type: PrimitiveType }
  | { readonly kind: 'json' }
  | { readonly kind: 'array'; readonly items: ArgumentPlan }
  | {
      readonly kind: 'object';
      readonly properties: Readonly<Record<string, ArgumentPlan>>;
      readonly required: readonly string[];
    };

const PRIMITIVES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The schema's `properties` (own, object-valued entries only). */
export function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  const properties = schema.properties;
  if (!isRecord(properties)) return {};
  return Object.fromEntries(Object.entries(properties).filter(([, value]) => isRecord(value))) as Record<
    string,
    JsonSchema
  >;
}

/** The schema's `required` names. */
export function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [];
}

/** The single primitive type of a node (`type: 'string'`, or a `const`/`enum` of strings), if it has one. */
export function primitiveTypeOf(schema: JsonSchema): PrimitiveType | undefined {
  if (typeof schema.type === 'string' && PRIMITIVES.has(schema.type) && !('anyOf' in schema)) {
    return schema.type as PrimitiveType;
  }
  return undefined;
}

/** A closed object: named properties, unknown keys refused (`z.strictObject`). */
function isClosedObject(schema: JsonSchema): boolean {
  return schema.type === 'object' && schema.additionalProperties === false && isRecord(schema.properties);
}

/**
 * The plan of one property for Bedrock Agents function details: flat typed
 * parameters of type string, number, integer, boolean or array (Bedrock API
 * reference, "ParameterDetail"). Arrays travel as JSON too: Bedrock hands a
 * Lambda every value as a string, and an `array` parameter's string is not
 * reliably JSON (Powertools for AWS Lambda, issue #3710, and its resolver leaves
 * array values unparsed for that reason).
 */
export function flatPlan(schema: JsonSchema): ArgumentPlan {
  const type = primitiveTypeOf(schema);
  return type ? { kind: 'primitive', type } : { kind: 'json' };
}

/**
 * The plan of one property for AgentCore Gateway tool definitions, whose
 * `SchemaDefinition` has `type` (string, number, integer, boolean, array,
 * object), `items`, `properties`, `required` and `description` only
 * (AgentCore Control API reference, "SchemaDefinition"): primitives, arrays of
 * expressible items and closed objects keep their shape; unions and open objects
 * (`additionalProperties` other than false) travel as JSON strings.
 */
export function nestedPlan(schema: JsonSchema): ArgumentPlan {
  const type = primitiveTypeOf(schema);
  if (type) return { kind: 'primitive', type };
  if (schema.type === 'array' && isRecord(schema.items)) {
    const items = nestedPlan(schema.items);
    return items.kind === 'json' ? { kind: 'json' } : { kind: 'array', items };
  }
  if (isClosedObject(schema)) {
    const properties = Object.fromEntries(
      Object.entries(propertiesOf(schema)).map(([name, property]) => [name, nestedPlan(property)]),
    );
    return { kind: 'object', properties, required: requiredOf(schema) };
  }
  return { kind: 'json' };
}

/** What a JSON-encoded parameter holds, in words, for its description (`"all" or an array of strings`). */
export function describeShape(schema: JsonSchema): string {
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (Array.isArray(schema.anyOf)) {
    // Each shape once: a date or a date-time are both "a string" here.
    return [...new Set(schema.anyOf.filter(isRecord).map((option) => describeShape(option)))].join(' or ');
  }
  switch (schema.type) {
    case 'array':
      return isRecord(schema.items) ? `an array of ${plural(describeShape(schema.items))}` : 'an array';
    case 'object': {
      const names = Object.keys(propertiesOf(schema));
      return names.length > 0 ? `an object with ${names.join(', ')}` : 'an object';
    }
    case 'integer':
      return 'an integer';
    case 'string':
      return typeof schema.format === 'string' ? `a string (${schema.format})` : 'a string';
    case 'number':
    case 'boolean':
      return `a ${schema.type}`;
    default:
      return 'any JSON value';
  }
}

function plural(shape: string): string {
  return shape.replace(/^an? (\w+)/, (_match, noun: string) => `${noun}s`);
}

/**
 * A property's description for a format without constraint keywords: its own
 * description, then the constraints the format cannot carry (allowed values,
 * bounds, format, default), so the model still reads them.
 *
 * @example constrainedDescription({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
 *   // 'From 1 to 100. Default 20.'
 */
export function constrainedDescription(schema: JsonSchema): string {
  const parts: string[] = [];
  if (typeof schema.description === 'string') parts.push(sentence(schema.description));
  if (Array.isArray(schema.enum)) parts.push(`One of: ${schema.enum.map(String).join(', ')}.`);
  if ('const' in schema) parts.push(`Only ${JSON.stringify(schema.const)}.`);
  const ranges: [string, string, string][] = [
    ['minimum', 'maximum', ''],
    ['minLength', 'maxLength', ' characters'],
    ['minItems', 'maxItems', ' items'],
  ];
  for (const [low, high, unit] of ranges) {
    const min = typeof schema[low] === 'number' ? schema[low] : undefined;
    const max = typeof schema[high] === 'number' ? schema[high] : undefined;
    if (min !== undefined && max !== undefined) parts.push(`From ${min} to ${max}${unit}.`);
    else if (min !== undefined) parts.push(`At least ${min}${unit}.`);
    else if (max !== undefined) parts.push(`At most ${max}${unit}.`);
  }
  if (typeof schema.format === 'string') parts.push(`Format: ${schema.format}.`);
  if ('default' in schema) parts.push(`Default ${JSON.stringify(schema.default)}.`);
  return parts.join(' ');
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The description of a JSON-encoded parameter: its own, then how to encode it. */
export function jsonEncodedDescription(schema: JsonSchema): string {
  const own = typeof schema.description === 'string' ? `${sentence(schema.description)} ` : '';
  return `${own}JSON-encoded: ${describeShape(schema)}; a plain string that is not JSON is taken as that string.`;
}

/** Cuts text to `max` characters, ending with `…` when cut. */
export function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Decodes a JSON-encoded parameter: the value parsed as JSON when it is a string
 * that parses, else the value as given (the string `all` stays `"all"`). The tool's
 * own schema then validates the result, so a wrong shape is `invalid_args`.
 */
export function decodeJsonEncoded(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * A primitive sent as a string (every Bedrock Agents parameter value is one):
 * an integer or number only when the whole string is one, a boolean only for
 * `true`/`false` (any case). Anything else stays the string it was, so the
 * tool's schema reports what was received (`expected number, received "12abc"`)
 * instead of a silent `NaN` or `false`.
 */
export function decodePrimitive(type: PrimitiveType, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (type === 'integer' && INTEGER.test(text)) return Number(text);
  if (type === 'number' && NUMBER.test(text)) return Number(text);
  if (type === 'boolean' && /^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  return value;
}

/**
 * Decodes an argument value along its plan: JSON-encoded parts parsed, objects
 * and arrays walked; primitives are left as the format sent them (typed JSON for
 * AgentCore), except strings sent for numbers or booleans (Bedrock).
 */
export function decodeByPlan(plan: ArgumentPlan, value: unknown): unknown {
  switch (plan.kind) {
    case 'primitive':
      return decodePrimitive(plan.type, value);
    case 'json':
      return decodeJsonEncoded(value);
    case 'array':
      return Array.isArray(value) ? value.map((item) => decodeByPlan(plan.items, item)) : value;
    case 'object':
      if (!isRecord(value)) return value;
      return Object.fromEntries(
        Object.entries(value).map(([name, item]) => {
          const property = Object.hasOwn(plan.properties, name) ? plan.properties[name] : undefined;
          return [name, property ? decodeByPlan(property, item) : item];
        }),
      );
  }
}
