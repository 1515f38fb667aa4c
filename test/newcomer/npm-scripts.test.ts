import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import * as path from 'node:path';
import { ROOT, run, SYSTEM_NODE, userEnv } from './readme';

/**
 * The npm scripts as a newcomer runs them: with `-s`, stdout holds the CLI's
 * result alone (npm's banner is npm's, docs/cli.md), and a SIGTERM to a
 * backgrounded `npm run etp` reaches the CLI (the scripts `exec` it), so nothing
 * is left running; started by an older Node, the shim passes SIGTERM and SIGINT
 * on to its Node 24 child and exits with the child's code.
 */
const SCRIPT = 'bin/local/scripts/aws-pulse.yaml';
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

/** Whether something still listens at `url`'s port on 127.0.0.1. */
function listening(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the npm scripts', () => {
  it('with -s leave stdout to the result alone, a usage error included (npm prints its banner on stdout otherwise)', async () => {
    const version = await run('npm', ['run', '-s', 'etp', '--', '--version'], { cwd: ROOT, env: userEnv() });
    const refused = await run('npm', ['run', '-s', 'etp', '--', 'tools', 'invoke', 'nope'], {
      cwd: ROOT,
      env: userEnv(),
    });

    expect([version.code, version.stdout, version.stderr]).toEqual([0, `${VERSION}\n`, '']);
    expect([refused.code, refused.stdout]).toEqual([2, '']);
    expect(refused.stderr).toBe(
      "error: required option '--tenant <tenant>' not specified; --tenant <tenant>: tenant whose secrets the tool resolves (see: etp tools invoke --help)\n",
    );
  });

  it('pass a SIGTERM sent to npm alone on to the CLI, which stops and leaves nothing running', async () => {
    // The README's scripted model, backgrounded (npm alone gets the signal, not its group).
    const stopped = await serveThenSignal('npm', ['run', '-s', 'etp', '--', ...SERVE], 'SIGTERM');

    // The server said goodbye (it got the signal) and its port is closed.
    expect(stopped).toEqual({ code: 0, said: true, listeningAfter: false });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on a Node older than 24, pass %s from the shim to its Node 24 child and exit with its code',
    async (signal) => {
      // The system's Node (20 on these machines): bin/etp.js starts itself again on the project's Node 24.
      const node = SYSTEM_NODE ?? process.execPath;
      const stopped = await serveThenSignal(node, [path.join(ROOT, 'bin/etp.js'), ...SERVE], signal);

      expect(stopped).toEqual({ code: 0, said: true, listeningAfter: false });
    },
  );
});

/** `etp model serve` with the README's script. */
const SERVE = ['model', 'serve', '--script', SCRIPT];

/**
 * Starts `command args` (an `etp model serve`) in the project's root, waits for
 * its URL and for its port to accept a connection, sends `signal` to that process
 * alone at once (the server listens for the signals before it prints its URL),
 * and reports its exit code, whether the server said goodbye, and whether its
 * port still answers.
 */
async function serveThenSignal(
  command: string,
  args: readonly string[],
  signal: NodeJS.Signals,
): Promise<{ code: number | null; said: boolean; listeningAfter: boolean }> {
  const child = spawn(command, args, { cwd: ROOT, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const found = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (found) resolve(found[0]);
    });
    child.on('exit', (code) => reject(new Error(`${command} exited ${code} before serving: ${out}`)));
  });
  if (!(await listening(url))) throw new Error(`nothing listens at ${url}`);
  child.kill(signal);
  const code = await exited;
  return { code, said: out.includes('Served 0 requests.'), listeningAfter: await listening(url) };
}
