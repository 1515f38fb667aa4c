/** Runs `etp` in this process, the way `bin/etp.ts` does, with its output captured. */
import { Readable } from 'node:stream';
import { COMMANDS } from '../../../bin/cli/commands';
import { runCli } from '../../../bin/cli/program';

// The CLI loads each command module, and the local run's modules, only when a command runs
// (bin/cli/commands.ts). Tests load them once here, with the test file, so each test's time
// (and its timeout) holds its own work, not the first load of the dispatcher and the engine.
for (const entry of Object.values(COMMANDS)) entry.load();
require('../../../bin/local/local-run');
require('../../../lib/scenarios/loader');

/** What one `etp` invocation did. */
export interface EtpOutcome {
  readonly code: number;
  /** Everything written to stdout. */
  readonly out: string;
  /** Everything written to stderr. */
  readonly err: string;
}

/**
 * `etp <argv>` in process.
 *
 * @param env - the CLI's own environment (`ETP_SECRET_REFS_TABLE`); the AWS SDK reads `process.env`.
 * @param stdin - the text on standard input (`--value-file -`); absent: none.
 */
export async function etp(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = {},
  stdin?: string | Buffer,
): Promise<EtpOutcome> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    env,
    ...(stdin === undefined ? {} : { stdin: Readable.from([stdin]) }),
  });
  return { code, out, err };
}
