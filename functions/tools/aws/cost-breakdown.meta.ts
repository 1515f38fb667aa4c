import * as z from 'zod/mini';
import { calendarDateArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** Longest period accepted, in days: a year, leap day included. */
export const COST_BREAKDOWN_MAX_DAYS = 366;
/**
 * How far back Cost Explorer keeps costs, in months before the current month:
 * up to 38 with multi-year data at monthly granularity enabled, 13 by default
 * (AWS Cost Management User Guide, "Exploring your data using Cost Explorer" and
 * "Multi-year data at monthly granularity"). Starts before the 38-month limit are
 * refused; between 13 and 38 months, accounts without multi-year data get no data.
 */
export const COST_EXPLORER_HISTORY_MONTHS = 38;
/** What Cost Explorer keeps without multi-year data, in months (see {@link COST_EXPLORER_HISTORY_MONTHS}). */
export const COST_EXPLORER_DEFAULT_HISTORY_MONTHS = 13;
/** Length of the default period (ending yesterday, UTC), in days. */
export const COST_BREAKDOWN_DEFAULT_DAYS = 30;

/** `aws_cost_breakdown`: Cost Explorer costs grouped by service, account or tag, against the previous period. */
export const costBreakdownSpec = defineAwsReadOnlySpec({
  name: 'aws_cost_breakdown',
  description:
    'Costs of the account from Cost Explorer (GetCostAndUsage) over a period given as inclusive UTC dates ' +
    `(start..end, at most ${COST_BREAKDOWN_MAX_DAYS} days, end not after today, start not before the first day of ` +
    `the month ${COST_EXPLORER_HISTORY_MONTHS} months before the current one: Cost Explorer keeps up to ` +
    `${COST_EXPLORER_HISTORY_MONTHS} months with multi-year data enabled, ${COST_EXPLORER_DEFAULT_HISTORY_MONTHS} ` +
    'by default; default: the ' +
    `${COST_BREAKDOWN_DEFAULT_DAYS} days ending yesterday), grouped by SERVICE (or LINKED_ACCOUNT, or the values ` +
    'of one cost-allocation tag): the total with its currency as Cost Explorer reports it, the topN groups with ' +
    'their share, totals per MONTHLY or DAILY period, and the change against the previous period of equal ' +
    'length (absolute and percent; percent null when the previous total is 0; skipped with comparison.error when ' +
    'that period would start before the history limit), and `recordTypes`: the total by Cost Explorer record type ' +
    '(gross charges, credits, refunds, tax, net; requests group by RECORD_TYPE too), so a total that credits ' +
    'bring to 0 says so. Amounts are rounded to cents; ' +
    '`estimated` is set while AWS has not finalized a period. COST: every Cost Explorer request is billed ' +
    'USD 0.01; one call makes 2 requests (1 with compareWithPrevious false), more when Cost Explorer pages its ' +
    'answer; `costExplorer.requests` reports them. Errors: opt_in_required when Cost Explorer is not enabled ' +
    'for the account, data_unavailable when it has no data yet (neither is ever reported as a cost of 0), ' +
    'throttled when rate limited. `truncated` is set when the page cap, the deadline or a throttled later page ' +
    'stopped it (with `stoppedBy` and the `nextToken` to resume from).',
  inputSchema: () =>
    z
      .strictObject({
        start: z
          .optional(calendarDateArg())
          .check(
            z.describe('First day of the period, included, YYYY-MM-DD (UTC). Give with end, or omit both.'),
          ),
        end: z
          .optional(calendarDateArg())
          .check(
            z.describe(
              'Last day of the period, included, YYYY-MM-DD (UTC), not after today. Give with start.',
            ),
          ),
        granularity: z
          ._default(z.enum(['MONTHLY', 'DAILY']), 'MONTHLY')
          .check(z.describe('Length of the periods in `byPeriod` (default MONTHLY).')),
        metric: z
          ._default(z.enum(['UnblendedCost', 'AmortizedCost']), 'UnblendedCost')
          .check(
            z.describe(
              'UnblendedCost (default): charges as billed. AmortizedCost: upfront reservation and Savings Plans fees spread over their term.',
            ),
          ),
        groupBy: z
          ._default(z.enum(['SERVICE', 'LINKED_ACCOUNT', 'TAG']), 'SERVICE')
          .check(z.describe('What the costs are grouped by (default SERVICE); TAG needs tagKey.')),
        tagKey: z
          .optional(z.string().check(z.minLength(1), z.maxLength(128)))
          .check(
            z.describe('The cost-allocation tag key whose values group the costs; only with groupBy TAG.'),
          ),
        compareWithPrevious: z
          ._default(z.boolean(), true)
          .check(
            z.describe(
              'Also read the previous period of equal length (one more billed request). Default true.',
            ),
          ),
        topN: topNArg(10),
      })
      .check(
        z.superRefine((args, ctx) => {
          if ((args.groupBy === 'TAG') !== (args.tagKey !== undefined)) {
            ctx.addIssue({
              code: 'custom',
              path: ['tagKey'],
              message: 'tagKey is required with groupBy TAG and accepted only with it',
            });
          }
        }),
      ),
  service: 'ce',
  iam: [{ actions: ['ce:GetCostAndUsage'] }],
  runtime: { memorySizeMb: 256, timeoutSeconds: 60 },
});
