/**
 * One inventory configuration's reports: listing them (the report folders in the
 * destination bucket), opening one (its manifest), and streaming its rows.
 */
import { paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { readPages } from '../../../runtime/aws/pagination';
import type { Deadline } from '../../../runtime/deadline';
import { PlatformError } from '../../../runtime/errors';
import { inventoryReportId } from '../ids';
import type { InventoryConfigurationView } from './configuration';
import { readCsvDataFile } from './csv-reader';
import { openListedFile } from './data-file';
import { InventoryObjectReader } from './guarded-reader';
import { reportTimeOfFolder } from './layout';
import { type InventoryManifest, parseManifest, requireReadableFormat } from './manifest';
import { readParquetDataFile } from './parquet-reader';
import { checkedRowSink } from './row-values';
import { columnPositions, type InventoryRowSink } from './rows';

/** ListObjectsV2 returns up to 1,000 folders a page; 20 pages hold 20,000 reports (55 years of daily reports). */
const MAX_FOLDER_PAGES = 20;

/** A report whose manifest has been read and checked. */
export interface OpenedReport {
  /** Its snapshot id. */
  readonly id: string;
  readonly reportTime: string;
  readonly configuration: InventoryConfigurationView;
  readonly manifest: InventoryManifest;
  readonly reader: InventoryObjectReader;
}

/**
 * The report times of a configuration, newest first, from the folders S3
 * created in the destination (`<base>YYYY-MM-DDTHH-MMZ/`). A folder may still
 * lack its manifest (a report being written).
 *
 * @returns the times and whether the page cap or deadline left folders unlisted.
 * @throws the SDK's errors (AccessDenied, NoSuchBucket on the destination…).
 */
export async function listReportTimes(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  deadline: Deadline,
): Promise<{ readonly times: string[]; readonly truncated: boolean }> {
  const times: string[] = [];
  const read = await readPages(
    paginateListObjectsV2(
      { client: s3, pageSize: 1000 },
      {
        Bucket: configuration.destinationBucket,
        Prefix: configuration.base,
        Delimiter: '/',
        ...(configuration.destinationAccountId
          ? { ExpectedBucketOwner: configuration.destinationAccountId }
          : {}),
      },
    ),
    (page) => {
      for (const folder of page.CommonPrefixes ?? []) {
        const time = folder.Prefix ? reportTimeOfFolder(configuration.base, folder.Prefix) : undefined;
        if (time) times.push(time);
      }
    },
    { maxPages: MAX_FOLDER_PAGES, deadline, nextToken: (page) => page.NextContinuationToken },
  );
  return { times: times.sort().reverse(), truncated: read.stoppedBy !== undefined };
}

/**
 * Reads and checks a report's manifest.
 *
 * @throws PlatformError (`not_found`) when the report has no manifest.json
 *   (never written, still being written, or deleted).
 * @throws PlatformError (`upstream_error`) for a manifest that fails its checks (`parseManifest`).
 */
export async function openReport(
  s3: S3Client,
  configuration: InventoryConfigurationView,
  reportTime: string,
  deadline: Deadline,
): Promise<OpenedReport> {
  const id = inventoryReportId(configuration.bucket, configuration.id, reportTime);
  const reader = new InventoryObjectReader(s3, configuration, deadline);
  const bytes = await reader.readManifest(reportTime);
  if (!bytes) {
    throw new PlatformError(
      'not_found',
      `Inventory report ${id} has no manifest.json in s3://${configuration.destinationBucket}/${configuration.base}${reportTime}/ ` +
        '(not written yet, or deleted); list_snapshots shows the reports that exist',
      { service: 's3', details: { report: id } },
    );
  }
  return { id, reportTime, configuration, manifest: parseManifest(bytes, configuration, id), reader };
}

/**
 * Streams every row of a report into `sink`, file after file, each file's size
 * and MD5 checked against the manifest and each row's values checked (`checkedRowSink`).
 *
 * @returns the rows read.
 * @throws PlatformError (`upstream_error`) for ORC and unknown formats, a file that fails its checks,
 *   or a row whose Size or LastModifiedDate is not one;
 *   `not_found` for a file the manifest lists that is gone.
 * @throws DeadlineExceededError when the call's deadline passes.
 */
export async function streamReport(
  report: OpenedReport,
  sink: InventoryRowSink,
  deadline: Deadline,
): Promise<number> {
  const format = requireReadableFormat(report.manifest, report.id);
  const positions = columnPositions(report.manifest.columns);
  let rows = 0;
  for (const file of report.manifest.files) {
    const options = { reportId: report.id, deadline, rowsBefore: rows };
    const checked = checkedRowSink(sink, { reportId: report.id, fileKey: file.key, positions });
    rows +=
      format === 'CSV'
        ? await readCsvDataFile(
            await openListedFile(report.reader, file, report.id),
            file,
            positions,
            checked,
            options,
          )
        : await readParquetDataFile(report.reader, file, checked, options);
  }
  return rows;
}
