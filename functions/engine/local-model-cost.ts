import { redactString } from '../runtime/redact';
import type { RunSummary } from './summary';

/** The engine's cost part for one agent level's tokens: `model tokens (<level>: <model>)`. */
const MODEL_PART = /^model tokens \(/;

/**
 * The summary of a run whose model answered from `endpoint` (a scripted model, a
 * local Converse-compatible server), with its tokens priced at 0 USD and a note
 * saying so: the engine prices tokens by model id, as Bedrock would bill them,
 * but nothing is billed for a model that is not Bedrock. Everything else (state
 * transitions, Lambda, Cost Explorer) is still what a deployed run would cost.
 * The engine applies it once, in its `summary` action, when it was built with
 * `localModelEndpoint` (engine-context.ts): `summary.json`, the execution's
 * output and what the CLI prints are the same summary.
 *
 * @example withLocalModelFree(output.summary, 'http://127.0.0.1:8080')
 */
export function withLocalModelFree(summary: RunSummary, endpoint: string): RunSummary {
  const modelParts = summary.cost.parts.filter((part) => MODEL_PART.test(part.part));
  if (modelParts.length === 0 && summary.counts.modelInputTokens + summary.counts.modelOutputTokens === 0) {
    return summary;
  }
  const where = redactString(endpoint);
  return {
    ...summary,
    cost: {
      ...summary.cost,
      totalUsd: summary.cost.excludingModelUsd,
      parts: summary.cost.parts.map((part) =>
        MODEL_PART.test(part.part)
          ? { ...part, usd: 0, source: `local model at ${where}: not billed` }
          : part,
      ),
      notes: [
        ...summary.cost.notes.filter((note) => !note.startsWith('No published price is known')),
        `The model answered from ${where}, not Bedrock: its tokens are priced at $0 (a deployed run would pay Bedrock's price per token).`,
      ],
    },
  };
}
