import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { consoleCatalog } from '../../functions/console/catalog-view';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { assertIdentifier, TENANT_ID } from '../../functions/runtime/ids';
import { LOCAL_DIR_ENV } from '../../functions/runtime/local-workspace-dir';
import { redactString } from '../../functions/runtime/redact';
import { toolCatalog } from '../../functions/tools/catalog';
import { loadScenarios, SCENARIOS_DIR } from '../../lib/scenarios/loader';
import { localConsoleBackend } from '../local/console-backend';
import { startConsoleServer } from '../local/console-server';
import { localSecretReferences } from '../local/local-dispatcher';
import type { CliRun } from './io';
import { listenOn, localRunPlaces, MODEL_ENDPOINT_ENV, secretRefsTable } from './options';
import { SCENARIOS_DIR_ENV } from './scenario';

interface ConsoleOptions {
  readonly port: string;
  readonly localDir?: string;
  readonly table?: string;
  readonly modelEndpoint?: string;
  readonly tenants?: string;
}

/** The port `etp console` listens on unless `--port` says otherwise. */
export const DEFAULT_CONSOLE_PORT = 4380;

/** Resolves on SIGINT or SIGTERM (Ctrl-C): the console then stops. */
function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * `etp console`: the web console on 127.0.0.1, against the local stores — the
 * run workspaces and records of `--local-dir`, the secret references of `--table`
 * (or the embedded store) — and runs started from the page in this process.
 * Prints the URL on stdout and serves until interrupted.
 */
export function registerConsoleCommand(program: Command, run: CliRun): void {
  const { io } = run;
  program
    .command('console')
    .description(
      'Serve the web console on 127.0.0.1 against the local runs, workspaces and secret references',
    )
    .option('--port <port>', 'port on 127.0.0.1 (0: any free port)', String(DEFAULT_CONSOLE_PORT))
    .option(
      '--local-dir <dir>',
      `workspaces and run records of local runs (default: $${LOCAL_DIR_ENV}, else <tmp>/etp-local)`,
    )
    .option(
      '--table <name>',
      'secret-reference table (default: $ETP_SECRET_REFS_TABLE, else the embedded store)',
    )
    .option(
      '--model-endpoint <url>',
      `a Converse-compatible endpoint for runs started from the page, e.g. etp model serve (default: $${MODEL_ENDPOINT_ENV}, else Bedrock)`,
    )
    .option('--tenants <list>', 'only these tenants, comma-separated (default: every local tenant)')
    .action(async (options: ConsoleOptions) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new InvalidArgsError(`--port ${options.port}: expected a port number from 0 to 65535`);
      }
      const tenants = options.tenants?.split(',').map((tenant) => tenant.trim());
      for (const tenant of tenants ?? []) assertIdentifier(TENANT_ID, tenant, '--tenants');
      const { modelEndpoint, localDir } = localRunPlaces(options, io.env);
      // Tools run in this process read the local bucket from their environment, as `etp scenario run --local`.
      process.env[LOCAL_DIR_ENV] = localDir;
      const scenarios = loadScenarios(toolCatalog, io.env[SCENARIOS_DIR_ENV] || SCENARIOS_DIR);
      const table = secretRefsTable(options.table, io.env);
      const backend = localConsoleBackend({
        localDir,
        references: localSecretReferences(table),
        scenarios,
        catalog: consoleCatalog(toolCatalog, scenarios),
        ...(modelEndpoint ? { modelEndpoint } : {}),
        onRunError: (runId, err) =>
          io.err(`run ${runId} failed: ${redactString(err instanceof Error ? err.message : String(err))}\n`),
      });
      const server = await listenOn(port, () =>
        startConsoleServer(backend, { name: userName(), tenants: tenants ?? '*' }, { port }),
      );
      io.err(
        `Console of ${localDir} (secrets from ${table ? `table ${table}` : 'the embedded default store'}, model ${
          modelEndpoint ? redactString(modelEndpoint) : 'Bedrock'
        }); Ctrl-C stops it.\n`,
      );
      io.out(`${server.url}\n`);
      await untilInterrupted();
      await server.stop();
    });
}

/** The OS user (answers and seeded rows say who), or `local` where there is none. */
function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'local';
  }
}
