import type { Command } from 'commander';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { loadModelScript, startScriptedModel } from '../local/scripted-model';
import type { CliRun } from './io';
import { listenOn, millisecondsArgument } from './options';

/** The longest latency a scripted response may wait, ms: 10 minutes. */
const MAX_LATENCY_MS = 600_000;

/**
 * `etp model serve --script <file>`: the scripted Converse server, so a whole
 * agent run can be watched offline: `etp scenario run <name> --local
 * --model-endpoint <url>` in another terminal. Serves until interrupted
 * (Ctrl-C), or until `stop` resolves (tests).
 */
export function registerModelCommands(program: Command, run: CliRun, stop?: Promise<void>): void {
  const { io } = run;
  const model = program.command('model').description('A scripted model to run agent levels offline');

  model
    .command('serve')
    .description(
      'Serve a scripted model speaking the Bedrock Converse API on 127.0.0.1 (HTTP/1.1 and HTTP/2)',
    )
    .requiredOption(
      '--script <file>',
      'YAML or JSON list of responses (text, tool_use, error), replayed in order',
    )
    .option('--port <port>', 'port to listen on (default: any free port)', (value) => {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new InvalidArgsError(`--port ${value}: expected a port number, 0-65535`);
      }
      return port;
    })
    .option(
      '--latency-ms <ms>',
      'milliseconds each response waits (a model’s latency)',
      millisecondsArgument(MAX_LATENCY_MS),
      0,
    )
    .action(async (options: { script: string; port?: number; latencyMs: number }) => {
      const script = loadModelScript(options.script);
      // Listening for the signals before the URL is printed: whoever waits for the URL and
      // then stops the server (a script, a test) never finds it without its handlers.
      const stopped =
        stop ??
        new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
      const server = await listenOn(options.port, () =>
        startScriptedModel(script, { port: options.port, latencyMs: options.latencyMs }),
      );
      io.out(
        `Scripted model (${script.length} responses from ${options.script}) listening on ${server.url}\n` +
          `Run against it: npx etp scenario run <name> --local --model-endpoint ${server.url}\n`,
      );
      await stopped;
      await server.stop();
      io.out(`Served ${server.requests.length} requests.\n`);
    });
}
