/**
 * A period's costs by Cost Explorer record type: the gross charges, and the
 * credits, refunds and tax set apart from them, so a net of 0.00 can say that
 * credits offset the charges.
 */
import { toCents } from '../shared/cost-explorer';
import { byAmountDescending, type PeriodCosts } from './period-costs';

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

/** The totals by record type of `costs`, or undefined when none was answered. */
export function recordTypeTotals(costs: PeriodCosts): RecordTypeTotals | undefined {
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
