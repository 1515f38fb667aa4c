/**
 * `aws_compute_optimizer_recs`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
import {
  ComputeOptimizerClient,
  GetEBSVolumeRecommendationsCommand,
  GetEC2InstanceRecommendationsCommand,
  GetLambdaFunctionRecommendationsCommand,
} from '@aws-sdk/client-compute-optimizer';
import { EC2Client } from '@aws-sdk/client-ec2';
import { type ApiCallCase, arrangeRegions } from '../../../helpers/api-call-case';

/** The cases of `aws_compute_optimizer_recs`. */
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_compute_optimizer_recs',
    clients: [EC2Client, ComputeOptimizerClient],
    account: 'enrolled, nothing to recommend, 17 regions',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf);
      stubOf(ComputeOptimizerClient)
        .on(GetEC2InstanceRecommendationsCommand)
        .resolves({ instanceRecommendations: [], errors: [] })
        .on(GetEBSVolumeRecommendationsCommand)
        .resolves({ volumeRecommendations: [], errors: [] })
        .on(GetLambdaFunctionRecommendationsCommand)
        .resolves({ lambdaFunctionRecommendations: [] });
    },
  },
];
