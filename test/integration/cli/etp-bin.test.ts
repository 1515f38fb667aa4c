/**
 * The real `bin/etp.js` in a child process (Node 24, tsx registered by the shim):
 * exit codes and messages as a shell sees them. Each spawn costs about a second,
 * so only what in-process tests cannot show is here.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

const BIN = path.join(__dirname, '../../../bin/etp.js');

/** A run must end well within the minute `npm start` is allowed. */
const RUN_TIMEOUT_MS = 60_000;

interface BinOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
}

/**
 * The environment of the child: this process's, without any AWS, Slack, Powertools
 * or etp setting, and with the SDK kept away from real credentials and config
 * (no shared files, no instance metadata).
 */
function isolatedEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(AWS_|ETP_|SLACK_|POWERTOOLS_)/.test(key)),
  );
  return {
    ...env,
    AWS_CONFIG_FILE: path.join(__dirname, 'no-such-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(__dirname, 'no-such-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

/** Runs `etp <args>` with the Node running the tests (Node 24 under npm/npx); kills it past the timeout. */
function etpBin(args: readonly string[]): Promise<BinOutcome> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: isolatedEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, wallMs: Date.now() - started });
    });
  });
}

describe('bin/etp.js', () => {
  it.each([
    [['nope'], "error: unknown command 'nope'. Commands of etp: tools, secrets, scenario\n"],
    [
      ['tools', 'invoke', 'aws_ec2_inventory', '--args', '{}'],
      "error: required option '--tenant <tenant>' not specified (see: etp tools invoke --help)\n",
    ],
    [
      ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args', 'regions=eu-west-1'],
      "error: option '--args <json>' argument 'regions=eu-west-1' is invalid. Expected a JSON object such as " +
        `'{"regions":["eu-west-1"]}' (Unexpected token 'r', "regions=eu-west-1" is not valid JSON). (see: etp tools invoke --help)\n`,
    ],
    [
      [
        'secrets',
        'seed',
        '--tenant',
        'acme',
        '--secret-name',
        'slack_default',
        '--ref-kind',
        'file',
        '--ref-value',
        'X',
      ],
      "error: option '--ref-kind <kind>' argument 'file' is invalid. Allowed choices are env, secrets_manager. (see: etp secrets seed --help)\n",
    ],
    [
      ['scenario', 'run', 'aws_pulse', '--local', '--input', '["eu-west-1"]'],
      "error: option '--input <json>' argument '[\"eu-west-1\"]' is invalid. Expected a JSON object such as " +
        `'{"regions":["eu-west-1"]}', got an array. (see: etp scenario run --help)\n`,
    ],
  ])(
    'exits 2 with one line on stderr for %j',
    async (args, message) => {
      // Act
      const outcome = await etpBin(args);

      // Assess
      expect({ code: outcome.code, stdout: outcome.stdout, stderr: outcome.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: message,
      });
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'runs aws_pulse locally without AWS credentials or a Slack secret: two per-tool errors, exit 0, no stack trace',
    async () => {
      // Act
      const outcome = await etpBin(['scenario', 'run', 'aws_pulse', '--local', '--run-id', 'bin-run-1']);

      // Assess
      const lines = outcome.stdout.trimEnd().split('\n');
      expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({ code: 0, stderr: '' });
      expect(lines).toHaveLength(4);
      expect(lines[0]).toBe(
        'Running aws_pulse locally: run bin-run-1, tenant default, secrets from the embedded default store',
      );
      expect(lines[1]).toMatch(
        /^collect {2}aws_ec2_inventory {2}… ✗ auth_failed: .*credentials.* \(\d+ ms\)$/,
      );
      expect(lines[2]).toMatch(
        /^report {3}slack_post_message … ✗ secret_not_found: Secret "slack_default" of tenant "default" points at environment variable ETP_SLACK_DEFAULT, which is not set \(\d+ ms\)$/,
      );
      expect(lines[3]).toMatch(
        /^Completed aws_pulse run bin-run-1 in \d+(\.\d)? m?s: 0 ok, 2 failed \(auth_failed, secret_not_found\)\.$/,
      );
      expect(outcome.wallMs).toBeLessThan(RUN_TIMEOUT_MS);
    },
    RUN_TIMEOUT_MS + 5_000,
  );
});
