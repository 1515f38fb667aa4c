import { CostExplorerClient, GetCostAndUsageCommand } from '@aws-sdk/client-cost-explorer';
import { normalizeError } from '../../../../../functions/runtime/normalize-error';
import {
  costByLinkedAccount,
  MAX_ORGANIZATION_COST_REQUESTS,
} from '../../../../../functions/tools/aws/shared/organization-costs';
import { clientStubs } from '../../../../helpers/api-call-case';
import {
  arrangeOrganizationCosts,
  organizationWorld,
  worldAccountId,
} from '../../../../helpers/organization-world';

const { stubs, stubOf } = clientStubs([CostExplorerClient]);
const client = new CostExplorerClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIAFAKETESTEXAMPLE0', secretAccessKey: 'fake/test/example' }, // fake test example
});
const NOW = Date.parse('2026-05-10T08:00:00Z');

beforeEach(() => {
  for (const stub of stubs.values()) stub.reset();
});

describe('costByLinkedAccount()', () => {
  it('reads every account’s cost in one request, grouped by LINKED_ACCOUNT over the 30 days ending yesterday', async () => {
    // Prepare: 4 members (5.125, 15.125, 25.125, 35.125) and the management account (0.1234).
    const world = organizationWorld({ accounts: 4 });
    const received = arrangeOrganizationCosts(stubOf, world);

    // Act
    const costs = await costByLinkedAccount(client, { now: NOW });

    // Assess
    expect(received).toEqual([
      {
        TimePeriod: { Start: '2026-04-10', End: '2026-05-10' },
        Granularity: 'MONTHLY',
        Metrics: ['UnblendedCost'],
        GroupBy: [{ Type: 'DIMENSION', Key: 'LINKED_ACCOUNT' }],
        NextPageToken: undefined,
      },
    ]);
    expect(costs).toEqual({
      period: { start: '2026-04-10', end: '2026-05-09', days: 30 },
      metric: 'UnblendedCost',
      currency: 'USD',
      accounts: [
        { accountId: worldAccountId(3), name: 'account-0003', amount: 35.13, estimated: true },
        { accountId: worldAccountId(2), name: 'account-0002', amount: 25.13, estimated: true },
        { accountId: worldAccountId(1), name: 'account-0001', amount: 15.13, estimated: true },
        { accountId: worldAccountId(0), name: 'account-0000', amount: 5.13, estimated: true },
        { accountId: '100000000000', name: 'management', amount: 0.12, estimated: true },
      ],
      // Summed exactly before rounding: 80.5 + 0.1234 = 80.6234.
      total: 80.62,
      truncated: false,
      costExplorer: { requests: 1, estimatedCostUsd: 0.01 },
    });
  });

  it.each([
    [50, 1],
    [1000, 1],
  ])('makes %i accounts’ costs cost %i request', async (accounts, requests) => {
    // Prepare
    arrangeOrganizationCosts(stubOf, organizationWorld({ accounts }));

    // Act
    const costs = await costByLinkedAccount(client, { now: NOW });

    // Assess
    expect(costs.accounts).toHaveLength(accounts + 1);
    expect(costs.costExplorer.requests).toBe(requests);
  });

  it(`stops at ${MAX_ORGANIZATION_COST_REQUESTS} requests when Cost Explorer pages more, and says the rest is unknown`, async () => {
    // Prepare: 1,000 accounts answered 100 groups a page: 11 pages.
    arrangeOrganizationCosts(stubOf, organizationWorld({ accounts: 1000 }), { groupsPerPage: 100 });

    // Act
    const costs = await costByLinkedAccount(client, { now: NOW });

    // Assess
    expect(stubs.get(CostExplorerClient)?.commandCalls(GetCostAndUsageCommand)).toHaveLength(3);
    expect(costs).toMatchObject({ truncated: true, costExplorer: { requests: 3, estimatedCostUsd: 0.03 } });
    expect(costs.accounts).toHaveLength(300);
  });

  it('sums the two time periods of a month boundary per account', async () => {
    // Prepare
    stubOf(CostExplorerClient)
      .on(GetCostAndUsageCommand)
      .resolves({
        ResultsByTime: [
          {
            TimePeriod: { Start: '2026-04-10', End: '2026-05-01' },
            Total: {},
            Groups: [
              { Keys: ['111122223333'], Metrics: { UnblendedCost: { Amount: '10.005', Unit: 'USD' } } },
            ],
            Estimated: false,
          },
          {
            TimePeriod: { Start: '2026-05-01', End: '2026-05-10' },
            Total: {},
            Groups: [
              { Keys: ['111122223333'], Metrics: { UnblendedCost: { Amount: '0.0001', Unit: 'USD' } } },
            ],
            Estimated: true,
          },
        ],
        DimensionValueAttributes: [],
      });

    // Act
    const costs = await costByLinkedAccount(client, { now: NOW });

    // Assess: 10.0051 → 10.01, estimated because May is not final.
    expect(costs.accounts).toEqual([{ accountId: '111122223333', amount: 10.01, estimated: true }]);
  });

  it('refuses to add amounts of two currencies', async () => {
    // Prepare
    stubOf(CostExplorerClient)
      .on(GetCostAndUsageCommand)
      .resolves({
        ResultsByTime: [
          {
            Groups: [
              { Keys: ['111122223333'], Metrics: { UnblendedCost: { Amount: '1', Unit: 'USD' } } },
              { Keys: ['444455556666'], Metrics: { UnblendedCost: { Amount: '1', Unit: 'EUR' } } },
            ],
          },
        ],
      });

    // Act
    const attempt = costByLinkedAccount(client, { now: NOW });

    // Assess
    await expect(attempt).rejects.toMatchObject({
      code: 'upstream_error',
      message:
        'Cost Explorer answered amounts in USD and in EUR; amounts of different currencies are not added up',
    });
  });

  it('lets "Cost Explorer not enabled" rise as opt_in_required', async () => {
    // Prepare
    const denied = Object.assign(new Error('User not enabled for cost explorer access'), {
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    stubOf(CostExplorerClient).on(GetCostAndUsageCommand).rejects(denied);

    // Act
    const error = await costByLinkedAccount(client, { now: NOW }).catch((err: unknown) => err);

    // Assess
    expect(normalizeError('org', error, 'ce')).toMatchObject({ code: 'opt_in_required', service: 'ce' });
  });
});
