import * as path from 'node:path';
import { type Command, Option } from 'commander';
import { newTool } from '../dev/new-tool';
import { NAME_RULES, TOOL_KINDS, type ToolKind } from '../dev/tool-names';
import type { CliRun } from './io';

/** The repository root: where `etp dev` writes by default. */
const REPOSITORY_ROOT = path.resolve(__dirname, '..', '..');

/**
 * `etp dev new-tool <name> --kind aws|rest|file [--root <dir>]`: writes a new
 * tool's spec, implementation, test (and an AWS audit's API-call case) and its
 * catalog line, then prints the files written (stdout) and what to do next
 * (stderr). docs/adding-a-tool.md walks through what it writes.
 */
export function registerDevCommands(program: Command, run: CliRun): void {
  const { io } = run;
  const dev = program.command('dev').description('Developer commands: generate a tool');

  dev
    .command('new-tool')
    .description(
      "Write a new tool's spec, implementation, test and catalog line, from the framework's helpers",
    )
    .argument('<name>', `the new tool's snake_case name: ${NAME_RULES}`)
    // Not commander-mandatory: commander checks mandatory options before arguments, so a
    // missing name would be reported as a missing --kind; the action checks --kind instead.
    .addOption(new Option('--kind <kind>', 'what the tool talks to (required)').choices(TOOL_KINDS))
    .option('--root <dir>', 'repository to write into (default: this one)')
    .action((name: string, options: { kind?: ToolKind; root?: string }, command: Command) => {
      if (options.kind === undefined) {
        command.error(`error: required option '--kind <kind>' not specified (${TOOL_KINDS.join(', ')})`, {
          code: 'commander.missingMandatoryOptionValue',
          exitCode: 2,
        });
      }
      const created = newTool(name, options.kind, path.resolve(options.root ?? REPOSITORY_ROOT));
      for (const file of created.written) io.out(`${file}\n`);
      const test = created.written.find((file) => file.endsWith('.test.ts'));
      io.err(
        `Wrote ${created.names.tool}. Next: npx jest ${test} && npx tsc --noEmit -p . && npm run -s docs:tools && npm run -s docs:deploying; ` +
          'then replace the example logic (docs/adding-a-tool.md).\n',
      );
    });
}
