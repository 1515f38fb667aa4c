/**
 * What the newcomer suite reads from the README and how it runs it: the project
 * root, the README's fenced blocks, and a process started as a user's shell or
 * an MCP client would start it — from another directory, with the system's Node
 * first on PATH, and no AWS identity or network lookups.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The clone's root. */
export const ROOT = path.join(__dirname, '../..');

/** The README as a newcomer reads it. */
export const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** Where the README's configs say the clone is. */
export const README_PATH_PLACEHOLDER = '/path/to/external-tools-platform';

/** The fenced blocks of the README (`lang` e.g. `json`, `sh`), in order. */
export function fencedBlocks(lang: string): string[] {
  return [...README.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (m) => m[1] as string,
  );
}

/** A fresh directory outside the clone, as another project's or the home directory. */
export function elsewhere(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'etp-newcomer-'));
}

/**
 * The system's Node (`/usr/bin/node`, Node 20 on these machines), when it is not
 * the Node running the tests; PATH puts its directory first, as a login shell has it.
 */
export const SYSTEM_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((candidate) => {
  try {
    return readFileSync(candidate).length > 0;
  } catch {
    return false;
  }
});

/** A user's environment: the system's Node first on PATH, no AWS identity, no instance-metadata lookups. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const keep = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(AWS_|ETP_|SLACK_|POWERTOOLS_|npm_|INIT_CWD|NODE_OPTIONS|JEST)/.test(key),
    ),
  );
  const systemBin = SYSTEM_NODE ? path.dirname(SYSTEM_NODE) : undefined;
  const pathDirs = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => !dir.includes('node_modules'));
  return {
    ...keep,
    PATH: [...(systemBin ? [systemBin] : []), ...pathDirs].join(path.delimiter),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: path.join(os.tmpdir(), 'etp-newcomer-no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(os.tmpdir(), 'etp-newcomer-no-aws-credentials'),
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    ...extra,
  };
}

/** What a process did. */
export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command args` in `cwd` with `env`, killed past `timeoutMs`. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
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
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
