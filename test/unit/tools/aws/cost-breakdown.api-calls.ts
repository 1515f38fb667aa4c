/**
 * `aws_cost_breakdown`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import {
  CostExplorerClient,
  GetCostAndUsageCommand,
  type GetCostAndUsageCommandInput,
} from '@aws-sdk/client-cost-explorer';
import type { ApiCallCase } from '../../../helpers/api-call-case';

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
