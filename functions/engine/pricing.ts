/**
 * Published prices the run summary estimates a run's cost with (us-east-1,
 * on-demand, USD). Each states its source page and when it was read; a price
 * changes on AWS's pages, not here, so the summary shows the source with the
 * figure.
 */
export { COST_EXPLORER_REQUEST_USD } from '../tools/aws/shared/cost-explorer';

/** A price and where it comes from. */
export interface PriceSource {
  readonly source: string;
}

/** Step Functions Standard: USD 0.025 per 1,000 state transitions ("AWS Step Functions pricing", read 2026-03). */
export const STATE_TRANSITION_USD = 0.000025;
export const STATE_TRANSITION_SOURCE =
  'AWS Step Functions pricing, Standard workflows, us-east-1 (read 2026-03)';

/** Lambda on Arm: USD 0.0000133334 per GB-second ("AWS Lambda pricing", first 7.5 billion GB-s a month, read 2026-03). */
export const LAMBDA_GB_SECOND_USD = 0.0000133334;
/** Lambda requests: USD 0.20 per million. */
export const LAMBDA_REQUEST_USD = 0.0000002;
export const LAMBDA_SOURCE = 'AWS Lambda pricing, Arm, us-east-1 (read 2026-03)';

export const COST_EXPLORER_SOURCE =
  'AWS Cost Management pricing, Cost Explorer API, USD 0.01 per request (read 2026-11)';

/** A model's on-demand token prices, USD per 1,000 tokens. */
export interface ModelPrice extends PriceSource {
  readonly inputPer1k: number;
  readonly outputPer1k: number;
}

const BEDROCK = 'Amazon Bedrock pricing, on-demand, us-east-1';

/**
 * Known models by the base id inside a model id, inference profile id or ARN
 * (`us.anthropic.claude-3-5-haiku-20241022-v1:0` → `anthropic.claude-3-5-haiku`).
 * Cross-region inference profiles cost what the model costs in the source region.
 */
const MODEL_PRICES: readonly (ModelPrice & { readonly match: RegExp })[] = [
  {
    match: /anthropic\.claude-3-5-haiku/,
    inputPer1k: 0.0008,
    outputPer1k: 0.004,
    source: `${BEDROCK}, Claude 3.5 Haiku (read 2026-03)`,
  },
  {
    match: /anthropic\.claude-haiku-4-5/,
    inputPer1k: 0.001,
    outputPer1k: 0.005,
    source: `${BEDROCK}, Claude Haiku 4.5 (read 2026-03)`,
  },
  {
    match: /anthropic\.claude-3-haiku/,
    inputPer1k: 0.00025,
    outputPer1k: 0.00125,
    source: `${BEDROCK}, Claude 3 Haiku (read 2026-03)`,
  },
  {
    match: /anthropic\.claude-(3-7-sonnet|sonnet-4)/,
    inputPer1k: 0.003,
    outputPer1k: 0.015,
    source: `${BEDROCK}, Claude Sonnet 3.7/4 (read 2026-03)`,
  },
  {
    match: /amazon\.nova-micro/,
    inputPer1k: 0.000035,
    outputPer1k: 0.00014,
    source: `${BEDROCK}, Amazon Nova Micro (read 2024-12)`,
  },
  {
    match: /amazon\.nova-lite/,
    inputPer1k: 0.00006,
    outputPer1k: 0.00024,
    source: `${BEDROCK}, Amazon Nova Lite (read 2024-12)`,
  },
  {
    match: /amazon\.nova-pro/,
    inputPer1k: 0.0008,
    outputPer1k: 0.0032,
    source: `${BEDROCK}, Amazon Nova Pro (read 2024-12)`,
  },
];

/** The published price of a model, or undefined when the table does not know it (the summary then says so). */
export function modelPrice(modelId: string): ModelPrice | undefined {
  const known = MODEL_PRICES.find((price) => price.match.test(modelId));
  return known && { inputPer1k: known.inputPer1k, outputPer1k: known.outputPer1k, source: known.source };
}
