import { type Command, InvalidArgumentError } from 'commander';
import { deadlineIn } from '../../functions/runtime/deadline';
import { InvalidArgsError, UnknownLevelError } from '../../functions/runtime/errors';
import { assertIdentifier, RUN_ID, TENANT_ID } from '../../functions/runtime/ids';
import { publicSpec, toJsonSchema } from '../../functions/runtime/spec';
import { toolCatalog } from '../../functions/tools/catalog';
import { type CliRun, EXIT_FAILED, EXIT_USAGE } from './io';
import { parseJsonObject, secretRefsTable } from './options';
import { clip, firstSentence, formatTable } from './text';

/** Description width in `etp tools list`: a table row stays readable in a terminal. */
const LIST_DESCRIPTION_CHARS = 120;

import { TOOL_DOCS_PATH, toolCatalogMarkdown } from './tool-docs';
import { registerToolSchemaCommand } from './tool-schema';
import { writeFileWhole } from './write-whole';

interface InvokeOptions {
  readonly tenant: string;
  /** The JSON text of `--args`, parsed in the action, where the tool (and so what it accepts) is known. */
  readonly args?: string;
  readonly scenario?: string;
  readonly level?: string;
  readonly runId?: string;
  readonly table?: string;
}

/**
 * `etp tools list|docs|invoke`: the registry as a table, JSON or Markdown, and
 * one call through the dispatcher core in this process.
 */
export function registerToolsCommands(program: Command, run: CliRun): void {
  const { io } = run;
  const tools = program.command('tools').description('List, document and invoke the registered tools');

  tools
    .command('list')
    .description('List the registered tools: name, side effects, tags and what each does')
    .option(
      '--json',
      "print each tool's public spec (name, description, inputSchema, tags, requiresSecrets, sideEffects, iam)",
    )
    .action((options: { json?: boolean }) => {
      const specs = toolCatalog.list();
      if (options.json) {
        io.out(`${JSON.stringify(specs.map(publicSpec), null, 2)}\n`);
        return;
      }
      io.out(
        formatTable(
          ['name', 'side effects', 'tags', 'description'],
          specs.map((spec) => [
            spec.name,
            spec.sideEffects,
            spec.tags.join(', '),
            clip(firstSentence(spec.description), LIST_DESCRIPTION_CHARS),
          ]),
        ),
      );
    });

  tools
    .command('docs')
    .description(`Print the Markdown tool catalog generated from the registry (${TOOL_DOCS_PATH})`)
    .option('--write <file>', `write it to <file> instead, e.g. ${TOOL_DOCS_PATH}`)
    .action((options: { write?: string }) => {
      const markdown = toolCatalogMarkdown(toolCatalog.list());
      if (!options.write) {
        io.out(markdown);
        return;
      }
      try {
        writeFileWhole(options.write, markdown);
      } catch (err) {
        throw new InvalidArgsError(
          `--write ${options.write}: cannot write it (${(err as NodeJS.ErrnoException).code ?? 'error'}); give a file in a directory you can write`,
        );
      }
      io.out(`Wrote ${options.write} (${toolCatalog.names().length} tools)\n`);
    });

  registerToolSchemaCommand(tools, run);

  tools
    .command('invoke')
    .description('Call one tool in this process through the dispatcher core and print its ToolResult JSON')
    .argument('<tool>', 'registered tool name (etp tools list)')
    .requiredOption('--tenant <tenant>', 'tenant whose secrets the tool resolves')
    .option(
      '--args <json>',
      "the tool's arguments, a JSON object (etp tools schema shows them) [default: {}]",
    )
    .option(
      '--scenario <scenario>',
      "check the call against this scenario level's intra_tools (with --level)",
    )
    .option('--level <level>', 'level of --scenario')
    .option(
      '--run-id <id>',
      'run id of the call (idempotency keys, STS session name) [default: local-<time>-<random>]',
    )
    .option(
      '--table <name>',
      'secret-reference table (default: $ETP_SECRET_REFS_TABLE, else the embedded store)',
    )
    .action(async (tool: string, options: InvokeOptions, command: Command) => {
      // Usage errors (exit 2), found before anything runs: the options, then the dispatcher's own
      // checks (the tool, the level's whitelist and pins, the args against the schema). What the
      // tool finds once called is its result (exit 1).
      const args = options.args === undefined ? {} : invokeArgs(tool, options.args, command);
      assertIdentifier(TENANT_ID, options.tenant, '--tenant');
      if (options.runId !== undefined) assertIdentifier(RUN_ID, options.runId, '--run-id');
      if ((options.scenario === undefined) !== (options.level === undefined)) {
        throw new InvalidArgsError(
          '--scenario and --level go together: pass both to check the level whitelist, or neither',
        );
      }
      // Loaded here, not with the module: `etp tools list|docs|schema` never need a dispatcher.
      const { findScenario, levelPins, loadScenarios } =
        require('../../lib/scenarios/loader') as typeof import('../../lib/scenarios/loader');
      const { levelWhitelists } =
        require('../../lib/scenarios/level-tables') as typeof import('../../lib/scenarios/level-tables');
      const { createCallCheck } =
        require('../../functions/dispatcher/dispatch') as typeof import('../../functions/dispatcher/dispatch');
      const { createLocalDispatcher, LOCAL_CALL_BUDGET_MS, localSecretReferences } =
        require('../local/local-dispatcher') as typeof import('../local/local-dispatcher');
      const { localRunId } = require('../local/local-run') as typeof import('../local/local-run');
      const scenarios = loadScenarios(toolCatalog);
      if (options.scenario !== undefined && options.level !== undefined) {
        const levels = findScenario(scenarios, options.scenario).levels.map((level) => level.name);
        if (!levels.includes(options.level))
          throw new UnknownLevelError(options.scenario, options.level, levels);
      }
      const envelope = {
        tenant: options.tenant,
        tool,
        args,
        runId: options.runId ?? localRunId(),
        callId: `${options.level ?? 'cli'}/0`,
        ...(options.scenario !== undefined ? { scenario: options.scenario, level: options.level } : {}),
      };
      createCallCheck({
        catalog: toolCatalog,
        whitelists: levelWhitelists(scenarios),
        pins: levelPins(scenarios),
        requireLevel: false,
      })(envelope);
      const dispatch = createLocalDispatcher({
        references: localSecretReferences(secretRefsTable(options.table, io.env)),
        scenarios,
        requireLevel: false,
      });
      const result = await dispatch(envelope, deadlineIn(LOCAL_CALL_BUDGET_MS));
      io.out(`${JSON.stringify(result, null, 2)}\n`);
      if (!result.ok) run.exitCode = EXIT_FAILED;
    });
}

/**
 * `--args` parsed as a JSON object; refused as commander refuses an option's
 * value (exit 2, the command's help named), saying what the tool itself accepts.
 */
function invokeArgs(tool: string, value: string, command: Command): Record<string, unknown> {
  try {
    return parseJsonObject(value, argsAccepted(tool));
  } catch (err) {
    if (!(err instanceof InvalidArgumentError)) throw err;
    return command.error(`error: option '--args <json>' argument '${value}' is invalid. ${err.message}`, {
      code: 'commander.invalidArgument',
      exitCode: EXIT_USAGE,
    });
  }
}

/**
 * What `--args` of `tool` is, from the tool's own schema: its argument names
 * (`?` after an optional one, as the secret messages write them), or `{}` for a
 * tool that takes none; a tool the catalog lacks is refused by the dispatcher's
 * check afterwards, so only the shape is said.
 *
 * @example argsAccepted('github_org_facts') // "a JSON object of github_org_facts's arguments: org (etp tools schema …)"
 */
export function argsAccepted(tool: string): string {
  if (!toolCatalog.has(tool)) return "a JSON object of the tool's arguments";
  const schema = toJsonSchema(toolCatalog.get(tool).inputSchema) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const names = Object.keys(schema.properties ?? {}).map((name) => (required.has(name) ? name : `${name}?`));
  if (names.length === 0) return `{} (${tool} takes no arguments)`;
  return `a JSON object of ${tool}'s arguments: ${names.join(', ')} (etp tools schema --format mcp --tools ${tool} shows their schema)`;
}
