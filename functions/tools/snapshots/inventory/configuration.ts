/**
 * S3 Inventory configurations: what a bucket's inventory lists and where its
 * reports go. Read with GetBucketInventoryConfiguration and
 * ListBucketInventoryConfigurations (IAM action `s3:GetInventoryConfiguration`
 * for both; S3 API reference).
 */
import {
  GetBucketInventoryConfigurationCommand,
  type InventoryConfiguration,
  ListBucketInventoryConfigurationsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { pagesByToken, readPages } from '../../../runtime/aws/pagination';
import type { Deadline } from '../../../runtime/deadline';
import { PlatformError } from '../../../runtime/errors';
import { inventoryBase } from './layout';

/** An inventory configuration as the tools use it. */
export interface InventoryConfigurationView {
  /** The bucket the inventory lists (its source). */
  readonly bucket: string;
  readonly id: string;
  readonly enabled: boolean;
  /** The destination bucket's name (from its ARN `arn:aws:s3:::name`). */
  readonly destinationBucket: string;
  /** The account that owns the destination bucket, when the configuration names it. */
  readonly destinationAccountId: string | null;
  /** As configured; empty when none. */
  readonly destinationPrefix: string;
  /** `CSV`, `ORC` or `Parquet`. */
  readonly format: string;
  /** `Daily` or `Weekly`. */
  readonly frequency: string;
  /** `All` (every version, delete markers included) or `Current`. */
  readonly includedObjectVersions: string;
  readonly optionalFields: readonly string[];
  /** How the reports are encrypted: `SSE-S3`, `SSE-KMS`, or the destination bucket's default. */
  readonly reportEncryption: 'SSE-S3' | 'SSE-KMS' | 'bucket_default';
  /** Only objects under this prefix are listed; null for the whole bucket. */
  readonly filterPrefix: string | null;
  /** The folder of its reports in the destination bucket (`inventoryBase`). */
  readonly base: string;
}

/** ListBucketInventoryConfigurations returns up to 100 a page (S3 API reference); 10 pages is far more than a bucket holds (1,000 configurations). */
const MAX_CONFIGURATION_PAGES = 10;

function bucketNameOfArn(arn: string): string {
  return arn.startsWith('arn:') ? (arn.split(':::')[1] ?? arn) : arn;
}

/** The view of a configuration as S3 answered it. */
export function configurationView(
  bucket: string,
  config: InventoryConfiguration,
): InventoryConfigurationView {
  const destination = config.Destination?.S3BucketDestination;
  const id = config.Id ?? '';
  const prefix = destination?.Prefix ?? '';
  const encryption = destination?.Encryption;
  return {
    bucket,
    id,
    enabled: config.IsEnabled === true,
    destinationBucket: bucketNameOfArn(destination?.Bucket ?? ''),
    destinationAccountId: destination?.AccountId ?? null,
    destinationPrefix: prefix,
    format: destination?.Format ?? 'unknown',
    frequency: config.Schedule?.Frequency ?? 'unknown',
    includedObjectVersions: config.IncludedObjectVersions ?? 'Current',
    optionalFields: [...(config.OptionalFields ?? [])],
    reportEncryption: encryption?.SSEKMS ? 'SSE-KMS' : encryption?.SSES3 ? 'SSE-S3' : 'bucket_default',
    filterPrefix: config.Filter?.Prefix ?? null,
    base: inventoryBase(prefix, bucket, id),
  };
}

/**
 * Every inventory configuration of `bucket` (possibly none).
 *
 * @throws the SDK's error (AccessDenied, NoSuchBucket…), normalized by the harness.
 */
export async function listInventoryConfigurations(
  s3: S3Client,
  bucket: string,
  deadline: Deadline,
): Promise<InventoryConfigurationView[]> {
  const views: InventoryConfigurationView[] = [];
  await readPages(
    pagesByToken((token) =>
      s3.send(new ListBucketInventoryConfigurationsCommand({ Bucket: bucket, ContinuationToken: token }), {
        abortSignal: deadline.signal,
      }),
    ),
    (page) => {
      for (const config of page.InventoryConfigurationList ?? [])
        views.push(configurationView(bucket, config));
    },
    { maxPages: MAX_CONFIGURATION_PAGES, deadline },
  );
  return views.sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * One inventory configuration of `bucket`.
 *
 * @throws PlatformError (`not_found`) when the bucket has no configuration `id`
 *   (S3 `NoSuchConfiguration`), naming the configurations it has.
 * @throws the SDK's other errors.
 */
export async function readInventoryConfiguration(
  s3: S3Client,
  bucket: string,
  id: string,
  deadline: Deadline,
): Promise<InventoryConfigurationView> {
  try {
    const out = await s3.send(new GetBucketInventoryConfigurationCommand({ Bucket: bucket, Id: id }), {
      abortSignal: deadline.signal,
    });
    if (!out.InventoryConfiguration) throw missingConfiguration(bucket, id, []);
    return configurationView(bucket, out.InventoryConfiguration);
  } catch (err) {
    if (!(err instanceof Error) || err.name !== 'NoSuchConfiguration') throw err;
    const known = await listInventoryConfigurations(s3, bucket, deadline).catch(() => undefined);
    throw missingConfiguration(
      bucket,
      id,
      known?.map((c) => c.id),
      err,
    );
  }
}

function missingConfiguration(
  bucket: string,
  id: string,
  known: readonly string[] | undefined,
  cause?: unknown,
): PlatformError {
  const others =
    known === undefined
      ? ''
      : known.length === 0
        ? '; the bucket has no inventory configuration at all'
        : `; its configurations: ${known.join(', ')}`;
  return new PlatformError(
    'not_found',
    `Bucket ${bucket} has no S3 Inventory configuration "${id}"${others}`,
    {
      service: 's3',
      details: { bucket, configurationId: id, ...(known ? { configurations: [...known] } : {}) },
      cause,
    },
  );
}
