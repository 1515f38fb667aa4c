/**
 * `aws_cost_anomalies`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import { CostExplorerClient, GetAnomaliesCommand } from '@aws-sdk/client-cost-explorer';
import { ACCOUNT_ID } from '../../../../bench/aws-fixtures';
import type { ApiCallCase } from '../../../helpers/api-call-case';

/** The cases of `aws_cost_anomalies`. */
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_cost_anomalies',
    clients: [CostExplorerClient],
    account: 'one anomaly with one root cause',
    args: {},
    arrange: (stubOf) => {
      stubOf(CostExplorerClient)
        .on(GetAnomaliesCommand)
        .resolves({
          Anomalies: [
            {
              AnomalyId: '00000000-0000-0000-0000-000000000001',
              AnomalyStartDate: '2024-06-10',
              AnomalyEndDate: '2024-06-12',
              DimensionValue: 'Amazon Elastic Compute Cloud - Compute',
              RootCauses: [
                {
                  Service: 'Amazon Elastic Compute Cloud - Compute',
                  Region: 'us-east-1',
                  LinkedAccount: ACCOUNT_ID,
                  LinkedAccountName: 'acme-prod',
                  UsageType: 'BoxUsage:m5.xlarge',
                },
              ],
              AnomalyScore: { MaxScore: 0.91, CurrentScore: 0.4 },
              Impact: {
                MaxImpact: 310.5,
                TotalImpact: 512.25,
                TotalActualSpend: 1012.25,
                TotalExpectedSpend: 500,
                TotalImpactPercentage: 102.45,
              },
              MonitorArn: `arn:aws:ce::${ACCOUNT_ID}:anomalymonitor/11111111-2222-3333-4444-555555555555`,
              Feedback: 'YES',
            },
          ],
        });
    },
  },
];
