/**
 * Region coverage and CloudTrail checks. A region is covered when a logging
 * multi-region trail records its management events, reads and writes (CIS AWS
 * Foundations Benchmark 3.1; Security Hub CloudTrail.1). Severities follow
 * Prowler's CloudTrail checks.
 */

import type { ToolErrorInfo } from '../../../runtime/result';
import { accountFinding } from '../shared/account';
import type { Finding } from '../shared/findings';
import type { TrailReport } from './trail-report';

/**
 * `covered`: read and write management events are logged by logging multi-region
 * trails; `partial`: only one of them is; `uncovered`: no logging multi-region
 * trail logs management events; `unknown`: the region or a candidate trail could not be read.
 */
export type Coverage = 'covered' | 'partial' | 'uncovered' | 'unknown';

/** One region's coverage. */
export interface RegionCoverage {
  readonly region: string;
  readonly coverage: Coverage;
  /** Names of the trails that apply in the region (its own and other regions' multi-region trails). */
  readonly trails: string[];
  /** Names of the logging multi-region trails that log its management events. */
  readonly coveredBy: string[];
  /** For `partial`: the kind of management events nobody logs. */
  readonly missing?: ('read' | 'write')[];
  /** Why the region's trails could not be listed (`coverage: unknown`). */
  readonly error?: ToolErrorInfo;
}

/**
 * The coverage of a region by the trails DescribeTrails lists there (shadow
 * trails included).
 *
 * @example regionCoverage('eu-west-1', []) // { coverage: 'uncovered', trails: [], coveredBy: [], … }
 */
export function regionCoverage(region: string, trails: readonly TrailReport[]): RegionCoverage {
  const multi = trails.filter((t) => t.multiRegion);
  const recording = multi.filter(
    (t) => t.logging === true && (t.managementEvents?.read || t.managementEvents?.write),
  );
  const read = recording.some((t) => t.managementEvents?.read);
  const write = recording.some((t) => t.managementEvents?.write);
  const undetermined = multi.some((t) => t.logging === null || (t.logging && t.managementEvents === null));
  const base = { region, trails: trails.map((t) => t.name), coveredBy: recording.map((t) => t.name) };
  if (read && write) return { ...base, coverage: 'covered' };
  if (undetermined) return { ...base, coverage: 'unknown' };
  if (recording.length === 0) return { ...base, coverage: 'uncovered' };
  return { ...base, coverage: 'partial', missing: read ? ['write'] : ['read'] };
}

/**
 * `cloudtrail_region_not_covered` (high) and
 * `cloudtrail_region_management_events_partial` (medium); resource: the region.
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
 * (medium: reads or writes only, e.g. `WriteOnly`), `cloudtrail_log_file_validation_disabled`
 * (medium), `cloudtrail_logs_not_kms_encrypted` (medium). Facts not read raise nothing.
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
