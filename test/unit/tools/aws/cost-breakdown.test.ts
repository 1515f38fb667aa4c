import {
  CostExplorerClient,
  CostExplorerServiceException,
  DataUnavailableException,
  GetCostAndUsageCommand,
  type GetCostAndUsageCommandInput,
  type GetCostAndUsageCommandOutput,
  type Group,
  LimitExceededException,
} from '@aws-sdk/client-cost-explorer';
import { mockClient } from 'aws-sdk-client-mock';
import type { ToolResult } from '../../../../functions/runtime/result';
import { type CostBreakdown, costBreakdownTool } from '../../../../functions/tools/aws/cost-breakdown';
import type { ApiCallCase } from '../../../helpers/api-call-case';
import { responseMetadata } from '../../../helpers/aws-errors';
import {
  awsToolServices,
  expectFailure,
  expectSuccess,
  fakeToday,
  runAwsTool,
} from '../../../helpers/aws-tool';

/**
 * `aws_cost_breakdown`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** A Cost Explorer result per period asked (Cost Explorer API reference, "GetCostAndUsage"), grouped by service. */
function costAndUsage(input: GetCostAndUsageCommandInput) {
  const cost = (amount: string) => ({ UnblendedCost: { Amount: amount, Unit: 'USD' } });
  return {
    ResultsByTime: [
      {
        TimePeriod: input.TimePeriod,
        Total: {},
        Groups: [
          { Keys: ['Amazon Elastic Compute Cloud - Compute'], Metrics: cost('1834.20') },
          { Keys: ['Amazon Relational Database Service'], Metrics: cost('612.75') },
          { Keys: ['Amazon Simple Storage Service'], Metrics: cost('148.02') },
          { Keys: ['EC2 - Other'], Metrics: cost('96.40') },
        ],
        Estimated: false,
      },
    ],
    GroupDefinitions: [{ Type: 'DIMENSION' as const, Key: 'SERVICE' }],
    DimensionValueAttributes: [],
  };
}

/** The cases of `aws_cost_breakdown`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_cost_breakdown',
    clients: [CostExplorerClient],
    account: '4 services billed, previous period compared',
    args: {},
    arrange: (stubOf) => {
      stubOf(CostExplorerClient).on(GetCostAndUsageCommand).callsFake(costAndUsage);
    },
  },
];

const ceMock = mockClient(CostExplorerClient);

/** "Today" for every test: the period checks compare with it (UTC). */
const NOW = new Date('2026-04-10T15:30:00Z');

/** The tenant's region is eu-west-1: Cost Explorer must still be called in us-east-1. */
const AWS_SECRET = { region: 'eu-west-1' };

function breakdown(args: unknown): Promise<ToolResult> {
  return runAwsTool(costBreakdownTool, args, { services: awsToolServices(AWS_SECRET) });
}

const succeeded = (result: ToolResult) => expectSuccess<CostBreakdown>(result);

/** A group as GetCostAndUsage returns it (Cost Explorer API reference, "Group", "MetricValue"). */
function group(key: string, amount: string, metric = 'UnblendedCost', unit = 'USD'): Group {
  return { Keys: [key], Metrics: { [metric]: { Amount: amount, Unit: unit } } };
}

/** One GetCostAndUsage answer grouped by one key: `Total` is empty when grouped. */
function costs(
  periods: { start: string; end: string; groups: Group[]; estimated?: boolean }[],
  extra: Partial<GetCostAndUsageCommandOutput> = {},
): GetCostAndUsageCommandOutput {
  return {
    GroupDefinitions: [{ Type: 'DIMENSION', Key: 'SERVICE' }],
    ResultsByTime: periods.map((p) => ({
      TimePeriod: { Start: p.start, End: p.end },
      Total: {},
      Groups: p.groups,
      Estimated: p.estimated ?? false,
    })),
    DimensionValueAttributes: [],
    $metadata: responseMetadata(200),
    ...extra,
  };
}

/** The inputs of every GetCostAndUsage request sent, in order. */
function requests() {
  return ceMock.commandCalls(GetCostAndUsageCommand).map((call) => call.args[0].input);
}

function ceError(name: string, message: string): CostExplorerServiceException {
  return new CostExplorerServiceException({
    name,
    message,
    $fault: 'client',
    $metadata: responseMetadata(400),
  });
}

beforeEach(() => {
  ceMock.reset();
  fakeToday(NOW);
});

afterEach(() => {
  jest.useRealTimers();
});

describe('aws_cost_breakdown', () => {
  it('reports the total, the top groups and the change against the previous period, to the cent', async () => {
    // Prepare: March 2026 (31 days), then the 31 days before it (2026-01-29..2026-02-28).
    ceMock.on(GetCostAndUsageCommand, { TimePeriod: { Start: '2026-03-01', End: '2026-04-01' } }).resolves(
      costs([
        {
          start: '2026-03-01',
          end: '2026-04-01',
          groups: [
            group('Amazon Elastic Compute Cloud - Compute', '612.3456789012'),
            group('Amazon Simple Storage Service', '100.004'),
            group('AWS Lambda', '0.0049999999'),
            group('AmazonCloudWatch', '37.5'),
          ],
        },
      ]),
    );
    ceMock.on(GetCostAndUsageCommand, { TimePeriod: { Start: '2026-01-29', End: '2026-03-01' } }).resolves(
      costs([
        {
          start: '2026-01-29',
          end: '2026-02-01',
          groups: [
            group('Amazon Elastic Compute Cloud - Compute', '100.10'),
            group('Amazon Simple Storage Service', '50'),
          ],
        },
        {
          start: '2026-02-01',
          end: '2026-03-01',
          groups: [
            group('Amazon Elastic Compute Cloud - Compute', '400.00'),
            group('Amazon Simple Storage Service', '50.00'),
            group('AmazonCloudWatch', '30'),
          ],
        },
      ]),
    );

    // Act
    const result = succeeded(await breakdown({ start: '2026-03-01', end: '2026-03-31', topN: 2 }));

    // Assess: requests (inclusive end + 1 day), region, values
    expect(requests()).toEqual([
      {
        TimePeriod: { Start: '2026-03-01', End: '2026-04-01' },
        Granularity: 'MONTHLY',
        Metrics: ['UnblendedCost'],
        GroupBy: [
          { Type: 'DIMENSION', Key: 'SERVICE' },
          { Type: 'DIMENSION', Key: 'RECORD_TYPE' },
        ],
      },
      {
        TimePeriod: { Start: '2026-01-29', End: '2026-03-01' },
        Granularity: 'MONTHLY',
        Metrics: ['UnblendedCost'],
        GroupBy: [
          { Type: 'DIMENSION', Key: 'SERVICE' },
          { Type: 'DIMENSION', Key: 'RECORD_TYPE' },
        ],
      },
    ]);
    const client = ceMock.commandCalls(GetCostAndUsageCommand)[0]?.thisValue as CostExplorerClient;
    await expect(client.config.region()).resolves.toBe('us-east-1');
    expect(result.truncated).toBe(false);
    expect(result.value).toEqual({
      period: { start: '2026-03-01', end: '2026-03-31', days: 31 },
      granularity: 'MONTHLY',
      metric: 'UnblendedCost',
      groupBy: 'SERVICE',
      currency: 'USD',
      total: 749.85,
      estimated: false,
      groupCount: 4,
      topGroups: [
        {
          key: 'Amazon Elastic Compute Cloud - Compute',
          amount: 612.35,
          sharePercent: 81.66,
          previousAmount: 500.1,
          change: { absolute: 112.25, percent: 22.44 },
        },
        {
          key: 'Amazon Simple Storage Service',
          amount: 100,
          sharePercent: 13.34,
          previousAmount: 100,
          change: { absolute: 0, percent: 0 },
        },
      ],
      otherGroupsAmount: 37.5,
      byPeriod: [{ start: '2026-03-01', end: '2026-03-31', amount: 749.85, estimated: false }],
      comparison: {
        period: { start: '2026-01-29', end: '2026-02-28', days: 31 },
        total: 630.1,
        change: { absolute: 119.75, percent: 19.01 },
      },
      costExplorer: { requests: 2, estimatedCostUsd: 0.02 },
    });
    expect(result.summary).toBe(
      'UnblendedCost 2026-03-01..2026-03-31: 749.85 USD, +119.75 (+19.01%) vs the previous 31 days; ' +
        'top SERVICE: Amazon Elastic Compute Cloud - Compute 612.35, Amazon Simple Storage Service 100.00; ' +
        '2 Cost Explorer requests (~$0.02)',
    );
  });

  it('adds the amounts exactly: 0.1 + 0.2 is 0.30, and half a cent rounds away from zero', async () => {
    // Prepare: binary floats would give 0.30000000000000004 and 1.0049999999999999
    ceMock.on(GetCostAndUsageCommand).resolves(
      costs([
        { start: '2026-04-01', end: '2026-04-02', groups: [group('A', '0.1'), group('B', '0.2')] },
        { start: '2026-04-02', end: '2026-04-03', groups: [group('A', '1.005'), group('B', '-0.005')] },
      ]),
    );

    // Act
    const result = succeeded(
      await breakdown({
        start: '2026-04-01',
        end: '2026-04-02',
        granularity: 'DAILY',
        compareWithPrevious: false,
      }),
    );

    // Assess
    expect(result.value.total).toBe(1.3);
    expect(result.value.byPeriod).toEqual([
      { start: '2026-04-01', end: '2026-04-01', amount: 0.3, estimated: false },
      { start: '2026-04-02', end: '2026-04-02', amount: 1, estimated: false },
    ]);
    expect(result.value.topGroups.map((g) => [g.key, g.amount])).toEqual([
      ['A', 1.11],
      ['B', 0.2],
    ]);
    expect(result.value.comparison).toBeNull();
    expect(result.value.costExplorer).toEqual({ requests: 1, estimatedCostUsd: 0.01 });
  });

  it('reads amounts in exponent notation and fails on an amount that is not a number, never taking it as 0', async () => {
    // Prepare
    ceMock
      .on(GetCostAndUsageCommand)
      .resolvesOnce(
        costs([
          { start: '2026-03-01', end: '2026-04-01', groups: [group('A', '1.25E+2'), group('B', '-2.5e-1')] },
        ]),
      )
      .resolvesOnce(costs([{ start: '2026-03-01', end: '2026-04-01', groups: [group('A', 'n/a')] }]));

    // Act
    const read = succeeded(
      await breakdown({ start: '2026-03-01', end: '2026-03-31', compareWithPrevious: false }),
    );
    const unreadable = expectFailure(
      await breakdown({ start: '2026-03-01', end: '2026-03-31', compareWithPrevious: false }),
    );

    // Assess
    expect(read.value.total).toBe(124.75);
    expect(unreadable.error).toMatchObject({ code: 'upstream_error', service: 'ce' });
    expect(unreadable.error.message).toContain('"n/a"');
  });

  it('follows NextPageToken, merging a period split over two pages, and counts every billed request', async () => {
    // Prepare
    ceMock
      .on(GetCostAndUsageCommand)
      .resolvesOnce(
        costs([{ start: '2026-03-01', end: '2026-04-01', groups: [group('Amazon EC2', '10.00')] }], {
          NextPageToken: 'page-2',
        }),
      )
      .resolvesOnce(
        costs([
          { start: '2026-03-01', end: '2026-04-01', groups: [group('Amazon S3', '5.25')], estimated: true },
        ]),
      );

    // Act
    const result = succeeded(
      await breakdown({ start: '2026-03-01', end: '2026-03-31', compareWithPrevious: false }),
    );

    // Assess
    expect(requests().map((input) => input.NextPageToken)).toEqual([undefined, 'page-2']);
    expect(result.value.total).toBe(15.25);
    expect(result.value.estimated).toBe(true);
    expect(result.value.byPeriod).toEqual([
      { start: '2026-03-01', end: '2026-03-31', amount: 15.25, estimated: true },
    ]);
    expect(result.value.costExplorer).toEqual({ requests: 2, estimatedCostUsd: 0.02 });
  });

  it('stops at the page cap (20 billed requests) and marks the result truncated', async () => {
    // Prepare: a Cost Explorer that always has one more page
    let page = 0;
    ceMock.on(GetCostAndUsageCommand).callsFake(async () => {
      page++;
      return costs([{ start: '2026-03-01', end: '2026-04-01', groups: [group(`Service ${page}`, '1')] }], {
        NextPageToken: `page-${page + 1}`,
      });
    });

    // Act
    const result = succeeded(
      await breakdown({ start: '2026-03-01', end: '2026-03-31', compareWithPrevious: false }),
    );

    // Assess
    expect(requests()).toHaveLength(20);
    expect(result.truncated).toBe(true);
    expect(result.value.total).toBe(20);
    expect(result.value.costExplorer).toEqual({ requests: 20, estimatedCostUsd: 0.2 });
    expect(result.summary).toMatch(/; partial$/);
  });

  it('moves the inclusive end one day on across a year boundary, and defaults to the 30 days ending yesterday', async () => {
    // Prepare
    ceMock.on(GetCostAndUsageCommand).resolves(costs([]));

    // Act
    const december = succeeded(await breakdown({ start: '2025-12-01', end: '2025-12-31' }));
    const byDefault = succeeded(await breakdown({ compareWithPrevious: false }));

    // Assess
    expect(requests().map((input) => input.TimePeriod)).toEqual([
      { Start: '2025-12-01', End: '2026-01-01' },
      { Start: '2025-10-31', End: '2025-12-01' },
      { Start: '2026-03-11', End: '2026-04-10' },
    ]);
    expect(december.value.comparison).toEqual({
      period: { start: '2025-10-31', end: '2025-11-30', days: 31 },
      total: 0,
      change: { absolute: 0, percent: null },
    });
    expect(byDefault.value.period).toEqual({ start: '2026-03-11', end: '2026-04-09', days: 30 });
  });

  describe('totals by record type (Cost Explorer RECORD_TYPE): never a bare zero when credits cancel usage', () => {
    /** A group of an answer grouped by SERVICE and RECORD_TYPE: its Keys are [service, record type]. */
    const typed = (service: string, recordType: string, amount: string): Group => ({
      Keys: [service, recordType],
      Metrics: { UnblendedCost: { Amount: amount, Unit: 'USD' } },
    });
    const BY_SERVICE_AND_TYPE = {
      GroupDefinitions: [
        { Type: 'DIMENSION' as const, Key: 'SERVICE' },
        { Type: 'DIMENSION' as const, Key: 'RECORD_TYPE' },
      ],
    };

    it('says a zero total is credits offsetting usage, with gross, credits, refunds, tax and net', async () => {
      // Prepare: a month whose usage promotional credits fully offset (a new account's first months)
      ceMock.on(GetCostAndUsageCommand).resolves(
        costs(
          [
            {
              start: '2026-03-01',
              end: '2026-04-01',
              groups: [
                typed('Amazon Elastic Compute Cloud - Compute', 'Usage', '97.3000000001'),
                typed('Amazon Elastic Compute Cloud - Compute', 'Credit', '-97.3000000001'),
                typed('Amazon Simple Storage Service', 'Usage', '22.70'),
                typed('Amazon Simple Storage Service', 'Credit', '-22.70'),
              ],
            },
          ],
          BY_SERVICE_AND_TYPE,
        ),
      );

      // Act
      const result = succeeded(
        await breakdown({ start: '2026-03-01', end: '2026-03-31', compareWithPrevious: false }),
      );

      // Assess
      expect(result.value.total).toBe(0);
      expect(result.value.recordTypes).toEqual({
        gross: 120,
        credits: -120,
        refunds: 0,
        tax: 0,
        net: 0,
        byRecordType: { Usage: 120, Credit: -120 },
      });
      // The group is the service alone, net of its credits.
      expect(result.value.topGroups.map((g) => [g.key, g.amount])).toEqual([
        ['Amazon Elastic Compute Cloud - Compute', 0],
        ['Amazon Simple Storage Service', 0],
      ]);
      expect(result.summary).toMatch(
        /^UnblendedCost 2026-03-01\.\.2026-03-31: 0\.00 USD net: credits and refunds offset 120\.00 USD of charges \(gross 120\.00, credits -120\.00, refunds 0\.00, tax 0\.00\);/,
      );
    });

    it('shows refunds and tax apart from a positive net', async () => {
      // Prepare
      ceMock.on(GetCostAndUsageCommand).resolves(
        costs(
          [
            {
              start: '2026-03-01',
              end: '2026-04-01',
              groups: [
                typed('Amazon Relational Database Service', 'Usage', '200.00'),
                typed('Amazon Relational Database Service', 'Refund', '-50.00'),
                typed('Amazon Relational Database Service', 'RIFee', '30.00'),
                typed('Tax', 'Tax', '36.00'),
              ],
            },
          ],
          BY_SERVICE_AND_TYPE,
        ),
      );

      // Act
      const result = succeeded(
        await breakdown({ start: '2026-03-01', end: '2026-03-31', compareWithPrevious: false }),
      );

      // Assess: gross counts Usage and RIFee; Refund and Tax apart; net = the total
      expect(result.value.total).toBe(216);
      expect(result.value.recordTypes).toEqual({
        gross: 230,
        credits: 0,
        refunds: -50,
        tax: 36,
        net: 216,
        byRecordType: { Usage: 200, Tax: 36, RIFee: 30, Refund: -50 },
      });
      expect(result.summary).toMatch(
        /: 216\.00 USD net \(gross 230\.00, credits 0\.00, refunds -50\.00, tax 36\.00\);/,
      );
    });

    it('keeps the plain total when only charges were answered', async () => {
      // Prepare
      ceMock.on(GetCostAndUsageCommand).resolves(
        costs(
          [
            {
              start: '2026-03-01',
              end: '2026-04-01',
              groups: [typed('AmazonCloudWatch', 'Usage', '12.5')],
            },
          ],
          BY_SERVICE_AND_TYPE,
        ),
      );

      // Act
      const result = succeeded(
        await breakdown({ start: '2026-03-01', end: '2026-03-31', compareWithPrevious: false }),
      );

      // Assess
      expect(result.value.recordTypes).toMatchObject({ gross: 12.5, net: 12.5, credits: 0 });
      expect(result.summary).toMatch(/: 12\.50 USD; top SERVICE: AmazonCloudWatch 12\.50;/);
    });
  });

  it('reports an account with no costs as 0 with no currency rather than guessing USD', async () => {
    // Prepare
    ceMock
      .on(GetCostAndUsageCommand)
      .resolves(costs([{ start: '2026-03-01', end: '2026-04-01', groups: [] }]));

    // Act
    const result = succeeded(await breakdown({ start: '2026-03-01', end: '2026-03-31' }));

    // Assess
    expect(result.value.total).toBe(0);
    expect(result.value.currency).toBeNull();
    expect(result.value.topGroups).toEqual([]);
    expect(result.value.comparison).toEqual({
      period: { start: '2026-01-29', end: '2026-02-28', days: 31 },
      total: 0,
      change: { absolute: 0, percent: null },
    });
  });

  it('groups by linked account with account names, by amortized cost', async () => {
    // Prepare
    ceMock.on(GetCostAndUsageCommand).resolves(
      costs(
        [
          {
            start: '2026-03-01',
            end: '2026-04-01',
            groups: [
              group('111111111111', '80.5', 'AmortizedCost'),
              group('222222222222', '19.5', 'AmortizedCost'),
            ],
          },
        ],
        {
          GroupDefinitions: [{ Type: 'DIMENSION', Key: 'LINKED_ACCOUNT' }],
          DimensionValueAttributes: [
            { Value: '111111111111', Attributes: { description: 'production' } },
            { Value: '222222222222', Attributes: { description: 'staging' } },
          ],
        },
      ),
    );

    // Act
    const result = succeeded(
      await breakdown({
        start: '2026-03-01',
        end: '2026-03-31',
        groupBy: 'LINKED_ACCOUNT',
        metric: 'AmortizedCost',
        compareWithPrevious: false,
      }),
    );

    // Assess
    expect(requests()[0]).toMatchObject({
      Metrics: ['AmortizedCost'],
      GroupBy: [
        { Type: 'DIMENSION', Key: 'LINKED_ACCOUNT' },
        { Type: 'DIMENSION', Key: 'RECORD_TYPE' },
      ],
    });
    expect(result.value.topGroups).toEqual([
      { key: '111111111111', name: 'production', amount: 80.5, sharePercent: 80.5 },
      { key: '222222222222', name: 'staging', amount: 19.5, sharePercent: 19.5 },
    ]);
  });

  it('groups by the values of a tag, untagged costs included', async () => {
    // Prepare: CE answers tag groups as "key$value", "key$" without the tag
    ceMock.on(GetCostAndUsageCommand).resolves(
      costs([
        {
          start: '2026-03-01',
          end: '2026-04-01',
          groups: [group('team$platform', '70'), group('team$', '30')],
        },
      ]),
    );

    // Act
    const result = succeeded(
      await breakdown({
        start: '2026-03-01',
        end: '2026-03-31',
        groupBy: 'TAG',
        tagKey: 'team',
        compareWithPrevious: false,
      }),
    );

    // Assess
    expect(requests()[0]?.GroupBy).toEqual([
      { Type: 'TAG', Key: 'team' },
      { Type: 'DIMENSION', Key: 'RECORD_TYPE' },
    ]);
    expect(result.value.groupBy).toBe('TAG team');
    expect(result.value.topGroups.map((g) => [g.key, g.amount])).toEqual([
      ['platform', 70],
      ['(no team tag)', 30],
    ]);
  });

  it.each([
    [{ start: '2026-03-05', end: '2026-03-01' }, 'end: end (2026-03-01) is before start (2026-03-05)'],
    [{ start: '2026-04-01', end: '2026-04-11' }, 'end: end (2026-04-11) is after today (2026-04-10, UTC)'],
    [
      { start: '2025-04-08', end: '2026-04-09' },
      'start: the period spans 367 days; at most 366 are accepted',
    ],
    [{ start: '2026-02-01', end: '2026-02-30' }, 'end: a calendar date YYYY-MM-DD'],
    [{ start: '2026-03-01' }, 'end: give both start and end'],
    [
      { start: '0000-01-01', end: '0000-01-31' },
      'start: start (0000-01-01) is more than 1164 days before today (2026-04-10): Cost Explorer keeps costs ' +
        'for up to 38 months with multi-year data enabled (13 months by default), so from 2023-02-01',
    ],
    [{ start: '2023-01-31', end: '2023-02-28' }, 'so from 2023-02-01'],
    [{ groupBy: 'TAG' }, 'tagKey: tagKey is required with groupBy TAG'],
    [{ tagKey: 'team' }, 'tagKey: tagKey is required with groupBy TAG and accepted only with it'],
  ])('rejects %j before any billed request', async (args, message) => {
    // Prepare
    ceMock.on(GetCostAndUsageCommand).resolves(costs([]));

    // Act
    const result = await breakdown(args);

    // Assess
    const failure = expectFailure(result);
    expect(failure.error.code).toBe('invalid_args');
    expect(failure.error.message).toContain(message);
    expect(ceMock.calls()).toHaveLength(0);
  });

  it('accepts a period of 366 days, the longest', async () => {
    // Prepare
    ceMock.on(GetCostAndUsageCommand).resolves(costs([]));

    // Act
    const result = succeeded(
      await breakdown({ start: '2025-04-09', end: '2026-04-09', compareWithPrevious: false }),
    );

    // Assess
    expect(result.value.period).toEqual({ start: '2025-04-09', end: '2026-04-09', days: 366 });
    expect(requests()[0]?.TimePeriod).toEqual({ Start: '2025-04-09', End: '2026-04-10' });
  });

  it.each([
    [
      'DataUnavailableException',
      new DataUnavailableException({
        message: 'Data is not available. Please try to adjust the time period.',
        $metadata: responseMetadata(400),
      }),
      'data_unavailable',
      false,
      'Cost Explorer has no data for this request yet',
    ],
    [
      'AccessDeniedException (not enabled)',
      ceError('AccessDeniedException', 'User not enabled for cost explorer access'),
      'opt_in_required',
      false,
      'Cost Explorer is not enabled for this account',
    ],
    [
      'BillingViewNotEnabled',
      ceError('BillingViewNotEnabled', 'The billing view is not enabled for this account'),
      'opt_in_required',
      false,
      'BillingViewNotEnabled',
    ],
    [
      'AccessDeniedException (IAM)',
      ceError(
        'AccessDeniedException',
        'User: arn:aws:sts::123456789012:assumed-role/audit/etp is not authorized to perform: ce:GetCostAndUsage',
      ),
      'access_denied',
      false,
      'is not authorized to perform: ce:GetCostAndUsage',
    ],
    [
      'LimitExceededException',
      new LimitExceededException({ message: 'Rate exceeded', $metadata: responseMetadata(400) }),
      'throttled',
      true,
      'LimitExceededException: Rate exceeded',
    ],
  ])(
    'fails on %s with a distinct code and never a cost of 0',
    async (_name, error, code, retryable, message) => {
      // Prepare
      ceMock.on(GetCostAndUsageCommand).rejects(error);

      // Act
      const failure = expectFailure(await breakdown({ start: '2026-03-01', end: '2026-03-31' }));

      // Assess
      expect(failure.error).toMatchObject({ code, retryable, service: 'ce' });
      expect(failure.error.message).toContain(message);
      expect(failure.error.details).toMatchObject({ awsError: error.name });
      expect(failure).not.toHaveProperty('value');
      expect(requests()).toHaveLength(1); // the previous period is not asked for after a failure
    },
  );

  it('keeps the period read when only the previous period is unavailable', async () => {
    // Prepare
    ceMock
      .on(GetCostAndUsageCommand, { TimePeriod: { Start: '2026-03-01', End: '2026-04-01' } })
      .resolves(costs([{ start: '2026-03-01', end: '2026-04-01', groups: [group('Amazon EC2', '42.42')] }]))
      .on(GetCostAndUsageCommand, { TimePeriod: { Start: '2026-01-29', End: '2026-03-01' } })
      .rejects(
        new DataUnavailableException({ message: 'Data is not available.', $metadata: responseMetadata(400) }),
      );

    // Act
    const result = succeeded(await breakdown({ start: '2026-03-01', end: '2026-03-31' }));

    // Assess
    expect(result.value.total).toBe(42.42);
    expect(result.value.topGroups).toEqual([{ key: 'Amazon EC2', amount: 42.42, sharePercent: 100 }]);
    expect(result.value.comparison).toMatchObject({
      period: { start: '2026-01-29', end: '2026-02-28', days: 31 },
      error: { code: 'data_unavailable', retryable: false },
    });
    expect(result.summary).toContain('previous period unavailable (data_unavailable)');
    expect(result.value.costExplorer.requests).toBe(1);
  });

  it('skips the previous period without a request when it would start before the 38-month history', async () => {
    // Prepare: the oldest day accepted on 2026-04-10 is 2023-02-01.
    ceMock
      .on(GetCostAndUsageCommand)
      .resolves(costs([{ start: '2023-02-01', end: '2023-03-01', groups: [group('Amazon EC2', '10.00')] }]));

    // Act
    const result = succeeded(await breakdown({ start: '2023-02-01', end: '2023-02-28' }));

    // Assess
    expect(result.value.total).toBe(10);
    expect(requests().map((input) => input.TimePeriod)).toEqual([{ Start: '2023-02-01', End: '2023-03-01' }]);
    expect(result.value.comparison).toEqual({
      period: { start: '2023-01-04', end: '2023-01-31', days: 28 },
      error: {
        code: 'data_unavailable',
        message:
          'Previous period 2023-01-04..2023-01-31 not read: it starts before 2023-02-01, the oldest day accepted: Cost ' +
          'Explorer keeps costs for up to 38 months with multi-year data enabled (13 months by default)',
        retryable: false,
        service: 'ce',
      },
    });
    expect(result.summary).toContain('previous period unavailable (data_unavailable)');
    expect(result.value.costExplorer.requests).toBe(1);
  });

  it('refuses to add up amounts of two currencies', async () => {
    // Prepare
    ceMock.on(GetCostAndUsageCommand).resolves(
      costs([
        {
          start: '2026-03-01',
          end: '2026-04-01',
          groups: [group('A', '1', 'UnblendedCost', 'USD'), group('B', '1', 'UnblendedCost', 'EUR')],
        },
      ]),
    );

    // Act
    const failure = expectFailure(await breakdown({ start: '2026-03-01', end: '2026-03-31' }));

    // Assess
    expect(failure.error).toMatchObject({ code: 'upstream_error', service: 'ce' });
    expect(failure.error.message).toContain('USD and in EUR');
  });
});
