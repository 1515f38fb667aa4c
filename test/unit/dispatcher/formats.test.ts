import type { Function as BedrockAgentFunction, FunctionSchema } from '@aws-sdk/client-bedrock-agent';
import type { ToolConfiguration } from '@aws-sdk/client-bedrock-runtime';
import { ListToolsResultSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import type { aws_bedrockagentcore as agentcore } from 'aws-cdk-lib';
import {
  BEDROCK_ACTION_GROUP_MAX_OPERATIONS,
  bedrockPlan,
  exportTools,
  gatewayPlan,
  MODEL_TOOL_NAME,
  TITLE_WORDS,
  TOOL_FORMATS,
  ToolFormatError,
  titleOf,
  toAnthropicTools,
  toBedrockFunctionSchema,
  toBedrockOpenApi,
  toConverseToolConfig,
  toGatewayTool,
  toMcpTool,
  toOpenAiTools,
} from '../../../functions/dispatcher/formats/formats';
import { decodeByPlan, describeShape } from '../../../functions/dispatcher/formats/json-schema';
import { parseToolArgs } from '../../../functions/runtime/args';
import { toolCatalog } from '../../../functions/tools/catalog';

const specs = toolCatalog.list();
const eleven = specs.slice(0, BEDROCK_ACTION_GROUP_MAX_OPERATIONS);

/** Bedrock Agents limits (Bedrock API reference, "Function" and "ParameterDetail"). */
const BEDROCK_NAME = /^([0-9a-zA-Z][_-]?){1,100}$/;
const BEDROCK_PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'array'];

/** AgentCore Gateway SchemaDefinition: these keys and types only (AgentCore Control API reference). */
const GATEWAY_KEYS = new Set(['type', 'description', 'items', 'properties', 'required']);
const GATEWAY_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

function gatewayProblems(schema: Record<string, unknown>, path: string): string[] {
  const problems = Object.keys(schema)
    .filter((key) => !GATEWAY_KEYS.has(key))
    .map((key) => `${path}: ${key}`);
  if (!GATEWAY_TYPES.has(String(schema.type))) problems.push(`${path}: type ${String(schema.type)}`);
  const items = schema.items as Record<string, unknown> | undefined;
  if (items) problems.push(...gatewayProblems(items, `${path}[]`));
  for (const [name, property] of Object.entries(
    (schema.properties ?? {}) as Record<string, Record<string, unknown>>,
  )) {
    problems.push(...gatewayProblems(property, `${path}.${name}`));
  }
  return problems;
}

describe('MCP tools/list entries', () => {
  it("each tool is a valid MCP Tool by the SDK's own schema, and the list a valid tools/list result", () => {
    // Act
    const listed = exportTools('mcp', specs);

    // Assess
    expect(ListToolsResultSchema.safeParse(listed).success).toBe(true);
    for (const tool of (listed as { tools: unknown[] }).tools) {
      const parsed = ToolSchema.safeParse(tool);
      expect(parsed.error).toBeUndefined();
    }
  });

  it('carries the ToolResult as outputSchema and hints from sideEffects', () => {
    // Act
    const inventory = toMcpTool(toolCatalog.get('aws_ec2_inventory'));
    const post = toMcpTool(toolCatalog.get('slack_post_message'));

    // Assess
    expect(inventory.outputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['ok']),
    });
    expect(inventory.annotations).toEqual({
      title: 'AWS EC2 inventory',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(post.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(inventory.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
  });
});

describe('MCP titles', () => {
  it.each([
    ['aws_ec2_inventory', 'AWS EC2 inventory'],
    ['aws_eips_audit', 'AWS EIPs audit'],
    ['aws_cloudtrail_coverage', 'AWS CloudTrail coverage'],
    ['slack_post_message', 'Slack post message'],
    ['list_snapshots', 'List snapshots'],
  ])('titles %s as %s', (name, title) => {
    expect(titleOf(name)).toBe(title);
  });

  it("writes every tool name's service words as their owners do, whatever the tool", () => {
    for (const spec of toolCatalog.list()) {
      // Act
      const words = toMcpTool(spec).title?.split(' ') ?? [];

      // Assess: a listed word never stays in lower case, and the title starts with a capital.
      expect(words.some((word) => Object.hasOwn(TITLE_WORDS, word))).toBe(false);
      expect(words[0]?.charAt(0)).toMatch(/[A-Z]/);
      expect(words).toHaveLength(spec.name.split('_').length);
    }
  });
});

describe('Bedrock Agents function details', () => {
  it('fits the SDK types and the documented name, description and type limits', () => {
    // Act
    const schema: FunctionSchema = toBedrockFunctionSchema(eleven);
    const functions: BedrockAgentFunction[] =
      'functions' in schema && schema.functions ? schema.functions : [];

    // Assess
    expect(functions.map((fn) => fn.name)).toEqual(eleven.map((spec) => spec.name));
    for (const fn of functions) {
      expect(fn.name).toMatch(BEDROCK_NAME);
      expect(fn.description?.length).toBeLessThanOrEqual(1200);
      for (const [name, parameter] of Object.entries(fn.parameters ?? {})) {
        expect(name).toMatch(BEDROCK_NAME);
        expect(BEDROCK_PARAMETER_TYPES).toContain(parameter.type);
        expect(parameter.description?.length).toBeGreaterThan(0);
        expect(parameter.description?.length).toBeLessThanOrEqual(500);
      }
    }
  });

  it('clips a description over 1,200 characters and asks confirmation for write tools', () => {
    // Prepare: aws_cost_breakdown's description is longer than Bedrock accepts
    const long = toolCatalog.get('aws_cost_breakdown');

    // Act
    const [cost, post] = toBedrockFunctionSchema([long, toolCatalog.get('slack_post_message')]).functions;

    // Assess
    expect(long.description.length).toBeGreaterThan(1200);
    expect(cost?.description).toHaveLength(1200);
    expect(cost?.description.endsWith('…')).toBe(true);
    expect(cost?.requireConfirmation).toBe('DISABLED');
    expect(post?.requireConfirmation).toBe('ENABLED');
  });

  it('maps nested and union arguments to JSON-encoded string parameters, primitives to their types', () => {
    // Act
    const [inventory, post] = toBedrockFunctionSchema([
      toolCatalog.get('aws_ec2_inventory'),
      toolCatalog.get('slack_post_blocks'),
    ]).functions;

    // Assess
    expect(inventory?.parameters.regions).toEqual({
      type: 'string',
      required: false,
      description: expect.stringContaining('JSON-encoded: "all" or an array of strings'),
    });
    expect(inventory?.parameters.topN).toMatchObject({
      type: 'integer',
      description: expect.stringContaining('From 1 to 100'),
    });
    expect(post?.parameters.blocks?.type).toBe('string');
    expect(post?.parameters.channel).toMatchObject({ type: 'string', required: true });
  });

  it('refuses more functions than one action group holds, saying how to select fewer', () => {
    expect(() => toBedrockFunctionSchema(specs)).toThrow(ToolFormatError);
    expect(() => toBedrockFunctionSchema(specs)).toThrow(
      `at most 11 functions; ${specs.length} tools were selected`,
    );
  });

  it('decodes what Bedrock sends (every value a string) back into args the tool schema accepts', () => {
    // Prepare
    const spec = toolCatalog.get('aws_ec2_inventory');
    const plan = bedrockPlan(spec);
    const decode = (name: string, value: string) => decodeByPlan(plan[name] ?? { kind: 'json' }, value);

    // Act
    const args = { regions: decode('regions', '["eu-west-1","us-east-1"]'), topN: decode('topN', '5') };

    // Assess
    expect(args).toEqual({ regions: ['eu-west-1', 'us-east-1'], topN: 5 });
    expect(parseToolArgs(spec, args)).toEqual(args);
    expect(decode('regions', 'all')).toBe('all');
    expect(decode('regions', '"all"')).toBe('all');
    expect(decode('topN', '12abc')).toBe('12abc');
    expect(() => parseToolArgs(spec, { topN: decode('topN', '12abc') })).toThrow(/topN/);
  });
});

describe('the OpenAPI document of an API-schema action group', () => {
  it('has one POST /tools/<tool> per tool, its operationId the tool name, the ToolResult as response', () => {
    // Act
    const document = toBedrockOpenApi([toolCatalog.get('aws_ec2_inventory')]) as {
      openapi: string;
      paths: Record<string, { post: Record<string, unknown> }>;
    };

    // Assess
    expect(document.openapi).toBe('3.0.0');
    expect(Object.keys(document.paths)).toEqual(['/tools/aws_ec2_inventory']);
    expect(document.paths['/tools/aws_ec2_inventory']?.post).toMatchObject({
      operationId: 'aws_ec2_inventory',
      requestBody: {
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { regions: { type: 'string' }, topN: { type: 'integer' } },
            },
          },
        },
      },
      responses: { '200': { content: { 'application/json': { schema: { type: 'object' } } } } },
    });
    expect(() => toBedrockOpenApi(specs)).toThrow(ToolFormatError);
  });
});

describe('AgentCore Gateway tool definitions', () => {
  it("use only the SchemaDefinition keys and types, and fit the CDK's CloudFormation types", () => {
    // Act
    const definitions: agentcore.CfnGatewayTarget.ToolDefinitionProperty[] = specs.map(toGatewayTool);

    // Assess
    for (const definition of definitions) {
      expect(
        gatewayProblems(definition.inputSchema as unknown as Record<string, unknown>, definition.name),
      ).toEqual([]);
      expect(definition.name).toMatch(MODEL_TOOL_NAME);
    }
  });

  it('keeps typed arrays and closed objects, and JSON-encodes unions and open objects', () => {
    // Act
    const cost = toGatewayTool(toolCatalog.get('aws_compute_optimizer_recs'));
    const finish = toGatewayTool(toolCatalog.get('finish'));

    // Assess
    expect(cost.inputSchema.properties?.resourceTypes).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    expect(cost.inputSchema.properties?.regions?.type).toBe('string');
    expect(finish.inputSchema).toMatchObject({ type: 'object', required: ['summary'] });
    expect(finish.inputSchema.properties?.data?.type).toBe('string');
  });

  it('decodes the JSON-encoded parts of what the Gateway sends and leaves typed values alone', () => {
    // Prepare
    const plan = gatewayPlan(toolCatalog.get('aws_compute_optimizer_recs'));

    // Act
    const args = decodeByPlan(plan, { regions: '["eu-west-1"]', resourceTypes: ['ec2'], topN: 3 });

    // Assess
    expect(args).toEqual({ regions: ['eu-west-1'], resourceTypes: ['ec2'], topN: 3 });
  });
});

describe('model API tool definitions', () => {
  it('Converse toolConfig fits the Bedrock Runtime SDK type and name pattern, without $schema', () => {
    // Act
    const config: ToolConfiguration = toConverseToolConfig(specs) as ToolConfiguration;

    // Assess
    expect(config.tools).toHaveLength(specs.length);
    for (const tool of config.tools ?? []) {
      if (!('toolSpec' in tool) || !tool.toolSpec) throw new Error('expected a toolSpec');
      expect(tool.toolSpec.name).toMatch(MODEL_TOOL_NAME);
      expect(tool.toolSpec.description?.length).toBeGreaterThan(0);
      expect(tool.toolSpec.inputSchema).toMatchObject({ json: { type: 'object' } });
      expect(JSON.stringify(tool.toolSpec.inputSchema)).not.toContain('$schema');
    }
  });

  it('OpenAI and Anthropic definitions have the documented shape and name pattern', () => {
    // Act
    const openai = toOpenAiTools(specs);
    const anthropic = toAnthropicTools(specs);

    // Assess
    for (const tool of openai) {
      expect(Object.keys(tool)).toEqual(['type', 'function']);
      expect(tool.function.name).toMatch(MODEL_TOOL_NAME);
      expect(tool.function.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.function.parameters).not.toHaveProperty('$schema');
    }
    for (const tool of anthropic) {
      expect(Object.keys(tool).sort()).toEqual(['description', 'input_schema', 'name']);
      expect(tool.name).toMatch(MODEL_TOOL_NAME);
      expect(tool.input_schema).toMatchObject({ type: 'object' });
    }
  });

  it('every format exports a selection', () => {
    for (const format of TOOL_FORMATS) {
      expect(JSON.stringify(exportTools(format, eleven)).length).toBeGreaterThan(100);
    }
  });
});

describe('describeShape', () => {
  it('names each shape of a union once, with its string format', () => {
    expect(
      describeShape({
        anyOf: [
          { type: 'string', format: 'date' },
          { type: 'string', format: 'date-time' },
          { type: 'string', format: 'date' },
        ],
      }),
    ).toBe('a string (date) or a string (date-time)');
    expect(describeShape({ anyOf: [{ type: 'string' }, { type: 'string' }, { type: 'integer' }] })).toBe(
      'a string or an integer',
    );
  });
});
