/**
 * What both data file readers do the same way: open a file the manifest lists
 * (a file that is gone is a clear `not_found`) and check, as its bytes stream
 * by, that their count and MD5 match the manifest's `size` and `MD5checksum`.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { PlatformError } from '../../../runtime/errors';
import type { InventoryObjectReader } from './guarded-reader';
import type { ManifestFile } from './manifest';

/** Counts and hashes a file's bytes as they pass; {@link verify} compares them with the manifest. */
export class FileIntegrity {
  private readonly md5: Hash = createHash('md5');
  private bytes = 0;

  constructor(
    private readonly file: ManifestFile,
    private readonly reportId: string,
  ) {}

  /** Adds bytes read, in file order. */
  update(chunk: Buffer): void {
    this.md5.update(chunk);
    this.bytes += chunk.length;
  }

  /**
   * @throws PlatformError (`upstream_error`, `details.reason: "checksum_mismatch"` or `"size_mismatch"`)
   *   when the bytes read are not the ones the manifest describes.
   */
  verify(): void {
    if (this.bytes !== this.file.size) throw sizeMismatch(this.file, this.reportId, this.bytes);
    const actual = this.md5.digest('hex');
    if (actual !== this.file.md5) {
      throw new PlatformError(
        'upstream_error',
        `Inventory report ${this.reportId}: data file ${this.file.key} has MD5 ${actual} but its manifest says ${this.file.md5}: ` +
          'the file was changed or damaged after S3 wrote it; its figures are not reported',
        {
          service: 's3',
          details: {
            report: this.reportId,
            key: this.file.key,
            reason: 'checksum_mismatch',
            expectedMd5: this.file.md5,
            actualMd5: actual,
          },
        },
      );
    }
  }
}

function sizeMismatch(file: ManifestFile, reportId: string, actual: number): PlatformError {
  return new PlatformError(
    'upstream_error',
    `Inventory report ${reportId}: data file ${file.key} has ${actual} bytes but its manifest says ${file.size}`,
    {
      service: 's3',
      details: {
        report: reportId,
        key: file.key,
        reason: 'size_mismatch',
        expectedBytes: file.size,
        actualBytes: actual,
      },
    },
  );
}

/**
 * Opens a data file the manifest lists, whole or a byte range.
 *
 * @throws PlatformError (`not_found`, `details.reason: "missing_data_file"`) when the
 *   file does not exist: deleted, or expired by a lifecycle rule, after the
 *   manifest was written (a destination prefix ending in `/` also produces
 *   manifests naming keys that do not exist).
 * @throws PlatformError (`upstream_error`, size mismatch) when a whole file's length differs from the manifest's.
 * @throws the SDK's other errors.
 */
export async function openListedFile(
  reader: InventoryObjectReader,
  file: ManifestFile,
  reportId: string,
  range?: { readonly start: number; readonly end: number },
): Promise<Readable> {
  let opened: { readonly body: Readable; readonly contentLength: number };
  try {
    opened = await reader.openDataFile(file.key, range);
  } catch (err) {
    if (!(err instanceof Error) || err.name !== 'NoSuchKey') throw err;
    const prefix = reader.configuration.destinationPrefix;
    const hint = prefix.endsWith('/')
      ? ` (the destination prefix "${prefix}" ends with "/": S3 then writes data files under a double slash that manifests do not name)`
      : ' (deleted, or expired by a lifecycle rule on the destination bucket)';
    throw new PlatformError(
      'not_found',
      `Inventory report ${reportId}: its manifest lists data file ${file.key}, which no longer exists${hint}; the report cannot be read`,
      {
        service: 's3',
        cause: err,
        details: { report: reportId, key: file.key, reason: 'missing_data_file' },
      },
    );
  }
  if (!range && opened.contentLength !== file.size) {
    opened.body.destroy();
    throw sizeMismatch(file, reportId, opened.contentLength);
  }
  return opened.body;
}
