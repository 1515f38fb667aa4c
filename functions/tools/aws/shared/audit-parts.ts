/**
 * What the regional audit tools share beyond `regional-audit.ts` (`runRegionalAudit`): reading a
 * secondary call of a region's scan so that its failure spoils only what depends
 * on it (a {@link PartialError}), and a summary that says so.
 */

import { normalizeError } from '../../../runtime/normalize-error';
import { plural } from '../../../runtime/text';
import {
  type AuditStats,
  type AuditValue,
  auditSummary,
  auditValue,
  type PartialError,
  type RegionalAudit,
} from './regional-audit';
import { type UnrecognizedValues, unrecognizedNote } from './service-enums';

/** A secondary read's value, or the partial error that replaced it. */
export type PartRead<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly partialError: PartialError };

/**
 * Runs a secondary read of a region's scan (CloudWatch metrics of listed NAT
 * gateways, the network interfaces that tell which security groups are used,
 * public snapshots beside volumes). Its failure is returned as a
 * {@link PartialError} named `what`, normalized for `tool` and `service`,
 * instead of thrown: the region's primary data is still worth reporting, and the
 * caller marks what depended on the read as unknown.
 *
 * @example
 * const interfaces = await readPart('EC2 DescribeNetworkInterfaces', { tool: ctx.tool, service: 'ec2' },
 *   () => readPages(paginateDescribeNetworkInterfaces({ client }, {}), onPage));
 * if (!interfaces.ok) partialErrors.push(interfaces.partialError);
 */
export async function readPart<T>(
  what: string,
  context: { readonly tool: string; readonly service: string },
  read: () => Promise<T>,
): Promise<PartRead<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (err) {
    return { ok: false, partialError: { what, error: normalizeError(context.tool, err, context.service) } };
  }
}

/**
 * The regions' partial errors for a summary, by what failed and where:
 * `; CloudWatch GetMetricData failed in 2 regions`; empty without any.
 */
export function partialErrorsNote(audit: RegionalAudit<AuditStats, unknown>): string {
  const regionsByWhat = new Map<string, number>();
  for (const report of audit.regionReports) {
    if ('error' in report) continue;
    const failed = new Set((report.partialErrors ?? []).map((p) => p.what));
    for (const what of failed) regionsByWhat.set(what, (regionsByWhat.get(what) ?? 0) + 1);
  }
  return [...regionsByWhat]
    .map(([what, regions]) => `; ${what} failed in ${plural(regions, 'region')}`)
    .join('');
}

/**
 * {@link auditSummary} (counts, findings, failed regions, `partial`) followed by
 * the partial errors of the regions that answered ({@link partialErrorsNote}), so
 * a summary never reads as complete when part of a region's scan failed.
 *
 * @example regionalAuditSummary('4 security groups', audit)
 * // => '4 security groups in 1 region: 2 findings (1 critical, 0 high); EC2 DescribeNetworkInterfaces failed in 1 region'
 */
export function regionalAuditSummary(subject: string, audit: RegionalAudit<AuditStats, unknown>): string {
  return `${auditSummary(subject, audit)}${partialErrorsNote(audit)}`;
}

/**
 * What a regional audit tool returns: its value ({@link auditValue} unless the
 * tool adds fields), `truncated` as the audit has it, and the summary
 * ({@link regionalAuditSummary} of `subject`, then the values the service sent
 * that the tool does not know, when its stats count them in `unrecognizedValues`).
 *
 * @example return auditResult(audit, `${plural(audit.totals.vpcs, 'VPC')} (…)`);
 */
export function auditResult<S extends AuditStats, V extends AuditValue<S> = AuditValue<S>>(
  audit: RegionalAudit<S, unknown>,
  subject: string,
  value: V = auditValue(audit) as V,
): { value: V; truncated: boolean; summary: string } {
  const unrecognized = audit.totals.unrecognizedValues as UnrecognizedValues | undefined;
  return {
    value,
    truncated: audit.truncated,
    summary: regionalAuditSummary(subject, audit) + (unrecognized ? unrecognizedNote(unrecognized) : ''),
  };
}
