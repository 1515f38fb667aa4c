import { InvalidArgsError } from '../../functions/runtime/errors';

/** The kinds of tool `etp dev new-tool` writes: an AWS audit, a REST connector tool, a file tool. */
export const TOOL_KINDS = ['aws', 'rest', 'file'] as const;

/** One of {@link TOOL_KINDS}. */
export type ToolKind = (typeof TOOL_KINDS)[number];

/** The names a new tool's files and exports are derived from. */
export interface ToolNames {
  /** The tool's name, snake_case (`aws_lambda_inventory`). */
  readonly tool: string;
  /** Its folder under functions/tools (`aws`, `files`, or the REST connector's). */
  readonly folder: string;
  /** Its module's file name without extension, kebab-case (`lambda-inventory`). */
  readonly file: string;
  /** camelCase stem of its exports (`lambdaInventory` → `lambdaInventorySpec`, `lambdaInventoryTool`). */
  readonly camel: string;
  /** PascalCase stem of its types (`LambdaInventory`). */
  readonly pascal: string;
  /** The implementation module relative to functions/tools (`aws/lambda-inventory`). */
  readonly implementation: string;
}

/** A tool name: snake_case, a letter first, 3-64 characters (the Converse and MCP tool-name rules fit in it). */
const TOOL_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/**
 * The names of a new tool of `kind`. An `aws` tool is `aws_<what>` in
 * functions/tools/aws; a `rest` tool is `<connector>_<what>` in
 * functions/tools/<connector>; a `file` tool is any name, in functions/tools/files.
 *
 * @throws InvalidArgsError for a name that breaks these rules, saying which.
 */
export function toolNames(name: string, kind: ToolKind): ToolNames {
  if (!TOOL_NAME.test(name) || name.length > 64) {
    throw new InvalidArgsError(
      `Tool name "${name}": expected snake_case of at least two words, a letter first, at most 64 characters, such as aws_lambda_inventory`,
    );
  }
  const [first, ...rest] = name.split('_');
  if (kind === 'aws' && first !== 'aws') {
    throw new InvalidArgsError(
      `Tool name "${name}": an aws tool's name starts with aws_ (aws_lambda_inventory)`,
    );
  }
  const stem = kind === 'file' ? name.split('_') : rest;
  const folder = kind === 'file' ? 'files' : kind === 'aws' ? 'aws' : (first as string);
  const file = stem.join('-');
  const camel = stem.map((word, i) => (i === 0 ? word : word[0]?.toUpperCase() + word.slice(1))).join('');
  const pascal = camel[0]?.toUpperCase() + camel.slice(1);
  return { tool: name, folder, file, camel, pascal, implementation: `${folder}/${file}` };
}
