/**
 * Where local runs keep their workspaces (the local stand-in for the platform's
 * bucket): shared by the CLI's local workspaces and the tools that keep a run's
 * derived data beside them (the snapshot findings store), so both find the same files.
 */
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The variable that names the local workspaces' base directory. */
export const LOCAL_WORKSPACE_DIR_ENV = 'ETP_WORKSPACE_DIR';

/** `ETP_WORKSPACE_DIR` when set, else `<OS temp dir>/etp-workspaces`. */
export function defaultLocalWorkspaceDir(env: NodeJS.ProcessEnv = process.env): string {
  return env[LOCAL_WORKSPACE_DIR_ENV] || path.join(tmpdir(), 'etp-workspaces');
}
