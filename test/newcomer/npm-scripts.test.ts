import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import * as path from 'node:path';
import { ROOT, run, userEnv } from './readme';

/**
 * The npm scripts as a newcomer runs them: with `-s`, stdout holds the CLI's
 * result alone (npm's banner is npm's, docs/cli.md), and a SIGTERM to a
 * backgrounded `npm run etp` reaches the CLI (the scripts `exec` it), so nothing
 * is left running.
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
      "error: required option '--tenant <tenant>' not specified (see: etp tools invoke --help)\n",
    );
  });

  it('pass a SIGTERM sent to npm alone on to the CLI, which stops and leaves nothing running', async () => {
    // Prepare: the README's scripted model, backgrounded (npm alone gets the signal, not its group).
    const npm = spawn('npm', ['run', '-s', 'etp', '--', 'model', 'serve', '--script', SCRIPT], {
      cwd: ROOT,
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      npm.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const found = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
        if (found) resolve(found[0]);
      });
      npm.on('exit', (code) => reject(new Error(`npm exited ${code} before serving: ${out}`)));
    });
    expect(await listening(url)).toBe(true);

    // Act
    npm.kill('SIGTERM');
    const code = await exited;

    // Assess: the server said goodbye (it got the signal) and its port is closed.
    expect(code).toBe(0);
    expect(out).toContain('Served 0 requests.');
    expect(await listening(url)).toBe(false);
  });
});
