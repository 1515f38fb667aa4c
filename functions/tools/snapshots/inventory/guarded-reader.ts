/**
 * The no-content rail in code: the one module of the snapshot tools that may
 * send S3 GetObject, and only for the objects S3 Inventory itself writes — a
 * configuration's `manifest.json` files and the data files its manifests list.
 * Every key is checked against the configuration's destination bucket and
 * folder (`layout.ts`) before the request is built; anything else is refused
 * with `upstream_error` and `details.rail: "no_content"`, whatever a manifest
 * says. The tools' IAM roles carry the same rule as an explicit Deny (`iam.ts`),
 * and test/unit/tools/snapshots/no-content-rail.test.ts proves that no other
 * module imports a content-reading command.
 */
import type { Readable } from 'node:stream';
import { GetObjectCommand, type GetObjectCommandOutput, type S3Client } from '@aws-sdk/client-s3';
import type { Deadline } from '../../../runtime/deadline';
import { LimitExceededError, PlatformError } from '../../../runtime/errors';
import type { InventoryConfigurationView } from './configuration';
import { isDataFileKey, isManifestKey, manifestKey } from './layout';

/**
 * The largest manifest read, in bytes: 16 MiB. A manifest lists one entry of
 * about 150 bytes per data file, so this allows some 100,000 files, far beyond
 * what S3 Inventory writes for one report.
 */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** A refusal of the rail: a key that is not a manifest or data file of the configuration. */
function refused(bucket: string, key: string, why: string): PlatformError {
  return new PlatformError(
    'upstream_error',
    `Refused to read s3://${bucket}/${key}: ${why}. The snapshot tools read only inventory manifests and data files`,
    { service: 's3', details: { rail: 'no_content', bucket, key } },
  );
}

function isNamed(err: unknown, ...names: string[]): boolean {
  return err instanceof Error && names.includes(err.name);
}

/**
 * Reads one inventory configuration's manifests and data files, nothing else.
 *
 * @example
 * const reader = new InventoryObjectReader(s3, configuration, ctx.deadline);
 * const manifest = await reader.readManifest('2026-03-01T01-00Z'); // undefined when absent
 */
export class InventoryObjectReader {
  constructor(
    private readonly s3: S3Client,
    readonly configuration: InventoryConfigurationView,
    private readonly deadline: Deadline,
  ) {}

  /**
   * The bytes of a report's `manifest.json`, or undefined when it does not exist
   * (a report still being written, or deleted).
   *
   * @throws LimitExceededError beyond {@link MAX_MANIFEST_BYTES}.
   * @throws the SDK's other errors (AccessDenied…).
   */
  async readManifest(reportTime: string): Promise<Buffer | undefined> {
    const key = manifestKey(this.configuration.base, reportTime);
    let out: GetObjectCommandOutput;
    try {
      out = await this.get(this.checkManifest(key));
    } catch (err) {
      if (isNamed(err, 'NoSuchKey')) return undefined;
      throw err;
    }
    if ((out.ContentLength ?? 0) > MAX_MANIFEST_BYTES) {
      (out.Body as Readable | undefined)?.destroy?.();
      throw new LimitExceededError(
        `Manifest s3://${this.configuration.destinationBucket}/${key} has ${out.ContentLength} bytes; at most ${MAX_MANIFEST_BYTES} are read`,
      );
    }
    return Buffer.from((await out.Body?.transformToByteArray()) ?? new Uint8Array());
  }

  /**
   * A data file's body as a stream, with its length.
   *
   * @param range - bytes `[start, end)`; the whole file when absent.
   * @throws PlatformError (`upstream_error`, rail) for a key that is not a data file of the configuration.
   * @throws the SDK's errors (NoSuchKey, AccessDenied…): callers word them for the report.
   */
  async openDataFile(
    key: string,
    range?: { readonly start: number; readonly end: number },
  ): Promise<{ readonly body: Readable; readonly contentLength: number }> {
    const out = await this.get(this.checkDataFile(key), range);
    return { body: out.Body as Readable, contentLength: out.ContentLength ?? 0 };
  }

  /** A data file's bytes `[start, end)`, read whole (a Parquet footer). */
  async readDataFileRange(key: string, start: number, end: number): Promise<Buffer> {
    const { body } = await this.openDataFile(key, { start, end });
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  private checkManifest(key: string): string {
    if (!isManifestKey(this.configuration.base, key)) {
      throw refused(this.configuration.destinationBucket, key, 'not a manifest.json of this inventory');
    }
    return key;
  }

  private checkDataFile(key: string): string {
    if (!isDataFileKey(this.configuration.base, key)) {
      throw refused(
        this.configuration.destinationBucket,
        key,
        `not a data file of this inventory (${this.configuration.base}data/<uuid>.csv.gz|.parquet)`,
      );
    }
    return key;
  }

  /** Sends GetObject for a key one of the checks above returned. */
  private get(
    checked: string,
    range?: { readonly start: number; readonly end: number },
  ): Promise<GetObjectCommandOutput> {
    return this.s3.send(
      new GetObjectCommand({
        Bucket: this.configuration.destinationBucket,
        Key: checked,
        ...(range ? { Range: `bytes=${range.start}-${range.end - 1}` } : {}),
        // The destination belongs to the account the configuration names: refuse a bucket someone else owns now.
        ...(this.configuration.destinationAccountId
          ? { ExpectedBucketOwner: this.configuration.destinationAccountId }
          : {}),
      }),
      { abortSignal: this.deadline.signal },
    );
  }
}
