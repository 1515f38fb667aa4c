/**
 * Where local runs keep their workspaces and run records (the local stand-in
 * for the platform's bucket and tables): one directory, shared by `etp scenario
 * run --local`, `etp tools invoke` and the tools that keep a run's derived data
 * beside the workspaces (the snapshot findings store), so all find the same files.
 */
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The variable that names the local directory (`--local-dir` of `etp scenario run` wins over it). */
export const LOCAL_DIR_ENV = 'ETP_LOCAL_DIR';

/** `ETP_LOCAL_DIR` when set and not empty, else `<OS temp dir>/etp-local`. */
export function defaultLocalDir(env: NodeJS.ProcessEnv = process.env): string {
  return env[LOCAL_DIR_ENV] || path.join(tmpdir(), 'etp-local');
}
