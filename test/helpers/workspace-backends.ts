/**
 * The two workspace implementations as the integration tests run them: S3 on a
 * local s3rver, and a local directory, each with a view of everything it stored
 * so a test can assert nothing landed outside a run's prefix.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LocalDirectoryWorkspace, localWorkspaceProvider } from '../../bin/local/local-workspace';
import type { Workspace, WorkspaceProvider, WorkspaceScope } from '../../functions/runtime/workspace';
import { S3Workspace, s3WorkspaceProvider } from '../../functions/runtime/workspace-s3';
import { startLocalS3 } from './s3-server';

/** A workspace implementation under test. */
export interface WorkspaceBackend {
  /** Opens the workspace of `scope`. */
  open(scope: WorkspaceScope): Workspace;
  /** What a dispatcher is given to open workspaces. */
  readonly provider: WorkspaceProvider;
  /** Every stored object, as a key relative to the bucket (or base directory), sorted. */
  keys(): Promise<string[]>;
  /** `s3://<bucket>/` or `file://<base dir>/`: what every workspace URI starts with. */
  readonly uriBase: string;
  /** Whether conditional writes (`ifMatch`) are enforced: s3rver ignores `If-Match`. */
  readonly enforcesIfMatch: boolean;
  stop(): Promise<void>;
}

/** Every file under `dir`, relative to it with `/`, sorted; links are reported as files. */
export async function filesUnder(dir: string, under = ''): Promise<string[]> {
  const entries = await readdir(path.join(dir, under), { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? filesUnder(dir, `${under}${entry.name}/`) : [`${under}${entry.name}`],
    ),
  );
  return nested.flat().sort();
}

/** S3 workspaces on a fresh s3rver. */
export async function s3Backend(): Promise<WorkspaceBackend> {
  const s3 = await startLocalS3();
  return {
    open: (scope) => new S3Workspace({ bucket: s3.bucket, scope, clientConfig: s3.clientConfig }),
    provider: s3WorkspaceProvider(s3.bucket, s3.clientConfig),
    keys: () => s3.keys(),
    uriBase: `s3://${s3.bucket}/`,
    enforcesIfMatch: false,
    stop: () => s3.stop(),
  };
}

/** Local-directory workspaces in a fresh temporary directory. */
export async function localBackend(): Promise<WorkspaceBackend> {
  const baseDir = await mkdtemp(path.join(tmpdir(), 'etp-workspace-test-'));
  return {
    open: (scope) => new LocalDirectoryWorkspace({ baseDir, scope }),
    provider: localWorkspaceProvider(baseDir),
    // Metadata sits beside the workspaces, under .meta/<key>.json; the stored objects are the rest.
    keys: async () => (await filesUnder(baseDir)).filter((key) => !key.startsWith('.meta/')),
    uriBase: `file://${baseDir}/`,
    enforcesIfMatch: true,
    stop: () => rm(baseDir, { recursive: true, force: true }),
  };
}

/** Both backends, for `describe.each`. */
export const WORKSPACE_BACKENDS: readonly (readonly [string, () => Promise<WorkspaceBackend>])[] = [
  ['S3 (s3rver on 127.0.0.1)', s3Backend],
  ['local directory', localBackend],
];
