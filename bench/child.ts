/**
 * Measurements that run in a fresh Node.js process, from their own bundle (as
 * the CDK bundles a function) under plain node: memory high-water marks and
 * logging costs are then those of the measurement alone in a process shaped like
 * a Lambda function's, and its stdout (log lines) is drained and dropped as
 * Lambda's log pipe takes it. A measurement module calls {@link reportToParent}
 * when it is the main module; the parent starts it with {@link runInChild}.
 */
import { spawn } from 'node:child_process';

/**
 * Runs the bundled measurement `file` in a child process (this process's node,
 * with `nodeOptions`) with `env` added to this process's environment, and
 * resolves to what it reported.
 *
 * @throws Error when the child exits without reporting (its stderr is inherited).
 */
export function runInChild<T>(
  file: string,
  env: Readonly<Record<string, string>>,
  nodeOptions: readonly string[] = [],
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeOptions, file], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    let reported = false;
    let result: T | undefined;
    child.stdout?.resume();
    child.on('message', (message) => {
      reported = true;
      result = message as T;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (reported) resolve(result as T);
      else reject(new Error(`${file} exited with code ${code} without reporting`));
    });
  });
}

/**
 * The child side: runs `measure` and sends its result to the parent over IPC.
 * A failure is printed to stderr and sets a non-zero exit code.
 */
export function reportToParent(measure: () => Promise<unknown>): void {
  measure()
    .then(
      (result) =>
        new Promise<void>((resolve, reject) => {
          if (!process.send) throw new Error('Run this measurement through bench/run.ts (no IPC channel)');
          process.send(result, (err: Error | null) => (err ? reject(err) : resolve()));
        }),
    )
    .then(() => process.disconnect?.())
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
      process.disconnect?.();
    });
}
