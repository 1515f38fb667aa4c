import * as z from 'zod/mini';
import { regionsArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** The resource types whose recommendations the tool reads. */
export const COMPUTE_OPTIMIZER_RESOURCE_TYPES = ['ec2', 'ebs', 'lambda'] as const;

/** `aws_compute_optimizer_recs`: Compute Optimizer's EC2, EBS and Lambda recommendations, with savings. */
export const computeOptimizerRecsSpec = defineAwsReadOnlySpec({
  name: 'aws_compute_optimizer_recs',
  description:
    'Right-sizing recommendations of AWS Compute Optimizer in the given regions (or "all" enabled regions) for ' +
    'EC2 instances, EBS volumes and Lambda functions (resourceTypes, default all three). Each resource that is ' +
    'not optimized is a finding with a stable id: its Compute Optimizer finding (Overprovisioned, ' +
    'Underprovisioned, NotOptimized, read in any spelling the service answers, e.g. OVER_PROVISIONED; a value ' +
    'this tool does not know is an info finding and counted in unrecognizedValues) and reasons, current and ' +
    'top-ranked recommended configuration (instance ' +
    "type, volume type and size, memory), the recommendation's performance risk, and its estimated monthly " +
    'savings with currency (findings in USD carry monthlyCost). Severity: by savings (high >= 500, ' +
    'medium >= 50, low > 0 USD/month, else info), and at least medium for a performance risk (Underprovisioned, ' +
    'an *Underprovisioned reason, or a current performance risk of Medium or High). Returns counts by ' +
    'finding, total savings by currency, and the topN findings. Read-only, no cost; one page per 1,000 ' +
    'recommendations per type and region. An account not enrolled in Compute Optimizer fails with ' +
    'opt_in_required; enrolled with nothing to recommend returns empty lists. Other per-region or per-type ' +
    'failures (access_denied, throttled) are reported in `regions[]` without failing the others; `truncated` is ' +
    'set when the page cap or deadline stopped it.',
  inputSchema: () =>
    z.strictObject({
      regions: regionsArg(),
      resourceTypes: z
        ._default(z.array(z.enum(COMPUTE_OPTIMIZER_RESOURCE_TYPES)).check(z.minLength(1)), [
          ...COMPUTE_OPTIMIZER_RESOURCE_TYPES,
        ])
        .check(z.describe('Which recommendations to read: ec2, ebs, lambda (default all three).')),
      topN: topNArg(20),
    }),
  service: 'compute-optimizer',
  iam: [
    {
      actions: [
        'compute-optimizer:GetEC2InstanceRecommendations',
        'compute-optimizer:GetEBSVolumeRecommendations',
        'compute-optimizer:GetLambdaFunctionRecommendations',
        'ec2:DescribeRegions',
        // The caller must also hold these to see each type's recommendations (Compute
        // Optimizer User Guide, "Controlling access with AWS Identity and Access Management").
        'ec2:DescribeInstances',
        'ec2:DescribeVolumes',
        'lambda:ListFunctions',
        'lambda:ListProvisionedConcurrencyConfigs',
      ],
    },
  ],
  runtime: { memorySizeMb: 512, timeoutSeconds: 120 },
});
