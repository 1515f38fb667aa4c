import { PlatformError } from './errors';
import { ToolRegistry } from './registry';
import type { Tool, ToolSpec } from './spec';
import { compareText } from './text';

/**
 * A tool that runs in its own Lambda function: its spec, and where its
 * implementation lives.
 */
export interface FunctionToolEntry {
  readonly spec: ToolSpec;
  /**
   * The implementation module, relative to `functions/tools` and without the
   * extension (`aws/ec2-inventory`). It exports the tool (`defineTool`) and its
   * Lambda `handler` (`createToolHandler`): the CDK bundles it as the function's
   * entry, local runs load it on first use.
   */
  readonly implementation: string;
}

/**
 * A file tool (docs/design.md, "Workspace, file tools"): it runs inside the dispatcher
 * and is allowed at every level, so the entry holds the tool itself.
 */
export interface FileToolEntry {
  readonly fileTool: Tool;
}

/** One line of the catalog: {@link functionTool} or {@link fileTool}. */
export type CatalogEntry = FunctionToolEntry | FileToolEntry;

/**
 * Registers a tool that runs in its own Lambda function.
 *
 * @param implementation - its module relative to `functions/tools`, no extension (`aws/ec2-inventory`).
 * @example functionTool(ec2InventorySpec, 'aws/ec2-inventory')
 */
export function functionTool(spec: ToolSpec, implementation: string): FunctionToolEntry {
  return { spec, implementation };
}

/**
 * Registers a file tool: run by the dispatcher itself, always allowed.
 *
 * @example fileTool(finishTool)
 */
export function fileTool(tool: Tool): FileToolEntry {
  return { fileTool: tool };
}

function specOf(entry: CatalogEntry): ToolSpec {
  return 'fileTool' in entry ? entry.fileTool : entry.spec;
}

/**
 * Every registered tool, from one list of entries: the dispatcher's registry,
 * the CDK's functions, the file tools, the generated docs and the tests all read
 * it, so a tool is declared in exactly one place (`functions/tools/catalog.ts`).
 *
 * @example
 * const catalog = new ToolCatalog([functionTool(ec2InventorySpec, 'aws/ec2-inventory'), fileTool(finishTool)]);
 * catalog.functionTools().map((entry) => entry.spec.name); // ['aws_ec2_inventory']
 * catalog.fileToolNames();                                   // ['finish']
 */
export class ToolCatalog extends ToolRegistry<ToolSpec> {
  readonly #functionTools: readonly FunctionToolEntry[];
  readonly #fileTools: readonly Tool[];

  /**
   * @throws PlatformError (`internal_error`) on a duplicate or malformed name, a
   *   non-strict schema, or an implementation path that is absolute or leaves `functions/tools`.
   */
  constructor(entries: readonly CatalogEntry[]) {
    super(entries.map(specOf));
    const functions: FunctionToolEntry[] = [];
    const files: Tool[] = [];
    for (const entry of entries) {
      if ('fileTool' in entry) {
        files.push(entry.fileTool);
      } else {
        if (!/^[a-z0-9-]+(?:\/[a-z0-9-]+)+$/.test(entry.implementation)) {
          throw new PlatformError(
            'internal_error',
            `Tool "${entry.spec.name}": implementation "${entry.implementation}" must be a module path under functions/tools such as aws/ec2-inventory`,
          );
        }
        functions.push(entry);
      }
    }
    const byName = (a: { name: string }, b: { name: string }) => compareText(a.name, b.name);
    this.#functionTools = functions.sort((a, b) => byName(a.spec, b.spec));
    this.#fileTools = files.sort(byName);
  }

  /** Tools that run in their own Lambda function, sorted by name. A new array each call. */
  functionTools(): FunctionToolEntry[] {
    return [...this.#functionTools];
  }

  /** File tools (spec and handler), sorted by name: run by the dispatcher, allowed at every level. */
  fileTools(): Tool[] {
    return [...this.#fileTools];
  }

  /** Names of the file tools, sorted. */
  fileToolNames(): string[] {
    return this.#fileTools.map((tool) => tool.name);
  }

  /** Whether the tool is a file tool. */
  isFileTool(name: string): boolean {
    return this.#fileTools.some((tool) => tool.name === name);
  }

  /**
   * The implementation module of a function tool (relative to `functions/tools`).
   *
   * @throws UnknownToolError for an unregistered name.
   * @throws PlatformError (`internal_error`) for a file tool, which has no module of its own.
   */
  implementationOf(name: string): string {
    this.get(name);
    const entry = this.#functionTools.find((candidate) => candidate.spec.name === name);
    if (!entry)
      throw new PlatformError('internal_error', `Tool "${name}" is a file tool: it runs in the dispatcher`);
    return entry.implementation;
  }
}
