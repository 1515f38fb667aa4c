/**
 * Region coverage and CloudTrail checks. A region is covered when a logging
 * multi-region trail records its management events, reads and writes, and
 * delivers them (CIS AWS Foundations Benchmark 3.1; Security Hub CloudTrail.1).
 * "Logging" alone is not "working": a trail whose S3, CloudWatch Logs or digest
 * delivery fails covers nothing. Severities follow Prowler's CloudTrail checks.
 */

import type { ToolErrorInfo } from '../../../runtime/result';
import { accountFinding } from '../shared/account';
import type { Finding } from '../shared/findings';
import type { DeliveryChannel, DeliveryError, TrailReport } from './trail-report';

/**
 * `covered`: read and write management events are logged and delivered by
 * logging multi-region trails of this account (or readable organization trails);
 * `organization`: an organization trail owned by another account applies, whose
 * logging and delivery only its owner can read (coverage provided by the
 * organization); `failing`: trails record the region's management events but
 * their delivery fails (S3, CloudWatch Logs or digest files); `partial`: only
 * reads or only writes are logged; `uncovered`: no logging multi-region trail
 * logs management events; `unknown`: the region or a candidate trail could not be read.
 */
export type Coverage = 'covered' | 'organization' | 'failing' | 'partial' | 'uncovered' | 'unknown';

/** A trail that records a region's events but cannot deliver them. */
export interface FailingTrail {
  readonly name: string;
  readonly arn: string;
  readonly deliveryErrors: DeliveryError[];
}

/** One region's coverage. */
export interface RegionCoverage {
  readonly region: string;
  readonly coverage: Coverage;
  /** Names of the trails that apply in the region (its own and other regions' multi-region trails). */
  readonly trails: string[];
  /** Names of the logging, delivering multi-region trails that log its management events. */
  readonly coveredBy: string[];
  /** For `organization`: the organization trails (owned by another account) that apply. */
  readonly providedBy?: string[];
  /** For `failing`: the trails that record but cannot deliver, with their errors. */
  readonly failingTrails?: FailingTrail[];
  /** For `partial`: the kind of management events nobody logs. */
  readonly missing?: ('read' | 'write')[];
  /** Why the region's trails could not be listed (`coverage: unknown`). */
  readonly error?: ToolErrorInfo;
}

/** Records management events: logging, with selectors that log reads or writes. */
function records(trail: TrailReport): boolean {
  return trail.logging === true && Boolean(trail.managementEvents?.read || trail.managementEvents?.write);
}

/**
 * The coverage of a region by the trails DescribeTrails lists there (shadow
 * trails included).
 *
 * @example regionCoverage('eu-west-1', []) // { coverage: 'uncovered', trails: [], coveredBy: [], … }
 */
export function regionCoverage(region: string, trails: readonly TrailReport[]): RegionCoverage {
  const multi = trails.filter((t) => t.multiRegion);
  const recording = multi.filter(records);
  const working = recording.filter((t) => t.deliveryErrors.length === 0);
  const read = working.some((t) => t.managementEvents?.read);
  const write = working.some((t) => t.managementEvents?.write);
  const base = { region, trails: trails.map((t) => t.name), coveredBy: working.map((t) => t.name) };
  if (read && write) return { ...base, coverage: 'covered' };
  const organization = multi.filter((t) => t.organizationManaged);
  if (organization.length > 0) {
    return { ...base, coverage: 'organization', providedBy: organization.map((t) => t.name) };
  }
  const undetermined = multi.some((t) => t.logging === null || (t.logging && t.managementEvents === null));
  if (undetermined) return { ...base, coverage: 'unknown' };
  const failing = recording.filter((t) => t.deliveryErrors.length > 0);
  if (failing.length > 0) {
    return {
      ...base,
      coverage: 'failing',
      failingTrails: failing.map((t) => ({ name: t.name, arn: t.arn, deliveryErrors: t.deliveryErrors })),
    };
  }
  if (working.length === 0) return { ...base, coverage: 'uncovered' };
  return { ...base, coverage: 'partial', missing: read ? ['write'] : ['read'] };
}

/** What each delivery channel is, in findings. */
const CHANNELS: Record<
  DeliveryChannel,
  { readonly check: string; readonly label: string; readonly severity: Finding['severity'] }
> = {
  s3: { check: 'cloudtrail_s3_delivery_failing', label: 'log file delivery to S3', severity: 'high' },
  cloudwatch_logs: {
    check: 'cloudtrail_cloudwatch_logs_delivery_failing',
    label: 'delivery to CloudWatch Logs',
    severity: 'medium',
  },
  digest: {
    check: 'cloudtrail_digest_delivery_failing',
    label: 'digest file delivery (log file validation)',
    severity: 'medium',
  },
};

/** `S3: NoSuchBucket (last good delivery 2026-10-02T08:15:00.000Z)`. */
function describeDelivery(error: DeliveryError): string {
  return (
    `${CHANNELS[error.channel].label} fails with ${error.error} ` +
    `(last good delivery ${error.lastDeliveryAt ?? 'never reported'})`
  );
}

/**
 * `cloudtrail_region_not_covered` (high), `cloudtrail_region_delivery_failing`
 * (high: recorded, not delivered; names the errors and last good deliveries) and
 * `cloudtrail_region_management_events_partial` (medium); resource: the region.
 * Regions covered by an organization trail raise nothing here.
 */
export function regionFindings(coverage: RegionCoverage, accountId: string): Finding[] {
  const at = { resource: coverage.region, region: coverage.region };
  if (coverage.coverage === 'uncovered') {
    return [
      accountFinding(accountId, {
        check: 'cloudtrail_region_not_covered',
        severity: 'high',
        ...at,
        title: `No logging multi-region trail records management events in ${coverage.region}`,
        details: { trails: coverage.trails },
      }),
    ];
  }
  if (coverage.coverage === 'failing') {
    const failing = coverage.failingTrails ?? [];
    return [
      accountFinding(accountId, {
        check: 'cloudtrail_region_delivery_failing',
        severity: 'high',
        ...at,
        title:
          `Management events in ${coverage.region} are recorded but not delivered: ` +
          failing
            .map((t) => `trail ${t.name}: ${t.deliveryErrors.map(describeDelivery).join('; ')}`)
            .join('; '),
        details: { failingTrails: failing, coveredBy: coverage.coveredBy },
      }),
    ];
  }
  if (coverage.coverage === 'partial') {
    return [
      accountFinding(accountId, {
        check: 'cloudtrail_region_management_events_partial',
        severity: 'medium',
        ...at,
        title: `Management ${coverage.missing?.join(', ')} events are not logged in ${coverage.region}`,
        details: { missing: coverage.missing, coveredBy: coverage.coveredBy },
      }),
    ];
  }
  return [];
}

/**
 * A trail's findings (resource: its ARN, region: its home region):
 * `cloudtrail_trail_not_logging` (high), `cloudtrail_management_events_incomplete`
 * (medium: reads or writes only, e.g. `WriteOnly`), one per failing delivery
 * (`cloudtrail_s3_delivery_failing` high, `cloudtrail_cloudwatch_logs_delivery_failing`
 * and `cloudtrail_digest_delivery_failing` medium, each naming the error and the
 * last good delivery), `cloudtrail_log_file_validation_disabled` (medium),
 * `cloudtrail_logs_not_kms_encrypted` (medium). Facts not read raise nothing: an
 * organization-managed trail is judged on its DescribeTrails settings only.
 */
export function trailFindings(trail: TrailReport, accountId: string): Finding[] {
  const at = { resource: trail.arn, region: trail.homeRegion };
  const details = { multiRegion: trail.multiRegion, organizationTrail: trail.organizationTrail };
  const findings: Finding[] = [];
  const add = (check: string, severity: Finding['severity'], title: string, extra: object = {}) =>
    findings.push(
      accountFinding(accountId, { check, severity, ...at, title, details: { ...details, ...extra } }),
    );
  if (trail.logging === false)
    add('cloudtrail_trail_not_logging', 'high', `Trail ${trail.name} is not logging`);
  const events = trail.managementEvents;
  if (events && events.read !== events.write) {
    add(
      'cloudtrail_management_events_incomplete',
      'medium',
      `Trail ${trail.name} logs management ${events.read ? 'read' : 'write'} events only`,
      { read: events.read, write: events.write },
    );
  }
  for (const failure of trail.deliveryErrors) {
    const channel = CHANNELS[failure.channel];
    add(channel.check, channel.severity, `Trail ${trail.name}: ${describeDelivery(failure)}`, {
      error: failure.error,
      lastDeliveryAt: failure.lastDeliveryAt,
      logging: trail.logging,
      ...(failure.channel === 's3' ? { s3BucketName: trail.s3BucketName } : {}),
      ...(failure.channel === 'cloudwatch_logs' ? { logGroupArn: trail.cloudWatchLogsLogGroupArn } : {}),
    });
  }
  if (!trail.logFileValidation) {
    add(
      'cloudtrail_log_file_validation_disabled',
      'medium',
      `Trail ${trail.name} has log file validation off`,
    );
  }
  if (trail.kmsKeyId === null) {
    add(
      'cloudtrail_logs_not_kms_encrypted',
      'medium',
      `Trail ${trail.name} does not encrypt its logs with KMS`,
    );
  }
  return findings;
}
