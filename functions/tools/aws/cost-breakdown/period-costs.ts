/**
 * Reading `aws_cost_breakdown`'s costs from Cost Explorer: one period's
 * GetCostAndUsage pages (grouped by the asked dimension and by RECORD_TYPE),
 * summed exactly in bigint micro-units, and the previous period's, with the
 * history Cost Explorer keeps. Every request is billed and counted.
 */
import {
  type CostExplorerClient,
  GetCostAndUsageCommand,
  type GetCostAndUsageCommandOutput,
  type GroupDefinition,
} from '@aws-sdk/client-cost-explorer';
import { type PageStop, pagesByToken, readPages, stopFields } from '../../../runtime/aws/pagination';
import type { Deadline } from '../../../runtime/deadline';
import { PlatformError } from '../../../runtime/errors';
import { normalizeError } from '../../../runtime/normalize-error';
import type { ToolErrorInfo } from '../../../runtime/result';
import type { ToolArgs } from '../../../runtime/spec';
import { compareText } from '../../../runtime/text';
import {
  COST_EXPLORER_DEFAULT_HISTORY_MONTHS,
  COST_EXPLORER_HISTORY_MONTHS,
  type costBreakdownSpec,
} from '../cost-breakdown.meta';
import {
  costAndUsageTimePeriod,
  type InclusivePeriod,
  inclusiveEnd,
  parseCostAmount,
  previousPeriod,
} from '../shared/cost-explorer';

/** The tool's arguments, as its schema parses them. */
export type CostBreakdownArgs = ToolArgs<typeof costBreakdownSpec.inputSchema>;

/**
 * GetCostAndUsage pages read per period at most: every page is a billed request
 * (USD 0.01), so a runaway answer costs at most USD 0.20 a period.
 */
const MAX_PAGES_PER_PERIOD = 20;

/** Exact costs of one period, as read from Cost Explorer. */
export interface PeriodCosts {
  readonly total: bigint;
  readonly byGroup: Map<string, bigint>;
  /** By the start of each MONTHLY/DAILY period Cost Explorer answered. */
  readonly byPeriod: Map<string, { end: string; amount: bigint; estimated: boolean }>;
  /** `MetricValue.Unit` of the amounts; undefined when no amount was answered. */
  readonly currency: string | undefined;
  /** Account names of LINKED_ACCOUNT groups (`DimensionValueAttributes[].Attributes.description`). */
  readonly names: Map<string, string>;
  /** By RECORD_TYPE (the second group of every request); empty when the answer carried none. */
  readonly byRecordType: Map<string, bigint>;
  readonly stoppedBy?: PageStop;
  readonly nextToken?: string;
  readonly stopError?: ToolErrorInfo;
}

/** Requests Cost Explorer answered in this call, failed reads included: each one is billed. */
export interface RequestMeter {
  requests: number;
}

/** The second group of every request: the record type, so credits, refunds and tax can be told from usage. */
const RECORD_TYPE_GROUP: GroupDefinition = { Type: 'DIMENSION', Key: 'RECORD_TYPE' };

function groupDefinition(args: CostBreakdownArgs): GroupDefinition {
  return args.groupBy === 'TAG'
    ? { Type: 'TAG', Key: args.tagKey }
    : { Type: 'DIMENSION', Key: args.groupBy };
}

/**
 * A group's key: its keys but the record type's (at `recordIndex`, -1 for none), joined.
 * Tag groups come back as `key$value`, `key$` for costs without the tag (Cost Explorer API reference, "Group").
 */
function groupKey(keys: readonly string[] | undefined, recordIndex: number, args: CostBreakdownArgs): string {
  const key = (keys ?? []).filter((_, index) => index !== recordIndex).join(', ');
  if (args.groupBy !== 'TAG') return key;
  const value = key.startsWith(`${args.tagKey}$`) ? key.slice(`${args.tagKey}$`.length) : key;
  return value === '' ? `(no ${args.tagKey} tag)` : value;
}

/**
 * Amounts of two currencies are never added up.
 *
 * @throws PlatformError (`upstream_error`) when `unit` differs from the currency seen so far.
 */
function sameCurrency(seen: string | undefined, unit: string | undefined): string | undefined {
  if (seen === undefined || unit === undefined || seen === unit) return seen ?? unit;
  throw new PlatformError(
    'upstream_error',
    `Cost Explorer answered amounts in ${seen} and in ${unit}; amounts of different currencies are not added up`,
    { service: 'ce' },
  );
}

/**
 * Reads one period's costs, page by page. Grouped answers carry no `Total`
 * (Cost Explorer API reference, "ResultByTime"): the period's total is the sum of
 * its groups, which partition the costs.
 *
 * @throws DeadlineExceededError when the deadline passed before the first page: an
 *   unread period is never reported as a cost of 0.
 */
export async function readCosts(
  client: CostExplorerClient,
  period: InclusivePeriod,
  args: CostBreakdownArgs,
  deadline: Deadline,
  meter: RequestMeter,
): Promise<PeriodCosts> {
  let total = 0n;
  let currency: string | undefined;
  const byGroup = new Map<string, bigint>();
  const byPeriod = new Map<string, { end: string; amount: bigint; estimated: boolean }>();
  const names = new Map<string, string>();
  const byRecordType = new Map<string, bigint>();
  const onPage = (page: GetCostAndUsageCommandOutput) => {
    // Which of a group's keys is its record type: the answer names its groups (`GroupDefinitions`).
    const recordIndex =
      page.GroupDefinitions?.findIndex(
        (definition) =>
          definition.Type === RECORD_TYPE_GROUP.Type && definition.Key === RECORD_TYPE_GROUP.Key,
      ) ?? -1;
    for (const result of page.ResultsByTime ?? []) {
      const start = result.TimePeriod?.Start ?? period.start;
      const end = result.TimePeriod?.End ? inclusiveEnd(result.TimePeriod.End) : period.end;
      // A page boundary can split one time period's groups: merge by start date.
      const slot = byPeriod.get(start) ?? { end, amount: 0n, estimated: false };
      slot.estimated ||= result.Estimated === true;
      for (const group of result.Groups ?? []) {
        const metric = group.Metrics?.[args.metric];
        const amount = parseCostAmount(metric?.Amount);
        currency = sameCurrency(currency, metric?.Unit);
        const key = groupKey(group.Keys, recordIndex, args);
        byGroup.set(key, (byGroup.get(key) ?? 0n) + amount);
        const recordType = recordIndex >= 0 ? group.Keys?.[recordIndex] : undefined;
        if (recordType !== undefined)
          byRecordType.set(recordType, (byRecordType.get(recordType) ?? 0n) + amount);
        slot.amount += amount;
        total += amount;
      }
      byPeriod.set(start, slot);
    }
    for (const attribute of page.DimensionValueAttributes ?? []) {
      const name = attribute.Attributes?.description;
      if (attribute.Value && name) names.set(attribute.Value, name);
    }
  };
  const read = await readPages(
    pagesByToken(async (token) => {
      const page = await client.send(
        new GetCostAndUsageCommand({
          TimePeriod: costAndUsageTimePeriod(period),
          Granularity: args.granularity,
          Metrics: [args.metric],
          GroupBy: [groupDefinition(args), RECORD_TYPE_GROUP],
          NextPageToken: token,
        }),
      );
      meter.requests++;
      return page;
    }),
    onPage,
    { maxPages: MAX_PAGES_PER_PERIOD, deadline },
  );
  if (read.pages === 0) deadline.check(`reading costs of ${period.start}..${period.end} from Cost Explorer`);
  return {
    total,
    byGroup,
    byPeriod,
    currency,
    names,
    byRecordType,
    ...stopFields(read),
  };
}

/** The oldest day Cost Explorer may have costs for: the first day of the month {@link COST_EXPLORER_HISTORY_MONTHS} before `today`'s. */
export function costHistoryStart(today: string): string {
  const [year = 0, month = 1] = today.split('-').map(Number);
  const months = year * 12 + (month - 1) - COST_EXPLORER_HISTORY_MONTHS;
  return `${String(Math.floor(months / 12)).padStart(4, '0')}-${String((months % 12) + 1).padStart(2, '0')}-01`;
}

/** Why a period before the history start is refused or not read. */
export const HISTORY_REASON =
  `Cost Explorer keeps costs for up to ${COST_EXPLORER_HISTORY_MONTHS} months with multi-year data enabled ` +
  `(${COST_EXPLORER_DEFAULT_HISTORY_MONTHS} months by default)`;

/**
 * The previous period's costs, or its normalized error: the current period's answer stands either way.
 * A previous period starting before `historyStart` is not requested (a billed request for
 * data Cost Explorer does not keep): its error is `data_unavailable`.
 */
export async function readPrevious(
  client: CostExplorerClient,
  current: PeriodCosts,
  period: InclusivePeriod,
  args: CostBreakdownArgs,
  deadline: Deadline,
  meter: RequestMeter,
  tool: string,
  historyStart: string,
): Promise<
  { period: InclusivePeriod; costs: PeriodCosts } | { period: InclusivePeriod; error: ToolErrorInfo }
> {
  const previous = previousPeriod(period);
  if (previous.start < historyStart) {
    return {
      period: previous,
      error: {
        code: 'data_unavailable',
        message:
          `Previous period ${previous.start}..${previous.end} not read: it starts before ${historyStart}, ` +
          `the oldest day accepted: ${HISTORY_REASON}`,
        retryable: false,
        service: 'ce',
      },
    };
  }
  try {
    const costs = await readCosts(client, previous, args, deadline, meter);
    sameCurrency(current.currency, costs.currency);
    return { period: previous, costs };
  } catch (err) {
    return { period: previous, error: normalizeError(tool, err, 'ce') };
  }
}

/** Amounts highest first, then by key: a stable order. */
export function byAmountDescending(a: [string, bigint], b: [string, bigint]): number {
  return a[1] === b[1] ? compareText(a[0], b[0]) : a[1] > b[1] ? -1 : 1;
}
