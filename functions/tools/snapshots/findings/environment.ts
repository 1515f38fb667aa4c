/**
 * Which findings store a tool function uses, from its environment, decided on
 * first use (so tests and the CLI can import the tools):
 *
 * - `RUN_BUCKET` (the same variable as the dispatcher's): the S3 store in the
 *   platform's workspace bucket. Deployed, read and written with the run-data
 *   session the dispatcher vended for the call (`ctx.runData`: IAM lets it reach
 *   only this run's findings file of the call's tenant; the function's own role
 *   has no right on the run workspaces); without one (tests against a local S3),
 *   with the process's credentials;
 * - else, outside Lambda: the local directory (`ETP_LOCAL_DIR`, else
 *   `<OS temp dir>/etp-local`), as local runs and `etp tools invoke` use;
 * - in a Lambda function without `RUN_BUCKET`: the call fails with
 *   `internal_error` (a container's /tmp would lose the run's findings).
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { AWS_MAX_ATTEMPTS } from '../../../runtime/aws/client-config';
import { awsRequestHandler } from '../../../runtime/aws/http-timeouts';
import { PlatformError } from '../../../runtime/errors';
import { defaultLocalDir } from '../../../runtime/local-workspace-dir';
import type { RunKey } from './model';
import { S3FindingsStore } from './s3-store';
import { type FindingsStore, LocalDirFindingsStore } from './store';

/** The variable naming the platform's workspace bucket (set by the CDK on the functions that keep findings). */
export const RUN_BUCKET_ENV = 'RUN_BUCKET';

let cached: { readonly key: string; readonly store: FindingsStore } | undefined;

/**
 * An S3 client of the workspace bucket's region (`AWS_REGION`) with the
 * platform's retry and timeout policy: with `credentials` (a call's vended
 * run-data session) when given, else the process's. Also the Athena route's
 * answer writer (athena/answers.ts).
 */
export function workspaceS3Client(
  env: NodeJS.ProcessEnv,
  credentials?: AwsCredentialIdentityProvider,
): S3Client {
  return new S3Client({
    ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}),
    ...(credentials ? { credentials } : {}),
    maxAttempts: AWS_MAX_ATTEMPTS,
    retryMode: 'standard',
    requestHandler: awsRequestHandler(),
  });
}

/**
 * The store the environment names.
 *
 * @param credentials - the call's vended run-data session (`ctx.runData`): a store of
 *   its own for the call, so no session serves another call. @default the process's credentials
 * @throws PlatformError (`internal_error`) in a Lambda function without `RUN_BUCKET`.
 */
export function findingsStoreFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  credentials?: AwsCredentialIdentityProvider,
): FindingsStore {
  const bucket = env[RUN_BUCKET_ENV];
  if (!bucket && env.AWS_LAMBDA_FUNCTION_NAME) {
    throw new PlatformError(
      'internal_error',
      `No findings store is configured: this function has no ${RUN_BUCKET_ENV} (the platform's workspace bucket)`,
    );
  }
  if (bucket && credentials) return new S3FindingsStore(workspaceS3Client(env, credentials), { bucket });
  const dir = defaultLocalDir(env);
  const key = bucket ? `s3:${bucket}` : `dir:${dir}`;
  if (cached?.key === key) return cached.store;
  // Without a vended session: the process's credentials, one client per container.
  const store = bucket
    ? new S3FindingsStore(workspaceS3Client(env), { bucket })
    : new LocalDirFindingsStore(dir);
  cached = { key, store };
  return store;
}

/** The run key of a call: its tenant, run id and scenario (none outside one). */
export function runKeyOf(ctx: {
  readonly tenant: string;
  readonly scenario?: string;
  readonly runId: string;
}): RunKey {
  return {
    tenant: ctx.tenant,
    runId: ctx.runId,
    ...(ctx.scenario === undefined ? {} : { scenario: ctx.scenario }),
  };
}
