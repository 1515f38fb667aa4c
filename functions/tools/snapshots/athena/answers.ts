/**
 * Where the Athena route leaves its answer: the run's workspace in the
 * platform's bucket (`RUN_BUCKET`), written by the tool function with its own
 * role (never the tenant's), at `<workspace root>snapshots/athena/<file>`; a
 * local directory outside Lambda (`ETP_LOCAL_DIR`, as the findings store).
 * Athena itself writes nothing anywhere: its workgroup keeps results in Athena
 * managed query results, which the tool reads through GetQueryResults.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { AWS_MAX_ATTEMPTS } from '../../../runtime/aws/client-config';
import { awsRequestHandler } from '../../../runtime/aws/http-timeouts';
import { PlatformError } from '../../../runtime/errors';
import { defaultLocalDir } from '../../../runtime/local-workspace-dir';
import { workspaceRoot } from '../../../runtime/workspace-path';
import { RUN_BUCKET_ENV } from '../findings/environment';
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
 * @throws PlatformError (`internal_error`) in a Lambda function without `RUN_BUCKET`.
 */
export function answerWriterFromEnvironment(env: NodeJS.ProcessEnv = process.env): AnswerWriter {
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
  const s3 = new S3Client({
    ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}),
    maxAttempts: AWS_MAX_ATTEMPTS,
    retryMode: 'standard',
    requestHandler: awsRequestHandler(),
  });
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
