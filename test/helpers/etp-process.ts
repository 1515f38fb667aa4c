/**
 * The real `bin/etp.js` in a child process (Node 24, tsx registered by the shim),
 * as a shell runs it: exit code, output, wall time.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

const BIN = path.join(__dirname, '../../bin/etp.js');

/** What a run of `etp` left behind. */
export interface EtpProcessOutcome {
  /** Exit code; null when the run was killed for outliving its `timeoutMs`. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
}

/** Options of {@link runEtpProcess}. */
export interface EtpProcessOptions {
  /** Variables added to the isolated environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Node options placed before the script (`--import …`). */
  readonly nodeArgs?: readonly string[];
  /** The child is killed (code null) past this, ms. @default 60_000 */
  readonly timeoutMs?: number;
  /** Close the read end of stdout once this many bytes arrived, as `| head -c N` does. @default never */
  readonly closeStdoutAfterBytes?: number;
}

/**
 * The environment of the child: this process's, without any AWS, Slack,
 * Powertools or etp setting, and with the SDK kept away from real credentials
 * and config (no shared files, no instance metadata).
 */
function isolatedEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(AWS_|ETP_|SLACK_|POWERTOOLS_)/.test(key)),
  );
  return {
    ...env,
    AWS_CONFIG_FILE: path.join(__dirname, 'no-such-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(__dirname, 'no-such-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    ...extra,
  };
}

/**
 * Runs `etp <args>` with the Node running the tests (Node 24 under npm/npx).
 *
 * @example
 * const { code, stdout } = await runEtpProcess(['tools', 'list']);
 */
export function runEtpProcess(
  args: readonly string[],
  options: EtpProcessOptions = {},
): Promise<EtpProcessOutcome> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
      env: isolatedEnv(options.env ?? {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (options.closeStdoutAfterBytes !== undefined && stdout.length >= options.closeStdoutAfterBytes) {
        child.stdout.destroy();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
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
