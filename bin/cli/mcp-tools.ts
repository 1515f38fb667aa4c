/**
 * `etp mcp`'s precomputed `tools/list` (docs/cli.md, "etp mcp start-up"): every
 * registered tool in the MCP format, with what the default selection of `etp mcp`
 * reads (its side effects, whether it is a file tool), written to
 * {@link MCP_TOOLS_FILE} so that an MCP client's `initialize` and `tools/list` are
 * answered without loading the catalog's schemas and converting them to JSON
 * Schema (`npm run bench`, "CLI start-up"). The catalog loads at the first
 * `tools/call`, or at start when `--tools`/`--scenario` name the tools.
 *
 * `npm run -s docs:tools` rewrites the file (`tsx bin/cli/mcp-tools.ts`);
 * test/unit/cli/mcp-tools.test.ts fails when it and the catalog disagree.
 */
import * as path from 'node:path';
import type { McpTool } from '../../functions/dispatcher/formats/mcp-format';
import type { ToolSpec } from '../../functions/runtime/spec';

/** The generated file, beside this module (JSON, gitted; rewritten by `npm run -s docs:tools`). */
export const MCP_TOOLS_FILE = path.join(__dirname, 'mcp-tools.json');

/** One registered tool as `etp mcp` lists it. */
export interface McpToolsEntry {
  /** The tool's `tools/list` entry (functions/dispatcher/formats/mcp-format.ts). */
  readonly tool: McpTool;
  readonly sideEffects: ToolSpec['sideEffects'];
  /** A file tool (served only when named: it needs a run's workspace). */
  readonly fileTool: boolean;
}

/** Every registered tool, in catalog order, computed from the catalog (what the file must hold). */
export function computeMcpTools(): McpToolsEntry[] {
  const { toolCatalog } =
    require('../../functions/tools/catalog') as typeof import('../../functions/tools/catalog');
  const { toMcpTool } =
    require('../../functions/dispatcher/formats/mcp-format') as typeof import('../../functions/dispatcher/formats/mcp-format');
  return toolCatalog.list().map((spec) => ({
    tool: toMcpTool(spec),
    sideEffects: spec.sideEffects,
    fileTool: toolCatalog.isFileTool(spec.name),
  }));
}

/** The file's text for `entries`. */
export function mcpToolsText(entries: readonly McpToolsEntry[]): string {
  return `${JSON.stringify(entries, null, 2)}\n`;
}

/** The precomputed entries, read from {@link MCP_TOOLS_FILE}. */
export function precomputedMcpTools(): McpToolsEntry[] {
  return require(MCP_TOOLS_FILE) as McpToolsEntry[];
}

if (require.main === module) {
  // Loaded here, not at the top: `etp mcp` reads this module at start and never writes.
  const { writeFileWhole } = require('./write-whole') as typeof import('./write-whole');
  writeFileWhole(MCP_TOOLS_FILE, mcpToolsText(computeMcpTools()));
  process.stdout.write(`wrote ${path.relative(process.cwd(), MCP_TOOLS_FILE)}\n`);
}
