/** The registry as MCP `tools/list` entries (MCP specification 2025-11-25, "Tools"). */
import { type ToolSpec, toJsonSchema } from '../../runtime/spec';
import { assertName, MCP_TOOL_NAME } from './format-names';
import { toolResultJsonSchema } from './tool-result-schema';

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
