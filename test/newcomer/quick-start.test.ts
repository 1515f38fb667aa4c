import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { elsewhere, README, ROOT, run, userEnv } from './readme';

/**
 * The README's quick start as a newcomer runs it on a fresh clone: `npm start`
 * without credentials, then the offline scripted-model run, twice in a row, each
 * started exactly as the README writes it (npm, npx, from the clone's root).
 */
const SCRIPT = 'bin/local/scripts/aws-pulse.yaml';

describe('the README quick start', () => {
  it('names the commands this suite runs', () => {
    expect(README).toContain('npm ci && npm start   # install, then run the aws_pulse scenario locally');
    expect(README).toContain(
      `npm run -s etp -- model serve --script ${SCRIPT}   # prints http://127.0.0.1:<port>`,
    );
    expect(README).toContain('npm start -- --model-endpoint http://127.0.0.1:<port>');
  });

  it('npm start without credentials finishes with a clear error per level, the report in plain words, and exits 1', async () => {
    // Act
    const started = await run('npm', ['start'], { cwd: ROOT, env: userEnv() });

    // Assess
    expect(started.code).toBe(1);
    expect(started.stdout).toContain('Run summary: aws_pulse run local-');
    expect(started.stdout).toMatch(/Report \(analyze\):\n {4}\S/);
    expect(started.stderr).toMatch(/auth_failed|network_error|secret_not_found/);
    expect(started.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
  });

  it('runs the scripted model twice in a row: the same answers, the report printed, the local model priced at $0', async () => {
    // Prepare: the scripted model as the README starts it, in another terminal.
    const model = spawn('npm', ['run', '-s', 'etp', '--', 'model', 'serve', '--script', SCRIPT], {
      cwd: ROOT,
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: npm, its shell and the server are stopped together, as Ctrl-C does.
      detached: true,
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        model.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          const found = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
          if (found) resolve(found[0]);
        });
        model.on('exit', (code) => reject(new Error(`etp model serve exited ${code}: ${out}`)));
      });

      // Act: the README's second command, twice.
      const runs = [];
      for (let n = 0; n < 2; n++) {
        runs.push(await run('npm', ['start', '--', '--model-endpoint', url], { cwd: ROOT, env: userEnv() }));
      }

      // Assess: the agent level finished both times with the script's report, and nothing was billed for the model.
      for (const each of runs) {
        expect(each.stderr).toMatch(/analyze: finished after 2 turns/);
        expect(each.stdout).toContain('(scripted model) AWS Pulse: this report comes from a scripted model');
        expect(each.stdout).toContain('its tokens are priced at $0');
        expect(each.stdout).not.toContain('Bedrock refused');
      }
    } finally {
      if (model.pid !== undefined) process.kill(-model.pid, 'SIGINT');
    }
  });

  it('resolves a relative path from where the command was typed, for npm run -s etp -- and for npx etp alike', async () => {
    // Prepare
    const dir = elsewhere();

    // Act
    const viaNpm = await run(
      'npm',
      ['--prefix', ROOT, 'run', '-s', 'etp', '--', 'tools', 'docs', '--write', 'npm.md'],
      {
        cwd: dir,
        env: userEnv(),
      },
    );
    const viaNpx = await run(
      'npx',
      ['--yes', '--prefix', ROOT, 'etp', 'tools', 'docs', '--write', 'npx.md'],
      {
        cwd: dir,
        env: userEnv(),
      },
    );

    // Assess: both wrote into the directory they were typed in.
    expect(viaNpm).toMatchObject({ code: 0 });
    expect(viaNpm.stdout).toMatch(/^Wrote npm\.md \(\d+ tools\)\n$/);
    expect(viaNpx).toMatchObject({ code: 0 });
    expect(existsSync(path.join(dir, 'npm.md'))).toBe(true);
    expect(existsSync(path.join(dir, 'npx.md'))).toBe(true);
    expect(existsSync(path.join(ROOT, 'npm.md'))).toBe(false);
  });
});
