import { readFileSync } from 'node:fs';
import {
  computeMcpTools,
  MCP_TOOLS_FILE,
  mcpToolsText,
  precomputedMcpTools,
} from '../../../bin/cli/mcp-tools';
import { toolCatalog } from '../../../functions/tools/catalog';

describe("etp mcp's precomputed tools/list (bin/cli/mcp-tools.json)", () => {
  it('is what the catalog gives today: run `npm run -s docs:tools` when this fails', () => {
    expect(readFileSync(MCP_TOOLS_FILE, 'utf8')).toBe(mcpToolsText(computeMcpTools()));
  });

  it('holds every registered tool with its side effects and file-tool flag', () => {
    const entries = precomputedMcpTools();
    expect(entries.map((entry) => entry.tool.name)).toEqual(toolCatalog.list().map((spec) => spec.name));
    for (const entry of entries) {
      expect(entry.sideEffects).toBe(toolCatalog.get(entry.tool.name).sideEffects);
      expect(entry.fileTool).toBe(toolCatalog.isFileTool(entry.tool.name));
    }
    expect(entries.filter((entry) => entry.fileTool).map((entry) => entry.tool.name)).toEqual(
      toolCatalog.fileToolNames(),
    );
  });
});
