import { type Command, Option } from 'commander';
import {
  exportTools,
  TOOL_FORMATS,
  type ToolFormat,
  ToolFormatError,
} from '../../functions/dispatcher/formats/formats';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { toolCatalog } from '../../functions/tools/catalog';
import type { CliRun } from './io';
import { selectTools, type ToolSelectionOptions } from './tool-selection';

interface SchemaOptions extends ToolSelectionOptions {
  readonly format: ToolFormat;
}

/**
 * `etp tools schema --format <format>`: the registry (or a selection of it) in
 * one caller's tool format, as JSON on stdout (docs/entry-points.md, "Tool
 * formats"). A format that cannot hold the selection (more than 11 functions
 * in a Bedrock action group) is a usage error saying how to select fewer.
 */
export function registerToolSchemaCommand(tools: Command, run: CliRun): void {
  tools
    .command('schema')
    .description(
      "Print the tools in a caller's tool format (MCP, Bedrock Agents, AgentCore, Converse, OpenAI, Anthropic)",
    )
    .addOption(
      new Option('--format <format>', 'the caller format').choices(TOOL_FORMATS).makeOptionMandatory(),
    )
    .option('--tools <names>', 'only these tools, comma-separated')
    .option(
      '--scenario <scenario>',
      "only a scenario level's tools: its intra_tools and the file tools (with --level)",
    )
    .option('--level <level>', 'level of --scenario')
    .action((options: SchemaOptions) => {
      const specs = selectTools(options, () => toolCatalog.list());
      try {
        run.io.out(`${JSON.stringify(exportTools(options.format, specs), null, 2)}\n`);
      } catch (err) {
        if (err instanceof ToolFormatError) throw new InvalidArgsError(err.message);
        throw err;
      }
    });
}
