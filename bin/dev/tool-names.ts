import { InvalidArgsError } from '../../functions/runtime/errors';
import { DEFAULT_STACK_NAME } from '../stack-name';

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
  /** camelCase stem of its exports (`lambdaInventory` → `lambdaInventorySpec`; a REST tool's keeps its connector: `githubListIssues`). */
  readonly camel: string;
  /** PascalCase stem of its types (`LambdaInventory`). */
  readonly pascal: string;
  /** The implementation module relative to functions/tools (`aws/lambda-inventory`). */
  readonly implementation: string;
}

/** A tool name: snake_case, a letter first, 3-64 characters (the Converse and MCP tool-name rules fit in it). */
const TOOL_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** The longest name of any tool (the Converse and MCP tool-name rules). */
const MAX_TOOL_NAME = 64;

/**
 * The longest name of a tool placed in its own function (aws, rest): its function is
 * `<stack>-<tool>` (bin/stack-name.ts), and a Lambda function name is at most 64 characters.
 */
const MAX_FUNCTION_TOOL_NAME = MAX_TOOL_NAME - `${DEFAULT_STACK_NAME}-`.length;

/** What each kind's name is, for messages. */
const NAME_RULE: Readonly<Record<ToolKind, string>> = {
  aws: 'an aws tool is aws_<what>, such as aws_lambda_inventory',
  rest: 'a rest tool is <connector>_<what>, such as github_list_issues',
  file: 'a file tool is any other snake_case name, such as count_lines',
};

/** What every kind accepts, for the message of a name that fits none of the kind given. */
export const NAME_RULES = TOOL_KINDS.map((kind) => NAME_RULE[kind]).join('; ');

/**
 * The names of a new tool of `kind`. An `aws` tool is `aws_<what>` in
 * functions/tools/aws; a `rest` tool is `<connector>_<what>` in
 * functions/tools/<connector>, never `aws_`; a `file` tool is any other name, in
 * functions/tools/files. A REST tool's exports keep its connector
 * (`githubListIssuesSpec`), as the shipped ones do, so two connectors' tools of
 * the same `<what>` never clash in the catalog; an AWS tool's drop `aws`.
 *
 * @throws InvalidArgsError for a name that breaks these rules, saying which and what each kind accepts.
 */
export function toolNames(name: string, kind: ToolKind): ToolNames {
  if (!TOOL_NAME.test(name) || name.length > MAX_TOOL_NAME) {
    throw new InvalidArgsError(
      `Tool name "${name}": expected snake_case of at least two words, a letter first, at most ${MAX_TOOL_NAME} characters: ${NAME_RULES}`,
    );
  }
  if (kind !== 'file' && name.length > MAX_FUNCTION_TOOL_NAME) {
    throw new InvalidArgsError(
      `Tool name "${name}" has ${name.length} characters: a --kind ${kind} tool runs in its own Lambda function, ` +
        `named ${DEFAULT_STACK_NAME}-<tool>, and a function name is at most 64 characters, so its name is at most ${MAX_FUNCTION_TOOL_NAME}`,
    );
  }
  const [first, ...rest] = name.split('_');
  if ((kind === 'aws') !== (first === 'aws')) {
    throw new InvalidArgsError(
      `Tool name "${name}" does not fit --kind ${kind}: ${NAME_RULE[kind]}${first === 'aws' ? '; aws_ names are AWS audits (--kind aws)' : ''}`,
    );
  }
  const stem = kind === 'aws' ? rest : name.split('_');
  const folder = kind === 'file' ? 'files' : kind === 'aws' ? 'aws' : (first as string);
  const file = (kind === 'file' ? stem : rest).join('-');
  const camel = stem.map((word, i) => (i === 0 ? word : word[0]?.toUpperCase() + word.slice(1))).join('');
  const pascal = camel[0]?.toUpperCase() + camel.slice(1);
  return { tool: name, folder, file, camel, pascal, implementation: `${folder}/${file}` };
}
