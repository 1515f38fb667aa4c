/**
 * The findings store in the run workspace's S3 bucket: one object per run at
 * {@link findingsKey} (`runs/<tenant>/<scenario>/<runId>/snapshots/findings.json`). Create-only through S3 conditional
 * writes: PutObject with `If-None-Match: *` fails with 412 when the object
 * exists (S3 User Guide, "Conditional writes"), and the store then returns the
 * document already there. Reads and writes only that key: it is the other
 * module allowed to send GetObject (no-content rail test), and only for the
 * platform's own workspace, deployed with the call's vended run-data session
 * (./environment.ts), which IAM confines to this run's findings file — never
 * with credentials from a tenant's secret.
 */
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { FindingsDocument, RunKey } from './model';
import { type FindingsStore, findingsKey, parseFindingsDocument } from './store';

/** Where the workspace is. */
export interface S3FindingsStoreOptions {
  /** The platform's workspace bucket (`RUN_BUCKET`). */
  readonly bucket: string;
}

function isNamed(err: unknown, ...names: string[]): boolean {
  return err instanceof Error && names.includes(err.name);
}

/**
 * Findings documents in S3.
 *
 * @example
 * const store = new S3FindingsStore(new S3Client({}), { bucket: 'etp-workspace-123' });
 * await store.put({ tenant: 'acme', scenario: 'snapshot_forensics', runId: 'r1' }, document);
 */
export class S3FindingsStore implements FindingsStore {
  constructor(
    private readonly s3: S3Client,
    private readonly options: S3FindingsStoreOptions,
  ) {}

  async get(run: RunKey, signal?: AbortSignal): Promise<FindingsDocument | undefined> {
    const key = findingsKey(run);
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }), {
        abortSignal: signal,
      });
      return parseFindingsDocument(
        (await out.Body?.transformToString('utf8')) ?? '',
        `s3://${this.options.bucket}/${key}`,
      );
    } catch (err) {
      if (isNamed(err, 'NoSuchKey')) return undefined;
      // A session that may list only this key (the vended run-data session) gets 403 for a missing one.
      if (isNamed(err, 'AccessDenied') && !(await this.#exists(key, signal))) return undefined;
      throw err;
    }
  }

  /** Whether `key` exists, by listing exactly it: the one listing the tool's role may make of the bucket. */
  async #exists(key: string, signal?: AbortSignal): Promise<boolean> {
    const page = await this.s3.send(
      new ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: key, MaxKeys: 1 }),
      { abortSignal: signal },
    );
    return page.Contents?.[0]?.Key === key;
  }

  async put(run: RunKey, document: FindingsDocument, signal?: AbortSignal) {
    const key = findingsKey(run);
    try {
      await this.s3.send(
        new PutObjectCommand({
          Bucket: this.options.bucket,
          Key: key,
          Body: JSON.stringify(document, null, 2),
          ContentType: 'application/json',
          IfNoneMatch: '*',
        }),
        { abortSignal: signal },
      );
    } catch (err) {
      // 412: a document is there already. 409 ConditionalRequestConflict: another write of it is under way.
      if (!isNamed(err, 'PreconditionFailed', 'ConditionalRequestConflict')) throw err;
      const stored = await this.get(run, signal);
      if (stored) return { document: stored, created: false };
      throw err;
    }
    return { document: (await this.get(run, signal)) ?? document, created: true };
  }
}
