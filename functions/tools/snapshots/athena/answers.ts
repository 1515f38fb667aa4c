/**
 * Where the Athena route leaves its answer: the run's workspace in the
 * platform's bucket (`RUN_BUCKET`), at `<workspace root>snapshots/athena/<file>`
 * (settings.ts, `athenaAnswerFile`). Deployed, written with the run-data
 * session the dispatcher vended for the call (`ctx.runData`: its session policy
 * lets it reach only this tool's answer files of the call's own run, the spec's
 * `workspaceAccess`; the function's own role has no right on the run
 * workspaces, and the tenant's credentials are never used); without one (tests
 * against a local S3), with the process's credentials; a local directory
 * outside Lambda (`ETP_LOCAL_DIR`), as the findings store
 * (findings/environment.ts). Athena itself writes nothing anywhere: its
 * workgroup keeps results in Athena managed query results, which the tool reads
 * through GetQueryResults.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { PlatformError } from '../../../runtime/errors';
import { defaultLocalDir } from '../../../runtime/local-workspace-dir';
import { workspaceRoot } from '../../../runtime/workspace-path';
import { RUN_BUCKET_ENV, workspaceS3Client } from '../findings/environment';
import type { RunKey } from '../findings/model';
import { ATHENA_ANSWERS_PATH } from './settings';

/** Writes one answer document; returns where (`s3://…` or a local path). */
export type AnswerWriter = (
  run: RunKey,
  file: string,
  document: unknown,
  signal?: AbortSignal,
) => Promise<string>;

/**
 * The writer the environment names (the same rule as the findings store).
 *
 * @param credentials - the call's vended run-data session (`ctx.runData`): a client of
 *   its own for the call, so no session serves another call. @default the process's credentials
 * @throws PlatformError (`internal_error`) in a Lambda function without `RUN_BUCKET`.
 */
export function answerWriterFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  credentials?: AwsCredentialIdentityProvider,
): AnswerWriter {
  const bucket = env[RUN_BUCKET_ENV];
  if (!bucket && env.AWS_LAMBDA_FUNCTION_NAME) {
    throw new PlatformError(
      'internal_error',
      `No run workspace is configured: this function has no ${RUN_BUCKET_ENV} (the platform's workspace bucket)`,
    );
  }
  if (!bucket) {
    const dir = defaultLocalDir(env);
    return async (run, file, document) => {
      const target = path.join(dir, `${workspaceRoot(run)}${ATHENA_ANSWERS_PATH}${file}`);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, JSON.stringify(document, null, 2));
      return target;
    };
  }
  const s3 = workspaceS3Client(env, credentials);
  return async (run, file, document, signal) => {
    const key = `${workspaceRoot(run)}${ATHENA_ANSWERS_PATH}${file}`;
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: JSON.stringify(document, null, 2),
        ContentType: 'application/json',
      }),
      { abortSignal: signal },
    );
    return `s3://${bucket}/${key}`;
  };
}
