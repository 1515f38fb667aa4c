import {
  type CloudTrailClient,
  GetEventSelectorsCommand,
  GetTrailStatusCommand,
  type Trail,
} from '@aws-sdk/client-cloudtrail';
import type { ToolErrorInfo } from '../../../runtime/result';
import { type ManagementEventCoverage, managementEventCoverage } from './event-selectors';

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
  /** GetTrailStatus `IsLogging`; null when not read (`errors`, or the deadline). */
  readonly logging: boolean | null;
  /** The last error delivering log files to S3, if any. */
  readonly latestDeliveryError: string | null;
  /** Null when not read (`errors`, or the deadline). */
  readonly managementEvents: ManagementEventCoverage | null;
  readonly errors?: TrailCallError[];
}

/** What DescribeTrails tells about a trail, before its status and selectors are read. */
export function describedTrail(trail: Trail, seenIn: string): TrailReport {
  return {
    name: trail.Name ?? trail.TrailARN ?? 'unknown',
    arn: trail.TrailARN ?? trail.Name ?? 'unknown',
    homeRegion: trail.HomeRegion ?? seenIn,
    multiRegion: trail.IsMultiRegionTrail === true,
    organizationTrail: trail.IsOrganizationTrail === true,
    logFileValidation: trail.LogFileValidationEnabled === true,
    kmsKeyId: trail.KmsKeyId ?? null,
    s3BucketName: trail.S3BucketName ?? null,
    logging: null,
    latestDeliveryError: null,
    managementEvents: null,
  };
}

/**
 * Adds a trail's status and management-event coverage (GetTrailStatus and
 * GetEventSelectors, both by ARN as shadow and organization trails require;
 * CloudTrail API reference). Never throws: a failed call leaves its fields null
 * and is listed in `errors`.
 *
 * @param client - a CloudTrail client in the trail's home region.
 */
export async function readTrail(
  client: CloudTrailClient,
  trail: TrailReport,
  describeError: (err: unknown) => ToolErrorInfo,
): Promise<TrailReport> {
  const [status, selectors] = await Promise.allSettled([
    client.send(new GetTrailStatusCommand({ Name: trail.arn })),
    client.send(new GetEventSelectorsCommand({ TrailName: trail.arn })),
  ]);
  const errors: TrailCallError[] = [];
  if (status.status === 'rejected')
    errors.push({ call: 'GetTrailStatus', error: describeError(status.reason) });
  if (selectors.status === 'rejected') {
    errors.push({ call: 'GetEventSelectors', error: describeError(selectors.reason) });
  }
  return {
    ...trail,
    logging: status.status === 'fulfilled' ? status.value.IsLogging === true : null,
    latestDeliveryError: status.status === 'fulfilled' ? (status.value.LatestDeliveryError ?? null) : null,
    managementEvents: selectors.status === 'fulfilled' ? managementEventCoverage(selectors.value) : null,
    ...(errors.length > 0 ? { errors } : {}),
  };
}
