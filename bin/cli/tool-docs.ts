import { type PublicToolSpec, publicSpec, type ToolSpec } from '../../functions/runtime/spec';
import { firstSentence } from './text';

/** Where `npm run docs:tools` writes the catalog, relative to the repository root. */
export const TOOL_DOCS_PATH = 'docs/tools.md';

type JsonSchema = Record<string, unknown>;

/**
 * The Markdown tool catalog (`docs/tools.md`), generated from the registry: an
 * index, then per tool its description, an arguments table read from its JSON
 * Schema (type and constraints, required, default, description), the secrets it
 * resolves, its side effects and the IAM actions its function's role is granted.
 * Deterministic: the same registry always gives the same text.
 *
 * @param specs - the registry's specs, e.g. `toolCatalog.list()` (sorted by name).
 */
export function toolCatalogMarkdown(specs: readonly ToolSpec[]): string {
  const tools = specs.map(publicSpec);
  const lines = [
    '# Tool catalog',
    '',
    '<!-- Generated from the tool registry (functions/tools/catalog.ts) by `npm run docs:tools`. Do not edit by hand. -->',
    '',
    'Every registered tool, as `etp tools list` shows it and the dispatcher advertises it. Arguments are checked',
    'against the JSON Schema before any remote call, and arguments the schema does not list are rejected',
    '(`invalid_args`). Failures come back as `ok: false` results with a normalized code (docs/errors.md).',
    '',
    '| Tool | Side effects | Tags | Summary |',
    '| --- | --- | --- | --- |',
    ...tools.map(
      (tool) =>
        `| [\`${tool.name}\`](#${tool.name}) | ${tool.sideEffects} | ${cell(tool.tags.join(', '))} | ${cell(firstSentence(tool.description))} |`,
    ),
    ...tools.flatMap(toolSection),
  ];
  return `${lines.join('\n')}\n`;
}

function toolSection(tool: PublicToolSpec): string[] {
  return [
    '',
    `## ${tool.name}`,
    '',
    tool.description,
    '',
    ...argumentsTable(tool.inputSchema),
    '',
    ...facts(tool),
  ];
}

function argumentsTable(schema: JsonSchema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0) return ['Arguments: none.'];
  return [
    '| Argument | Type | Required | Default | Description |',
    '| --- | --- | --- | --- | --- |',
    ...names.map((name) => {
      const property = properties[name] as JsonSchema;
      const fallback = 'default' in property ? `\`${JSON.stringify(property.default)}\`` : '';
      return `| \`${name}\` | ${cell(typeOf(property))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(fallback)} | ${cell(String(property.description ?? ''))} |`;
    }),
  ];
}

function facts(tool: PublicToolSpec): string[] {
  const secrets = tool.requiresSecrets.map((name) => `\`${name}\``).join(', ') || 'none';
  const iam =
    tool.iam
      .map(
        (grant) =>
          `${grant.actions.map((action) => `\`${action}\``).join(', ')} on ${(grant.resources ?? ['*']).map((r) => `\`${r}\``).join(', ')}`,
      )
      .join('; ') || 'none (calls no AWS API)';
  const sideEffects = tool.sideEffects === 'write' ? 'write' : 'none (read-only)';
  const scopes = Object.entries(tool.tokenScopes ?? {}).map(
    ([system, names]) => `${system}: ${names.map((name) => `\`${name}\``).join(', ')}`,
  );
  return [
    `- Secrets: ${secrets}`,
    `- Side effects: ${sideEffects}`,
    `- IAM actions: ${iam}`,
    ...(scopes.length > 0
      ? [`- Token scopes (docs/rest-connectors.md, "Token scopes"): ${scopes.join('; ')}`]
      : []),
  ];
}

/**
 * A JSON Schema property in words: `integer, 1–100`, `"all" or array of string
 * (1–40 items)`, `string, 1–80 chars, pattern …`.
 */
function typeOf(schema: JsonSchema): string {
  if ('const' in schema) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum))
    return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' or ');
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) return variants.map(typeOf).join(' or ');
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : String(schema.type ?? 'any');
  const constraints: string[] = [];
  if (type === 'array') {
    const items = range(schema.minItems, schema.maxItems, ' items');
    return `array of ${typeOf((schema.items ?? {}) as JsonSchema)}${items ? ` (${items})` : ''}`;
  }
  if (type === 'string') {
    constraints.push(range(schema.minLength, schema.maxLength, ' chars'));
    if (typeof schema.format === 'string') constraints.push(`format ${schema.format}`);
    // A format says it already: zod writes its full regex for `date` and `date-time` too.
    else if (typeof schema.pattern === 'string') constraints.push(`pattern \`${schema.pattern}\``);
  }
  if (type === 'integer' || type === 'number') constraints.push(range(schema.minimum, schema.maximum, ''));
  return [type, ...constraints.filter(Boolean)].join(', ');
}

function range(minimum: unknown, maximum: unknown, unit: string): string {
  // zod's `z.int()` states the safe-integer bounds; they say nothing to a reader.
  const min = minimum === Number.MIN_SAFE_INTEGER ? undefined : minimum;
  const max = maximum === Number.MAX_SAFE_INTEGER ? undefined : maximum;
  if (typeof min === 'number' && typeof max === 'number') return `${min}–${max}${unit}`;
  if (typeof min === 'number') return `at least ${min}${unit}`;
  if (typeof max === 'number') return `at most ${max}${unit}`;
  return '';
}

/** A table cell: pipes escaped (also inside code spans, as GitHub requires), one line. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}
