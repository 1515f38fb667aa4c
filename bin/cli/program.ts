import { Command, CommanderError } from 'commander';
import { type ErrorCode, InvalidArgsError, PlatformError } from '../../functions/runtime/errors';
import { redactString } from '../../functions/runtime/redact';
import { version } from '../../package.json';
import { awsSetupHint } from './aws-setup-hint';
import { COMMANDS, commandNamed } from './commands';
import { type CliIo, type CliRun, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './io';

/**
 * Platform error codes that mean the command line asked for something that does
 * not exist or is malformed, when the CLI finds it before running anything. The
 * same codes in a tool call's `ok: false` result exit 1, like any failed call.
 */
const USAGE_ERROR_CODES: ReadonlySet<ErrorCode> = new Set([
  'invalid_args',
  'unknown_scenario',
  'unknown_level',
  'unknown_tool',
  // Thrown only by `etp tools invoke`'s checks before the call: the level does not allow the tool.
  'tool_not_allowed',
]);

/** commander's "help was shown on request" and "version was shown" outcomes: not errors. */
const HELP_CODES: ReadonlySet<string> = new Set(['commander.helpDisplayed', 'commander.version']);

/**
 * The `etp` program writing through `run.io`, with the one command `argv` runs
 * loaded ({@link COMMANDS}); the others are listed by name and summary only, for
 * `etp --help` and the suggestion after a misspelt command. commander never exits
 * the process (`exitOverride`) and never prints an error itself: {@link runCli}
 * prints each as one line.
 */
export function createProgram(run: CliRun, argv: readonly string[] = []): Command {
  const program = new Command('etp')
    .description(
      'External Tools Platform: list, document, export and invoke tools, manage secret references, run and start scenarios, answer their questions, serve MCP.',
    )
    .version(version, '--version', 'print the version')
    .option('--verbose', 'show Powertools logs and stack traces')
    .exitOverride()
    .configureOutput({ writeOut: run.io.out, writeErr: run.io.err, outputError: () => {} })
    .showSuggestionAfterError(true);
  const running = commandNamed(argv);
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if (name === running) entry.load()(program, run);
    else program.command(name).description(entry.summary);
  }
  refuseRepeatedAndEmptyValues(program);
  return program;
}

/**
 * Usage rules every command shares, set once here rather than in each command:
 * an option that takes one value is given once (commander would keep the last
 * silently), and neither an option's value nor an argument is empty (an empty
 * `--write`, `--table` or tool name would otherwise fall back to a default or
 * reach a remote call). Each is an InvalidArgsError: exit code 2, before anything runs.
 */
function refuseRepeatedAndEmptyValues(command: Command): void {
  for (const option of command.options) {
    // Flags (--json) take no value: repeating one changes nothing.
    if (!option.required && !option.optional) continue;
    const flag = option.long ?? option.short ?? option.flags;
    let given = false;
    command.on(`option:${option.name()}`, (value: unknown) => {
      if (given && !option.variadic) {
        throw new InvalidArgsError(`${flag} was given more than once; give it once (${option.flags})`);
      }
      given = true;
      if (typeof value === 'string' && value.trim() === '') {
        throw new InvalidArgsError(
          `${flag} is empty; give ${option.flags.replace(/^.*?</, '<')} (${option.description})`,
        );
      }
    });
  }
  command.hook('preAction', (_program, action) => {
    action.registeredArguments.forEach((argument, index) => {
      if (action.processedArgs[index] === '') {
        throw new InvalidArgsError(
          `<${argument.name()}> is empty; give ${argument.description || `a ${argument.name()}`}`,
        );
      }
    });
  });
  for (const sub of command.commands) refuseRepeatedAndEmptyValues(sub);
}

/**
 * Runs `etp` with `argv` (the arguments after `etp`) and never throws.
 *
 * @returns the exit code: 0 done, 1 runtime failure (a tool returned `ok: false`,
 *   an execution failed, a table could not be reached), 2 usage error (printed as
 *   one line saying what was wrong and what is accepted). Stack traces only with `--verbose`.
 * @example
 * const code = await runCli(['tools', 'list', '--json'], processIo());
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const run: CliRun = { io, exitCode: EXIT_OK };
  const program = createProgram(run, argv);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return run.exitCode;
  } catch (err) {
    return reportError(err, commandOf(program, argv), argv.includes('--verbose'), io);
  }
}

/**
 * Prints `err` on stderr as one line and returns its exit code. Every line is
 * redacted as a tool result is: usage errors echo what was typed (an `--args`
 * value, an id, an envelope field), which may hold a token pasted by mistake.
 */
function reportError(err: unknown, command: Command, verbose: boolean, io: CliIo): number {
  const printed = { ...io, err: (text: string) => io.err(redactString(text)) };
  return printError(err, command, verbose, printed);
}

function printError(err: unknown, command: Command, verbose: boolean, io: CliIo): number {
  if (err instanceof CommanderError) {
    if (HELP_CODES.has(err.code)) return EXIT_OK;
    // `commander.help` is both the help asked for (`etp help`, `etp tools help invoke`: on stdout,
    // exit code 0) and the help printed because a subcommand is missing (`etp tools`: on stderr, 1).
    if (err.code === 'commander.help') return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    io.err(`${oneLine(err.message)}${hintFor(err, command)}\n`);
    return EXIT_USAGE;
  }
  // The platform's messages already say what is accepted (the known scenarios, the allowed kinds).
  const usage = err instanceof PlatformError && USAGE_ERROR_CODES.has(err.code);
  const message = err instanceof Error ? err.message : String(err);
  const setup = awsSetupHint(err);
  io.err(`error: ${oneLine(message)}${setup ? ` (${setup})` : ''}\n`);
  if (verbose) {
    // The error and what caused it (a ServiceCallError wraps the SDK's own), each with its stack.
    for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
      io.err(`${depth > 0 ? 'Caused by: ' : ''}${e.stack ?? `${e.name}: ${e.message}`}\n`);
    }
  }
  return usage ? EXIT_USAGE : EXIT_FAILED;
}

/** What is accepted, after commander's own message: the subcommands, or where the help is. */
function hintFor(err: CommanderError, command: Command): string {
  if (err.code === 'commander.unknownCommand') {
    return `. Commands of ${commandPath(command)}: ${command.commands.map((c) => c.name()).join(', ')}`;
  }
  const accepted = acceptedFor(err, command);
  return `${accepted ? `; ${accepted}` : ''} (see: ${commandPath(command)} --help)`;
}

/**
 * What a missing argument or option value accepts, from the command's own
 * declaration (the argument's description, the option's choices or description):
 * commander's "missing required argument 'name'" and "option '--kind <kind>'
 * argument missing" say only what is missing.
 */
function acceptedFor(err: CommanderError, command: Command): string | undefined {
  if (err.code === 'commander.missingArgument') {
    const name = /'([^']+)'/.exec(err.message)?.[1];
    const description = command.registeredArguments.find((argument) => argument.name() === name)?.description;
    return description ? `<${name}> is ${description}` : undefined;
  }
  if (
    err.code === 'commander.optionMissingArgument' ||
    err.code === 'commander.missingMandatoryOptionValue'
  ) {
    const flags = /option '([^']+)'/.exec(err.message)?.[1];
    const option = command.options.find((candidate) => candidate.flags === flags);
    if (!option) return undefined;
    if (option.argChoices) return `${option.flags} is one of ${option.argChoices.join(', ')}`;
    return option.description ? `${option.flags}: ${option.description}` : undefined;
  }
  return undefined;
}

/** The deepest command `argv` names (`etp tools invoke`), to point at its help. */
function commandOf(program: Command, argv: readonly string[]): Command {
  let command = program;
  for (const token of argv) {
    if (token.startsWith('-')) continue;
    const sub = command.commands.find((c) => c.name() === token);
    if (!sub) break;
    command = sub;
  }
  return command;
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** commander puts its suggestion on a second line; messages are printed on one. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
