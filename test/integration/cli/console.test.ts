import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { contentSecurityPolicy } from '../../../functions/console/headers';
import { runEtpProcess } from '../../helpers/etp-process';

const BIN = path.join(__dirname, '../../../bin/etp.js');

describe('etp console', () => {
  let localDir: string;

  beforeEach(() => {
    localDir = mkdtempSync(path.join(tmpdir(), 'etp-console-cli-'));
  });

  afterEach(() => {
    rmSync(localDir, { recursive: true, force: true });
  });

  it('prints its URL, serves the page with its security headers and the API, and exits 0 on Ctrl-C', async () => {
    // Prepare
    const child = spawn(process.execPath, [BIN, 'console', '--port', '0', '--local-dir', localDir], {
      env: { ...process.env, AWS_EC2_METADATA_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString('utf8');
          const line = /^(http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(stdout);
          if (line?.[1]) resolve(line[1]);
        });
        child.on('close', (code) => reject(new Error(`etp console exited ${code} before printing its URL`)));
      });

      // Act
      const page = await fetch(url);
      const session = await fetch(`${url}api/session`);
      const crossSite = await fetch(`${url}api/session`, { headers: { 'Sec-Fetch-Site': 'cross-site' } });

      // Assess
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(await page.text()).toContain('<script type="module" src="/app.js"></script>');
      expect(await session.json()).toMatchObject({ mode: 'local', tenants: ['default'], canStartRuns: true });
      expect(crossSite.status).toBe(403);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 60_000);

  it.each([
    [['console', '--local-dir', '<dir>']],
    [['model', 'serve', '--script', path.join(__dirname, '../../../bin/local/scripts/aws-pulse.yaml')]],
  ])(
    '%j on a port in use exits 1 naming the port and what to pass instead',
    async (args) => {
      // Prepare: another process's server on the port
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const { port } = taken.address() as AddressInfo;
      try {
        // Act
        const outcome = await runEtpProcess([
          ...args.map((arg) => (arg === '<dir>' ? localDir : arg)),
          '--port',
          String(port),
        ]);

        // Assess
        expect(outcome).toMatchObject({
          code: 1,
          stdout: '',
          stderr: `error: --port ${port}: 127.0.0.1:${port} is already in use by another process; pass another --port (0: any free port)\n`,
        });
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }
    },
    60_000,
  );

  it.each([
    [['--port', '70000'], 'error: --port 70000: expected a port number from 0 to 65535\n'],
    [['--tenants', 'acme,a/b'], expect.stringMatching(/^error: --tenants .*tenant id/)],
  ])(
    'exits 2 for %j',
    async (args, message) => {
      // Act
      const outcome = await runEtpProcess(['console', '--local-dir', localDir, ...args]);

      // Assess
      expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({ code: 2, stderr: message });
    },
    60_000,
  );
});
