/**
 * `etp`, the External Tools Platform CLI (docs/cli.md). Started by `bin/etp.js`,
 * which registers tsx and quiets Powertools logs; `npx tsx bin/etp.ts` works too.
 */
import { processIo } from './cli/io';
import { runCli } from './cli/program';

/** Resolves once everything written to `stream` so far has been handed to the OS. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

// A reader that stops early (`etp tools list --json | head`) closes the pipe: the rest of the output
// has nowhere to go, which is not an error of the command. Exit quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

// Exit as soon as the command is done, with its code: a request still waiting on an
// endpoint that never answers (its result already reported as a timeout) must not
// keep the process alive until the socket gives up. Output is flushed first.
void runCli(process.argv.slice(2), processIo()).then(async (code) => {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
});
