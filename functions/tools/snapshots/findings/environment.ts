/**
 * Which findings store a tool function uses, from its environment, decided on
 * first use (so tests and the CLI can import the tools):
 *
 * - `RUN_WORKSPACE_BUCKET` (and optionally `RUN_WORKSPACE_PREFIX`, default
 *   `runs/`): the S3 store in the platform's workspace bucket, read and written
 *   with the function's own role (the platform's credentials, never a tenant's);
 * - else `ETP_WORKSPACE_DIR`: a local directory (local runs);
 * - else the call fails with `internal_error` naming both variables.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { AWS_MAX_ATTEMPTS, awsRequestHandler } from '../../../runtime/aws/client-config';
import { PlatformError } from '../../../runtime/errors';
import type { RunKey } from './model';
import { S3FindingsStore } from './s3-store';
import { ADHOC_SCENARIO, type FindingsStore, LocalDirFindingsStore } from './store';

let cached: { readonly key: string; readonly store: FindingsStore } | undefined;

/**
 * The store the environment names.
 *
 * @throws PlatformError (`internal_error`) when neither variable is set.
 */
export function findingsStoreFromEnvironment(env: NodeJS.ProcessEnv = process.env): FindingsStore {
  const bucket = env.RUN_WORKSPACE_BUCKET;
  const dir = env.ETP_WORKSPACE_DIR;
  const key = bucket ? `s3:${bucket}:${env.RUN_WORKSPACE_PREFIX ?? ''}` : dir ? `dir:${dir}` : '';
  if (cached?.key === key) return cached.store;
  let store: FindingsStore;
  if (bucket) {
    // The platform's own workspace: the function's role, one client per container.
    const client = new S3Client({
      ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}),
      maxAttempts: AWS_MAX_ATTEMPTS,
      retryMode: 'standard',
      requestHandler: awsRequestHandler(),
    });
    store = new S3FindingsStore(client, {
      bucket,
      ...(env.RUN_WORKSPACE_PREFIX ? { prefix: env.RUN_WORKSPACE_PREFIX } : {}),
    });
  } else if (dir) {
    store = new LocalDirFindingsStore(dir);
  } else {
    throw new PlatformError(
      'internal_error',
      'No findings store is configured: set RUN_WORKSPACE_BUCKET (deployed) or ETP_WORKSPACE_DIR (local runs)',
    );
  }
  cached = { key, store };
  return store;
}

/** The run key of a call: its tenant, scenario (`adhoc` outside one) and run id. */
export function runKeyOf(ctx: {
  readonly tenant: string;
  readonly scenario?: string;
  readonly runId: string;
}): RunKey {
  return { tenant: ctx.tenant, scenario: ctx.scenario ?? ADHOC_SCENARIO, runId: ctx.runId };
}
