import * as path from 'node:path';
import type { ToolCatalog } from '../../functions/runtime/catalog';
import type { Tool } from '../../functions/runtime/spec';

/** The folder the catalog's implementation paths are relative to. */
export const TOOLS_DIR = path.join(__dirname, '../../functions/tools');

/**
 * Loads a tool's implementation (spec + handler) in this process: the module the
 * catalog names for a function tool, the tool itself for a file tool. Modules are
 * loaded on first use, so listing tools loads no service client.
 *
 * @throws UnknownToolError for an unregistered name.
 * @throws Error when the module exports no tool of that name.
 */
export function loadTool(catalog: ToolCatalog, name: string): Tool {
  const fileTool = catalog.fileTools().find((tool) => tool.name === name);
  if (fileTool) return fileTool;
  const module = catalog.implementationOf(name);
  // require, not import(): this is a CommonJS module and Jest's CommonJS runtime has no import().
  const moduleExports = require(path.join(TOOLS_DIR, module)) as Record<string, unknown>;
  const tool = Object.values(moduleExports).find(
    (value): value is Tool =>
      typeof value === 'object' &&
      value !== null &&
      (value as Tool).name === name &&
      typeof (value as Tool).handler === 'function',
  );
  if (!tool) throw new Error(`Module ${module} exports no tool named "${name}"`);
  return tool;
}
