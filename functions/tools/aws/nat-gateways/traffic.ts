/**
 * The traffic of NAT gateways over a window, from CloudWatch: each gateway's
 * processed bytes summed with GetMetricData (AWS/NATGateway), and how each is
 * known (measured, no datapoints, unavailable: `trafficOf` in usage.ts).
 */
import {
  type CloudWatchClient,
  type MetricDataQuery,
  paginateGetMetricData,
} from '@aws-sdk/client-cloudwatch';
import { type PagesRead, readPages } from '../../../runtime/aws/pagination';
import type { Deadline } from '../../../runtime/deadline';
import { readPart } from '../shared/audit-parts';
import type { PartialError } from '../shared/regional-audit';
import { serviceEnum, type UnrecognizedValues } from '../shared/service-enums';

/**
 * MetricDataResult `StatusCode` (CloudWatch API reference, "MetricDataResult"):
 * `Complete` and `PartialData` (more pages follow) carry datapoints; `Forbidden`
 * and `InternalError` mean the query's values are not the gateway's traffic.
 */
const METRIC_STATUS = serviceEnum('StatusCode', [
  'Complete',
  'PartialData',
  'Forbidden',
  'InternalError',
] as const);

/**
 * The bytes a gateway processed: what it received from clients in the VPC plus
 * what it received back from destinations. Each processed byte enters the gateway
 * exactly once; adding the `BytesOut*` metrics would count it twice (Amazon VPC
 * User Guide, "NAT gateway CloudWatch metrics").
 */
const PROCESSED_BYTES_METRICS = ['BytesInFromSource', 'BytesInFromDestination'] as const;
/** GetMetricData takes at most 500 queries a request (CloudWatch API reference, "GetMetricData"). */
const MAX_QUERIES_PER_REQUEST = 500;
const GATEWAYS_PER_REQUEST = MAX_QUERIES_PER_REQUEST / PROCESSED_BYTES_METRICS.length;
/**
 * One datapoint a day: at most 90 per query, 45,000 per request, within the
 * 100,800 datapoints of one GetMetricData page; the page cap only guards a loop.
 */
const METRIC_PERIOD_SECONDS = 86_400;
const MAX_METRIC_PAGES = 10;
/** An hour, ms. */
export const HOUR_MS = 3_600_000;

/** The metric window: whole hours, ending at the last full hour. */
export interface MetricWindow {
  readonly start: Date;
  readonly end: Date;
  readonly days: number;
}

/** The window of the last `days` days: whole hours, ending at the last full hour before `now` (epoch ms). */
export function metricWindow(days: number, now: number): MetricWindow {
  const end = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { start: new Date(end - days * 24 * HOUR_MS), end: new Date(end), days };
}
/** Processed bytes per gateway id, or why they are unknown. */
export interface TrafficRead {
  readonly bytes: ReadonlyMap<string, number>;
  /** Gateways with at least one datapoint: the others have no measured traffic. */
  readonly measured: ReadonlySet<string>;
  /**
   * Gateways a query of which answered Forbidden or InternalError, or was not
   * answered at all: GetMetricData runs "as much of the operation as possible" and
   * says why in `Messages` (CloudWatch API reference, "GetMetricData": "Maximum
   * number of allowed metrics exceeded"), so a query may be missing from
   * `MetricDataResults`; half a gateway's traffic is not its traffic.
   */
  readonly failed: ReadonlySet<string>;
  readonly complete: boolean;
  readonly read?: PagesRead;
  readonly partialError?: PartialError;
}

/**
 * Sums each gateway's processed bytes over the window with GetMetricData, 250
 * gateways (500 queries) a request. A CloudWatch failure is returned, not
 * thrown: the gateways and their hourly cost are still worth reporting.
 */
export async function readTraffic(
  cloudwatch: CloudWatchClient,
  gatewayIds: readonly string[],
  window: MetricWindow,
  context: { readonly tool: string; readonly deadline: Deadline; readonly unrecognized: UnrecognizedValues },
): Promise<TrafficRead> {
  const bytes = new Map<string, number>(gatewayIds.map((id) => [id, 0]));
  const measured = new Set<string>();
  const failed = new Set<string>();
  const summed = await readPart(
    'CloudWatch GetMetricData',
    { tool: context.tool, service: 'cloudwatch' },
    async (): Promise<Omit<TrafficRead, 'bytes' | 'measured' | 'failed'>> => {
      let lastRead: PagesRead | undefined;
      let unanswered = 0;
      const messages = new Set<string>();
      for (let first = 0; first < gatewayIds.length; first += GATEWAYS_PER_REQUEST) {
        const batch = gatewayIds.slice(first, first + GATEWAYS_PER_REQUEST);
        const queryOwner = new Map<string, string>();
        const queries: MetricDataQuery[] = batch.flatMap((natGatewayId, index) =>
          PROCESSED_BYTES_METRICS.map((metricName, m) => {
            const id = `g${first + index}m${m}`; // query ids must match ^[a-z][a-zA-Z0-9_]*$
            queryOwner.set(id, natGatewayId);
            return {
              Id: id,
              MetricStat: {
                Metric: {
                  Namespace: 'AWS/NATGateway',
                  MetricName: metricName,
                  Dimensions: [{ Name: 'NatGatewayId', Value: natGatewayId }],
                },
                Period: METRIC_PERIOD_SECONDS,
                Stat: 'Sum',
              },
              ReturnData: true,
            };
          }),
        );
        const answered = new Set<string>();
        lastRead = await readPages(
          paginateGetMetricData(
            { client: cloudwatch },
            { StartTime: window.start, EndTime: window.end, MetricDataQueries: queries },
          ),
          (page) => {
            for (const message of page.Messages ?? []) {
              messages.add([message.Code, message.Value].filter(Boolean).join(': '));
            }
            for (const result of page.MetricDataResults ?? []) {
              const owner = queryOwner.get(result.Id ?? '');
              if (!owner) continue;
              answered.add(result.Id ?? '');
              const status = METRIC_STATUS.parse(result.StatusCode, context.unrecognized);
              if (status === 'Forbidden' || status === 'InternalError') failed.add(owner);
              const values = result.Values ?? [];
              if (values.length > 0) measured.add(owner);
              const sum = values.reduce((total, v) => total + v, 0);
              bytes.set(owner, (bytes.get(owner) ?? 0) + sum);
            }
          },
          { maxPages: MAX_METRIC_PAGES, deadline: context.deadline },
        );
        if (lastRead.stoppedBy) return { complete: false, read: lastRead };
        for (const [id, owner] of queryOwner) {
          if (answered.has(id)) continue;
          unanswered++;
          failed.add(owner);
        }
      }
      const partialError: PartialError | undefined =
        unanswered === 0
          ? undefined
          : {
              what: 'CloudWatch GetMetricData',
              error: {
                code: 'upstream_error',
                message:
                  `CloudWatch left ${unanswered} of the gateways' metric queries unanswered` +
                  `${messages.size > 0 ? ` (${[...messages].join('; ')})` : ''}: their traffic is unknown`,
                retryable: true,
                service: 'cloudwatch',
              },
            };
      return {
        complete: true,
        ...(lastRead ? { read: lastRead } : {}),
        ...(partialError ? { partialError } : {}),
      };
    },
  );
  return summed.ok
    ? { bytes, measured, failed, ...summed.value }
    : { bytes, measured, failed, complete: false, partialError: summed.partialError };
}
