/**
 * What `aws_cost_breakdown` returns, and its one-line summary (the net total
 * with what credits, refunds and tax did to it, the change against the previous
 * period, the top groups, the Cost Explorer requests it cost).
 */
import type { PageStop } from '../../../runtime/aws/pagination';
import type { ToolErrorInfo } from '../../../runtime/result';
import { formatUsd, plural } from '../../../runtime/text';
import type { AmountChange, CostExplorerUsage, InclusivePeriod } from '../shared/cost-explorer';
import type { CostBreakdownArgs } from './period-costs';
import type { RecordTypeTotals } from './record-types';

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

function signed(amount: number): string {
  return `${amount >= 0 ? '+' : ''}${amount.toFixed(2)}`;
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

/** The one-line summary of `value` (`; partial` when `truncated`). */
export function summaryOf(value: CostBreakdown, truncated: boolean): string {
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
