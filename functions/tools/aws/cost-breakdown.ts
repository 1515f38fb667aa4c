/**
 * `aws_cost_breakdown`: one period's costs from Cost Explorer
 * (cost-breakdown/period-costs.ts), ranked into the top groups, set apart by
 * record type (cost-breakdown/record-types.ts), compared with the previous
 * period, and summarized (cost-breakdown/value.ts).
 */
import { stopFields } from '../../runtime/aws/pagination';
import { defineTool } from '../../runtime/spec';
import { compareText } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import {
  byAmountDescending,
  costHistoryStart,
  HISTORY_REASON,
  type RequestMeter,
  readCosts,
  readPrevious,
} from './cost-breakdown/period-costs';
import { recordTypeTotals } from './cost-breakdown/record-types';
import { type CostBreakdown, type CostComparison, type CostGroup, summaryOf } from './cost-breakdown/value';
import {
  COST_BREAKDOWN_DEFAULT_DAYS,
  COST_BREAKDOWN_MAX_DAYS,
  costBreakdownSpec,
} from './cost-breakdown.meta';
import {
  addDays,
  amountChange,
  costExplorerClient,
  costExplorerUsage,
  inclusivePeriod,
  toCents,
  utcToday,
} from './shared/cost-explorer';

export type { CostBreakdown } from './cost-breakdown/value';

/** A group's share of the total, percent with 2 decimals; null when the total is not positive. */
function percentOf(part: bigint, whole: bigint): number | null {
  return whole > 0n ? Math.round((Number(part) / Number(whole)) * 10_000) / 100 : null;
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
