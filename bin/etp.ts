/**
 * `etp`, the External Tools Platform CLI (docs/cli.md). Started by `bin/etp.js`,
 * which registers tsx and quiets Powertools logs; `npx tsx bin/etp.ts` works too.
 */
import { processIo } from './cli/io';
import { runCli } from './cli/program';

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
