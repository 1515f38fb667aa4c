import {
  type CloudTrailClient,
  GetEventSelectorsCommand,
  GetTrailStatusCommand,
  type GetTrailStatusCommandOutput,
  type Trail,
} from '@aws-sdk/client-cloudtrail';
import type { ToolErrorInfo } from '../../../runtime/result';
import type { UnrecognizedValues } from '../shared/service-enums';
import { type ManagementEventCoverage, managementEventCoverage } from './event-selectors';

/**
 * Where a trail delivers: its S3 log files, its CloudWatch Logs group, its
 * digest files (log file validation). Each has its own latest error and latest
 * good delivery in GetTrailStatus (CloudTrail API reference, "GetTrailStatus").
 */
export type DeliveryChannel = 's3' | 'cloudwatch_logs' | 'digest';

/** A delivery that fails: the error CloudTrail last met, and when it last delivered. */
export interface DeliveryError {
  readonly channel: DeliveryChannel;
  /** The error as CloudTrail reports it (an S3 or CloudWatch Logs error code: `NoSuchBucket`, `AccessDenied`). */
  readonly error: string;
  /** The last good delivery on this channel, ISO 8601; null when CloudTrail reports none. */
  readonly lastDeliveryAt: string | null;
}

/** A call about one trail that failed; the trail's other facts stand. */
export interface TrailCallError {
  readonly call: 'GetTrailStatus' | 'GetEventSelectors';
  readonly error: ToolErrorInfo;
}

/** One trail as the coverage report lists it. */
export interface TrailReport {
  readonly name: string;
  readonly arn: string;
  /** The region the trail was created in; its status and selectors are read there. */
  readonly homeRegion: string;
  /** Applies to every region of the account, including regions enabled later. */
  readonly multiRegion: boolean;
  /** Created by the organization's management (or delegated administrator) account for every member account. */
  readonly organizationTrail: boolean;
  /** Digest files that prove log files were not changed. */
  readonly logFileValidation: boolean;
  /** SSE-KMS key of the log files; null means SSE-S3 only. */
  readonly kmsKeyId: string | null;
  readonly s3BucketName: string | null;
  /** The CloudWatch Logs group the trail also delivers to; null when none. */
  readonly cloudWatchLogsLogGroupArn: string | null;
  /** The account that owns the trail (from its ARN). */
  readonly ownerAccountId: string | null;
  /**
   * An organization trail owned by another account (the management or
   * delegated administrator account) whose status and selectors this account
   * cannot read: a member account's GetTrailStatus on it answers
   * TrailNotFoundException. Its logging is the owner's to check; it is reported
   * as organization-managed, not as an error.
   */
  readonly organizationManaged: boolean;
  /** GetTrailStatus `IsLogging`; null when not read (`errors`, organization-managed, or the deadline). */
  readonly logging: boolean | null;
  /** The last error delivering log files to S3, if any. */
  readonly latestDeliveryError: string | null;
  /** The last good delivery of log files to S3, ISO 8601. */
  readonly latestDeliveryAt: string | null;
  /**
   * Deliveries that fail (S3, CloudWatch Logs, digest files): a trail with one
   * does not count as covering its regions, however `IsLogging` reads.
   */
  readonly deliveryErrors: DeliveryError[];
  /** Null when not read (`errors`, or the deadline). */
  readonly managementEvents: ManagementEventCoverage | null;
  readonly errors?: TrailCallError[];
}

/** What DescribeTrails tells about a trail, before its status and selectors are read. */
export function describedTrail(trail: Trail, seenIn: string): TrailReport {
  const arn = trail.TrailARN ?? trail.Name ?? 'unknown';
  return {
    name: trail.Name ?? trail.TrailARN ?? 'unknown',
    arn,
    homeRegion: trail.HomeRegion ?? seenIn,
    multiRegion: trail.IsMultiRegionTrail === true,
    organizationTrail: trail.IsOrganizationTrail === true,
    logFileValidation: trail.LogFileValidationEnabled === true,
    kmsKeyId: trail.KmsKeyId ?? null,
    s3BucketName: trail.S3BucketName ?? null,
    cloudWatchLogsLogGroupArn: trail.CloudWatchLogsLogGroupArn ?? null,
    ownerAccountId: arn.startsWith('arn:') ? (arn.split(':')[4] ?? null) : null,
    organizationManaged: false,
    logging: null,
    latestDeliveryError: null,
    latestDeliveryAt: null,
    deliveryErrors: [],
    managementEvents: null,
  };
}

function iso(date: Date | undefined): string | null {
  return date ? date.toISOString() : null;
}

/** GetTrailStatus' failing deliveries: each channel whose latest error is set. */
export function deliveryErrorsOf(status: GetTrailStatusCommandOutput): DeliveryError[] {
  const channels: [DeliveryChannel, string | undefined, Date | undefined][] = [
    ['s3', status.LatestDeliveryError, status.LatestDeliveryTime],
    ['cloudwatch_logs', status.LatestCloudWatchLogsDeliveryError, status.LatestCloudWatchLogsDeliveryTime],
    ['digest', status.LatestDigestDeliveryError, status.LatestDigestDeliveryTime],
  ];
  return channels
    .filter(([, error]) => error !== undefined && error.trim() !== '')
    .map(([channel, error, at]) => ({ channel, error: (error ?? '').trim(), lastDeliveryAt: iso(at) }));
}

/** TrailNotFoundException: what a member account gets for the organization trail it cannot read. */
function isTrailNotFound(err: unknown): boolean {
  return err instanceof Error && err.name === 'TrailNotFoundException';
}

/**
 * Adds a trail's status, deliveries and management-event coverage
 * (GetTrailStatus and GetEventSelectors, both by ARN as shadow and organization
 * trails require; CloudTrail API reference). Never throws: a failed call leaves
 * its fields null and is listed in `errors` — except an organization trail owned
 * by another account answering TrailNotFoundException, which is marked
 * `organizationManaged` (a member account cannot read it; that is not an error).
 *
 * @param client - a CloudTrail client in the trail's home region.
 * @param accountId - the caller's account, to tell whose organization trail it is.
 * @param unrecognized - where selector values this tool does not know are counted.
 */
export async function readTrail(
  client: CloudTrailClient,
  trail: TrailReport,
  describeError: (err: unknown) => ToolErrorInfo,
  accountId: string,
  unrecognized?: UnrecognizedValues,
): Promise<TrailReport> {
  const [status, selectors] = await Promise.allSettled([
    client.send(new GetTrailStatusCommand({ Name: trail.arn })),
    client.send(new GetEventSelectorsCommand({ TrailName: trail.arn })),
  ]);
  const otherAccountsOrganizationTrail =
    trail.organizationTrail && trail.ownerAccountId !== null && trail.ownerAccountId !== accountId;
  const unreadable = (result: PromiseSettledResult<unknown>) =>
    result.status === 'rejected' && isTrailNotFound(result.reason);
  if (otherAccountsOrganizationTrail && unreadable(status) && selectors.status !== 'fulfilled') {
    return { ...trail, organizationManaged: true };
  }
  const errors: TrailCallError[] = [];
  if (status.status === 'rejected')
    errors.push({ call: 'GetTrailStatus', error: describeError(status.reason) });
  if (selectors.status === 'rejected') {
    errors.push({ call: 'GetEventSelectors', error: describeError(selectors.reason) });
  }
  const answered = status.status === 'fulfilled' ? status.value : undefined;
  return {
    ...trail,
    logging: answered ? answered.IsLogging === true : null,
    latestDeliveryError: answered?.LatestDeliveryError || null,
    latestDeliveryAt: iso(answered?.LatestDeliveryTime),
    deliveryErrors: answered ? deliveryErrorsOf(answered) : [],
    managementEvents:
      selectors.status === 'fulfilled' ? managementEventCoverage(selectors.value, unrecognized) : null,
    ...(errors.length > 0 ? { errors } : {}),
  };
}
