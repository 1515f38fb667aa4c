/**
 * A real S3 API on 127.0.0.1: `s3rver` storing objects in a temporary directory,
 * one bucket, and the client settings an S3 workspace needs to reach it. s3rver
 * runs in a child process (test/helpers/s3rver-process.js says why).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ListObjectsV2Command, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** The credentials s3rver accepts by default (its README, "Signature verification"). */
const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** A running s3rver. */
export interface LocalS3 {
  /** The one bucket it serves. */
  readonly bucket: string;
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Settings for an S3 client (path-style addressing, s3rver's credentials). */
  readonly clientConfig: S3ClientConfig;
  /** Every key of the bucket, sorted: what a test asserts nothing was written outside of. */
  keys(): Promise<string[]>;
  /** Closes the server and its connections, and deletes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts s3rver on 127.0.0.1 with an OS-chosen port and an empty bucket.
 *
 * @example
 * const s3 = await startLocalS3();
 * const workspace = new S3Workspace({ bucket: s3.bucket, scope, clientConfig: s3.clientConfig });
 * // …
 * await s3.stop();
 */
export async function startLocalS3(bucket = 'etp-test-runs'): Promise<LocalS3> {
  const directory = await mkdtemp(path.join(tmpdir(), 'etp-s3rver-'));
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', path.join(__dirname, 's3rver-process.js'), directory, bucket],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  const [line] = (await Promise.race([
    once(child.stdout, 'data'),
    exited.then(() => {
      throw new Error('s3rver exited before listening');
    }),
  ])) as [Buffer];
  const { port } = JSON.parse(line.toString('utf8')) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig: S3ClientConfig = {
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: S3RVER_CREDENTIALS,
  };
  const client = new S3Client(clientConfig);
  return {
    bucket,
    endpoint,
    clientConfig,
    async keys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }),
        );
        keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async stop() {
      client.destroy();
      // Closing its input stops the server (it also closes the clients' keep-alive connections).
      child.stdin.end();
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
