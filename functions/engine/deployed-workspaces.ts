/**
 * SWAP ON MERGE (issue 7 item 4): the deployed engine opens each run's S3
 * workspace through the Workspace contract (functions/runtime/workspace.ts),
 * whose S3 implementation is built in parallel with the engine. Until it lands,
 * every workspace operation of a deployed run fails with this clear error; local
 * runs and the tests use bin/local/interim-workspace.ts. Replace the body of
 * {@link deployedWorkspaces} with the S3 workspace's factory; nothing else changes.
 */
import { PlatformError } from '../runtime/errors';
import type { Workspace } from '../runtime/workspace';
import { runPrefix, type WorkspaceFactory } from './workspaces';

/** Opens run workspaces in `bucket` (`WORKSPACE_BUCKET`). */
export function deployedWorkspaces(bucket: string): WorkspaceFactory {
  return (run) => {
    const uri = `s3://${bucket}/${runPrefix(run)}`;
    const unavailable = async (): Promise<never> => {
      throw new PlatformError(
        'internal_error',
        `The S3 run workspace (${uri}) is not part of this build yet (issue 7 item 4)`,
      );
    };
    const workspace: Workspace = { uri, read: unavailable, write: unavailable, list: unavailable };
    return workspace;
  };
}
