import type { Command } from 'commander';
import type { CliRun } from './io';

/**
 * Adds one top-level command (and its subcommands) to the program. Each command
 * module exports one, e.g. `registerToolsCommands(program, run)`.
 */
export type RegisterCommand = (program: Command, run: CliRun) => void;

/** A top-level command of `etp`: what `etp --help` says of it, and how to load it. */
export interface CommandEntry {
  /** One line for `etp --help`; the module's own `.description()` is what `etp <name> --help` shows. */
  readonly summary: string;
  /**
   * Loads the command's module and returns its register function. Called only when
   * the command runs: `etp --version` or `etp tools list` never loads the AWS SDK
   * clients of `scenario start` or the MCP SDK of `etp mcp`.
   */
  readonly load: () => RegisterCommand;
}

/**
 * The top-level commands of `etp`, name → module, each loaded only when it runs
 * (docs/cli.md, "Adding a command"). A synchronous `require` in a function, because
 * the CLI runs as CommonJS (tsx's CommonJS hook, ts-jest): a dynamic `import()`
 * would go through the ES module loader, which tsx is not registered for.
 *
 * To add a command: write `bin/cli/<name>.ts` exporting `register…(program, run)`,
 * and add one line here. Nothing else in the program changes.
 */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  tools: {
    summary: 'List, document and invoke the registered tools',
    load: () => (require('./tools') as typeof import('./tools')).registerToolsCommands,
  },
  secrets: {
    summary: 'Manage secret references (where a tenant secret lives, never its value)',
    load: () => (require('./secrets') as typeof import('./secrets')).registerSecretsCommands,
  },
  scenario: {
    summary: 'List, validate, run (locally) and start scenarios',
    load: () => (require('./scenario') as typeof import('./scenario')).registerScenarioCommands,
  },
  run: {
    summary: 'Questions of deployed runs waiting for an answer, and answers',
    load: () => (require('./run') as typeof import('./run')).registerRunCommands,
  },
  model: {
    summary: 'A scripted model to run agent levels offline',
    load: () => (require('./model') as typeof import('./model')).registerModelCommands,
  },
  mcp: {
    summary: 'Serve the tools to an MCP client over stdio (stdout is the protocol; logs go to stderr)',
    load: () => (require('./mcp') as typeof import('./mcp')).registerMcpCommand,
  },
  console: {
    summary: 'Serve the web console on 127.0.0.1 against the local stores',
    load: () => (require('./console') as typeof import('./console')).registerConsoleCommand,
  },
  dev: {
    summary: 'Developer tools: generate a new tool from the framework (etp dev new-tool)',
    load: () => (require('./dev') as typeof import('./dev')).registerDevCommands,
  },
};

/**
 * The top-level command `argv` runs, or asks help for (`etp help tools`): its
 * first word that is not an option, when it names an entry of {@link COMMANDS}
 * (the program's own options, `--verbose` and `--version`, take no value).
 */
export function commandNamed(argv: readonly string[]): string | undefined {
  const words = argv.filter((token) => !token.startsWith('-'));
  const first = words[0] === 'help' ? words[1] : words[0];
  return first !== undefined && Object.hasOwn(COMMANDS, first) ? first : undefined;
}
