/**
 * Cost Explorer once per organization run (docs/organizations.md, "Costs"): the
 * organization's costs by member account, read at the management account, whose
 * Cost Explorer sees the consolidated bill of every linked account (AWS Cost
 * Management User Guide, "Consolidated billing for AWS Organizations"). A run of
 * 1,000 accounts makes the same requests as a run of one.
 */
import { type CostExplorerClient, GetCostAndUsageCommand } from '@aws-sdk/client-cost-explorer';
import { pagesByToken, readPages } from '../../../runtime/aws/pagination';
import type { Deadline } from '../../../runtime/deadline';
import { PlatformError } from '../../../runtime/errors';
import { compareText } from '../../../runtime/text';
import {
  addDays,
  type CostExplorerUsage,
  costAndUsageTimePeriod,
  costExplorerUsage,
  type InclusivePeriod,
  parseCostAmount,
  toCents,
  utcToday,
} from './cost-explorer';

/**
 * GetCostAndUsage requests one organization run makes at most (issue 20: "at most
 * 3 Cost Explorer requests per organization run, whatever the number of
 * accounts"). Each is billed USD 0.01. One MONTHLY request grouped by
 * LINKED_ACCOUNT over 30 days answers every account in one or two time periods;
 * the cap bounds a paged answer.
 */
export const MAX_ORGANIZATION_COST_REQUESTS = 3;

/** Length of the period read, in days: the 30 days ending yesterday (UTC), a month's cost per account. */
export const ORGANIZATION_COST_DAYS = 30;

/** One account's cost. */
export interface LinkedAccountCost {
  readonly accountId: string;
  /** As Cost Explorer names the account (`DimensionValueAttributes`), when it does. */
  readonly name?: string;
  /** Cost over the period, rounded to cents, in the answer's `currency`. */
  readonly amount: number;
  /** Whether AWS has not finalized some of this account's costs yet. */
  readonly estimated: boolean;
}

/** What {@link costByLinkedAccount} read. */
export interface LinkedAccountCosts {
  readonly period: InclusivePeriod;
  readonly metric: 'UnblendedCost' | 'AmortizedCost';
  /** As Cost Explorer reports it (`USD`); null when it answered no amount at all. */
  readonly currency: string | null;
  /** Every account Cost Explorer answered for, highest cost first (then by id). */
  readonly accounts: LinkedAccountCost[];
  /** Sum of `accounts`, rounded to cents. */
  readonly total: number;
  /**
   * Set when the request cap or the deadline stopped reading: accounts not in
   * `accounts` then have an unknown cost, never a cost of 0.
   */
  readonly truncated: boolean;
  readonly costExplorer: CostExplorerUsage;
}

/** Options of {@link costByLinkedAccount}. */
export interface CostByLinkedAccountOptions {
  /** @default the {@link ORGANIZATION_COST_DAYS} days ending yesterday (UTC) */
  readonly period?: InclusivePeriod;
  /** @default 'UnblendedCost' */
  readonly metric?: 'UnblendedCost' | 'AmortizedCost';
  readonly deadline?: Deadline;
  /** Clock for the default period, epoch ms. @default Date.now() */
  readonly now?: number;
}

/**
 * The organization's costs by linked account: GetCostAndUsage at the management
 * account (the client of `organizationSession`, in us-east-1), MONTHLY, grouped by
 * `LINKED_ACCOUNT`, at most {@link MAX_ORGANIZATION_COST_REQUESTS} requests; a
 * month boundary inside the period splits it in two time periods, summed per
 * account. Amounts are summed exactly (`parseCostAmount`) and rounded to cents once.
 *
 * @throws the Cost Explorer error as it came, for `normalizeError`:
 *   `opt_in_required` when Cost Explorer is not enabled, `data_unavailable` when
 *   it has no data yet, `access_denied` from a member account (Cost Explorer of a
 *   member sees only its own costs, so point `management_role_arn` at the management account).
 * @throws PlatformError (`upstream_error`) when amounts come in two currencies.
 * @throws DeadlineExceededError when the deadline passed before the first request.
 * @example
 * const costs = await costByLinkedAccount(costExplorerClient(organizationSession({ tenant, runId, target })));
 * costs.accounts[0]; // { accountId: '444455556666', name: 'prod', amount: 1234.56, estimated: true }
 */
export async function costByLinkedAccount(
  client: CostExplorerClient,
  options: CostByLinkedAccountOptions = {},
): Promise<LinkedAccountCosts> {
  const yesterday = addDays(utcToday(options.now ?? Date.now()), -1);
  const period = options.period ?? {
    start: addDays(yesterday, 1 - ORGANIZATION_COST_DAYS),
    end: yesterday,
    days: ORGANIZATION_COST_DAYS,
  };
  const metric = options.metric ?? 'UnblendedCost';
  const byAccount = new Map<string, { amount: bigint; estimated: boolean }>();
  const names = new Map<string, string>();
  let currency: string | undefined;
  let requests = 0;
  const read = await readPages(
    pagesByToken(async (token) => {
      requests++;
      return client.send(
        new GetCostAndUsageCommand({
          TimePeriod: costAndUsageTimePeriod(period),
          Granularity: 'MONTHLY',
          Metrics: [metric],
          GroupBy: [{ Type: 'DIMENSION', Key: 'LINKED_ACCOUNT' }],
          NextPageToken: token,
        }),
      );
    }),
    (page) => {
      for (const result of page.ResultsByTime ?? []) {
        for (const group of result.Groups ?? []) {
          const accountId = group.Keys?.[0];
          if (!accountId) continue;
          const value = group.Metrics?.[metric];
          const unit = value?.Unit;
          if (currency !== undefined && unit !== undefined && unit !== currency) {
            throw new PlatformError(
              'upstream_error',
              `Cost Explorer answered amounts in ${currency} and in ${unit}; amounts of different currencies are not added up`,
              { service: 'ce' },
            );
          }
          currency ??= unit;
          const slot = byAccount.get(accountId) ?? { amount: 0n, estimated: false };
          slot.amount += parseCostAmount(value?.Amount);
          slot.estimated ||= result.Estimated === true;
          byAccount.set(accountId, slot);
        }
      }
      for (const attribute of page.DimensionValueAttributes ?? []) {
        const name = attribute.Attributes?.description;
        if (attribute.Value && name) names.set(attribute.Value, name);
      }
    },
    { maxPages: MAX_ORGANIZATION_COST_REQUESTS, deadline: options.deadline },
  );
  if (read.pages === 0) options.deadline?.check('reading the organization’s costs from Cost Explorer');
  let total = 0n;
  const accounts = [...byAccount].map(([accountId, { amount, estimated }]) => {
    total += amount;
    const name = names.get(accountId);
    return { accountId, ...(name ? { name } : {}), amount: toCents(amount), estimated, exact: amount };
  });
  accounts.sort((a, b) =>
    a.exact === b.exact ? compareText(a.accountId, b.accountId) : a.exact > b.exact ? -1 : 1,
  );
  return {
    period,
    metric,
    currency: currency ?? null,
    accounts: accounts.map(({ exact: _exact, ...account }) => account),
    total: toCents(total),
    truncated: read.stoppedBy !== undefined,
    costExplorer: costExplorerUsage(requests),
  };
}
