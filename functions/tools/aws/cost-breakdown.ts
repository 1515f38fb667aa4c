import {
  type CostExplorerClient,
  GetCostAndUsageCommand,
  type GetCostAndUsageCommandOutput,
  type GroupDefinition,
} from '@aws-sdk/client-cost-explorer';
import { type PageStop, pagesByToken, readPages, stopFields } from '../../runtime/aws/pagination';
import type { Deadline } from '../../runtime/deadline';
import { PlatformError } from '../../runtime/errors';
import { normalizeError } from '../../runtime/normalize-error';
import type { ToolErrorInfo } from '../../runtime/result';
import { defineTool, type ToolArgs } from '../../runtime/spec';
import { compareText, formatUsd, plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import {
  COST_BREAKDOWN_DEFAULT_DAYS,
  COST_BREAKDOWN_MAX_DAYS,
  COST_EXPLORER_DEFAULT_HISTORY_MONTHS,
  COST_EXPLORER_HISTORY_MONTHS,
  costBreakdownSpec,
} from './cost-breakdown.meta';
import {
  type AmountChange,
  addDays,
  amountChange,
  type CostExplorerUsage,
  costAndUsageTimePeriod,
  costExplorerClient,
  costExplorerUsage,
  type InclusivePeriod,
  inclusiveEnd,
  inclusivePeriod,
  parseCostAmount,
  previousPeriod,
  toCents,
  utcToday,
} from './shared/cost-explorer';

type CostBreakdownArgs = ToolArgs<typeof costBreakdownSpec.inputSchema>;

/**
 * GetCostAndUsage pages read per period at most: every page is a billed request
 * (USD 0.01), so a runaway answer costs at most USD 0.20 a period.
 */
const MAX_PAGES_PER_PERIOD = 20;

/** Exact costs of one period, as read from Cost Explorer. */
interface PeriodCosts {
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

/**
 * RECORD_TYPE values kept apart from the charges (Billing and Cost Management user
 * guide, "Term comparisons": the console's charge types Credit, Refund and Tax);
 * every other record type (Usage, DiscountedUsage, Fee, RIFee, Support,
 * SavingsPlan…, discounts) is a charge.
 */
const SET_APART = { Credit: 'credits', Refund: 'refunds', Tax: 'tax' } as const;

/**
 * A period's costs by Cost Explorer record type (the RECORD_TYPE dimension: "the
 * different types of charges such as RI fees, usage costs, tax refunds, and
 * credits", Cost Explorer API reference, "GetDimensionValues"), each rounded to
 * cents in the result's currency. `net` = `gross` + `credits` + `refunds` + `tax` =
 * the result's `total`; credits and refunds are negative as Cost Explorer answers them.
 */
export interface RecordTypeTotals {
  /** Every record type but Credit, Refund and Tax: usage, fees, RI and Savings Plans charges, discounts. */
  readonly gross: number;
  readonly credits: number;
  readonly refunds: number;
  readonly tax: number;
  readonly net: number;
  /** Each record type Cost Explorer answered, as named (`Usage`, `Credit`…). */
  readonly byRecordType: Record<string, number>;
}

/** Requests Cost Explorer answered in this call, failed reads included: each one is billed. */
interface RequestMeter {
  requests: number;
}

/** One group in the result. */
export interface CostGroup {
  /** The service name, account id or tag value (`(no <key> tag)` for untagged costs). */
  readonly key: string;
  /** The account's name, for LINKED_ACCOUNT groups. */
  readonly name?: string;
  /** Cost over the period, rounded to cents, in `currency`. */
  readonly amount: number;
  /** Share of the total, percent with 2 decimals; null when the total is not positive. */
  readonly sharePercent: number | null;
  /** The same group's cost over the previous period, when it was read. */
  readonly previousAmount?: number;
  readonly change?: AmountChange;
}

/** The previous period's reading: its total and the change, or why it could not be read. */
export type CostComparison =
  | { readonly period: InclusivePeriod; readonly total: number; readonly change: AmountChange }
  | { readonly period: InclusivePeriod; readonly error: ToolErrorInfo };

/** What `aws_cost_breakdown` returns. */
export interface CostBreakdown {
  readonly period: InclusivePeriod;
  readonly granularity: CostBreakdownArgs['granularity'];
  readonly metric: CostBreakdownArgs['metric'];
  readonly groupBy: string;
  /** As Cost Explorer reports it (`USD`); null when it answered no amount at all. */
  readonly currency: string | null;
  /** Sum of every group, rounded to cents: net of credits, refunds and tax (see `recordTypes`). */
  readonly total: number;
  /**
   * The total by record type: what the charges were and what credits, refunds and
   * tax did to them, so a net of 0.00 reads as "credits offset 120.00 of usage", not
   * as no usage. Absent when Cost Explorer answered no record types (never, for
   * requests of this tool, which group by RECORD_TYPE too).
   */
  readonly recordTypes?: RecordTypeTotals;
  /** Whether AWS has not finalized some of the period's costs yet. */
  readonly estimated: boolean;
  readonly groupCount: number;
  /** The topN groups by cost, highest first. */
  readonly topGroups: CostGroup[];
  /** Total of the groups not in `topGroups`. */
  readonly otherGroupsAmount: number;
  /** Totals per MONTHLY/DAILY period, inclusive dates. */
  readonly byPeriod: { start: string; end: string; amount: number; estimated: boolean }[];
  /** Against the previous period of equal length; null when not asked for. */
  readonly comparison: CostComparison | null;
  readonly costExplorer: CostExplorerUsage;
  /** Set when the period's pages were not all read: why, and the `NextPageToken` to resume from. */
  readonly stoppedBy?: PageStop;
  readonly nextToken?: string;
  readonly stopError?: ToolErrorInfo;
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
async function readCosts(
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

const HISTORY_REASON =
  `Cost Explorer keeps costs for up to ${COST_EXPLORER_HISTORY_MONTHS} months with multi-year data enabled ` +
  `(${COST_EXPLORER_DEFAULT_HISTORY_MONTHS} months by default)`;

/**
 * The previous period's costs, or its normalized error: the current period's answer stands either way.
 * A previous period starting before `historyStart` is not requested (a billed request for
 * data Cost Explorer does not keep): its error is `data_unavailable`.
 */
async function readPrevious(
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

function percentOf(part: bigint, whole: bigint): number | null {
  return whole > 0n ? Math.round((Number(part) / Number(whole)) * 10_000) / 100 : null;
}

function byAmountDescending(a: [string, bigint], b: [string, bigint]): number {
  return a[1] === b[1] ? compareText(a[0], b[0]) : a[1] > b[1] ? -1 : 1;
}

function signed(amount: number): string {
  return `${amount >= 0 ? '+' : ''}${amount.toFixed(2)}`;
}

/** The totals by record type of `costs`, or undefined when none was answered. */
function recordTypeTotals(costs: PeriodCosts): RecordTypeTotals | undefined {
  if (costs.byRecordType.size === 0) return undefined;
  const apart = { credits: 0n, refunds: 0n, tax: 0n };
  let gross = 0n;
  for (const [type, amount] of costs.byRecordType) {
    const field = Object.hasOwn(SET_APART, type) ? SET_APART[type as keyof typeof SET_APART] : undefined;
    if (field) apart[field] += amount;
    else gross += amount;
  }
  return {
    gross: toCents(gross),
    credits: toCents(apart.credits),
    refunds: toCents(apart.refunds),
    tax: toCents(apart.tax),
    net: toCents(costs.total),
    byRecordType: Object.fromEntries(
      [...costs.byRecordType].sort(byAmountDescending).map(([type, amount]) => [type, toCents(amount)]),
    ),
  };
}

/**
 * The total as the summary says it: net, and, when credits, refunds or tax changed
 * it, the gross charges and each of them, saying so outright when they cancel the
 * charges (`0.00 USD net: credits and refunds offset 120.00 USD of charges`).
 */
function totalText(value: CostBreakdown): string {
  const currency = value.currency ?? '';
  const net = `${value.total.toFixed(2)} ${currency}`.trimEnd();
  const types = value.recordTypes;
  if (!types || (types.credits === 0 && types.refunds === 0 && types.tax === 0)) return net;
  const parts =
    `gross ${types.gross.toFixed(2)}, credits ${types.credits.toFixed(2)}, ` +
    `refunds ${types.refunds.toFixed(2)}, tax ${types.tax.toFixed(2)}`;
  if (types.net === 0 && types.gross !== 0) {
    return `${net} net: credits and refunds offset ${`${types.gross.toFixed(2)} ${currency}`.trimEnd()} of charges (${parts})`;
  }
  return `${net} net (${parts})`;
}

function summaryOf(value: CostBreakdown, truncated: boolean): string {
  const _currency = value.currency ?? '';
  const comparison = value.comparison;
  const change =
    comparison === null
      ? ''
      : 'error' in comparison
        ? `; previous period unavailable (${comparison.error.code})`
        : `, ${signed(comparison.change.absolute)}${comparison.change.percent === null ? '' : ` (${signed(comparison.change.percent)}%)`} vs the previous ${comparison.period.days} days`;
  const top = value.topGroups
    .slice(0, 3)
    .map((group) => `${group.name ?? group.key} ${group.amount.toFixed(2)}`)
    .join(', ');
  const { requests, estimatedCostUsd } = value.costExplorer;
  return (
    `${value.metric} ${value.period.start}..${value.period.end}: ${totalText(value)}` +
    `${change}${top ? `; top ${value.groupBy}: ${top}` : ''}` +
    `; ${plural(requests, 'Cost Explorer request')} (~${formatUsd(estimatedCostUsd)})` +
    `${truncated ? '; partial' : ''}`
  );
}

/** `aws_cost_breakdown` with its handler. */
export const costBreakdownTool = defineTool(costBreakdownSpec, async (ctx, args) => {
  const today = utcToday();
  const historyStart = costHistoryStart(today);
  // Validated before any (billed) request.
  const period = inclusivePeriod(args.start, args.end, {
    today,
    maxDays: COST_BREAKDOWN_MAX_DAYS,
    // start < today - maxAgeDays is refused: the same as start < historyStart.
    maxAgeDays: (Date.parse(today) - Date.parse(historyStart)) / 86_400_000,
    maxAgeReason: `${HISTORY_REASON}, so from ${historyStart}`,
    defaultDays: COST_BREAKDOWN_DEFAULT_DAYS,
    defaultEnd: addDays(today, -1),
  });
  const client = costExplorerClient(await ctx.aws());
  const meter: RequestMeter = { requests: 0 };
  // Errors of the period asked for fail the call (opt_in_required, data_unavailable…).
  const current = await readCosts(client, period, args, ctx.deadline, meter);
  const previous = args.compareWithPrevious
    ? await readPrevious(client, current, period, args, ctx.deadline, meter, ctx.tool, historyStart)
    : undefined;
  const previousCosts = previous && 'costs' in previous ? previous.costs : undefined;

  const ranked = [...current.byGroup].sort(byAmountDescending);
  const top = ranked.slice(0, args.topN);
  const topSum = top.reduce((sum, [, amount]) => sum + amount, 0n);
  const topGroups = top.map(([key, amount]): CostGroup => {
    const name = current.names.get(key);
    const before = previousCosts?.byGroup.get(key) ?? 0n;
    return {
      key,
      ...(name ? { name } : {}),
      amount: toCents(amount),
      sharePercent: percentOf(amount, current.total),
      ...(previousCosts ? { previousAmount: toCents(before), change: amountChange(amount, before) } : {}),
    };
  });
  const comparison: CostComparison | null = !previous
    ? null
    : 'error' in previous
      ? previous
      : {
          period: previous.period,
          total: toCents(previous.costs.total),
          change: amountChange(current.total, previous.costs.total),
        };
  const truncated = current.stoppedBy !== undefined || previousCosts?.stoppedBy !== undefined;
  const recordTypes = recordTypeTotals(current);
  const value: CostBreakdown = {
    period,
    granularity: args.granularity,
    metric: args.metric,
    groupBy: args.groupBy === 'TAG' ? `TAG ${args.tagKey}` : args.groupBy,
    currency: current.currency ?? null,
    total: toCents(current.total),
    ...(recordTypes ? { recordTypes } : {}),
    estimated: [...current.byPeriod.values()].some((slot) => slot.estimated),
    groupCount: current.byGroup.size,
    topGroups,
    otherGroupsAmount: toCents(current.total - topSum),
    byPeriod: [...current.byPeriod]
      .sort(([a], [b]) => compareText(a, b))
      .map(([start, slot]) => ({
        start,
        end: slot.end,
        amount: toCents(slot.amount),
        estimated: slot.estimated,
      })),
    comparison,
    costExplorer: costExplorerUsage(meter.requests),
    ...stopFields({ pages: 0, ...current }),
  };
  return { value, truncated, summary: summaryOf(value, truncated) };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(costBreakdownTool);
