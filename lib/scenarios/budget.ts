/**
 * The state-size budget of scenario runs, checked at synth: every state of a
 * run must stay under {@link STATE_BUDGET_BYTES} whatever the account size. The
 * state holds the input, one compact record per finished level, and at most one
 * batch of ToolResults at a time (a plan level's Map output, or one agent turn's
 * results), each bounded by the dispatcher's inline budget, which this module
 * computes. Everything larger lives in the run's workspace (claim-check).
 */
import type { ScenarioDefinition } from '../../functions/engine/definition';
import { MAX_INPUT_BYTES } from '../../functions/engine/inputs';
import {
  AGENT_RECORD_MAX_BYTES,
  BYTES_PER_OUTPUT_TOKEN,
  CALL_RECORD_MAX_BYTES,
  CONVERSATION_INLINE_MAX_BYTES,
  MAX_AGENT_CALL_RECORDS,
  MAX_TOOL_CALLS_PER_TURN,
  MIN_INLINE_RESULT_BYTES,
  PLAN_RECORD_OVERHEAD_BYTES,
  RESULTS_STATE_BUDGET_BYTES,
  STATE_BUDGET_BYTES,
} from '../../functions/engine/limits';

export { STATE_BUDGET_BYTES };

/** The most ToolResults one state of the scenario holds at once. */
export function resultsHeldAtOnce(scenario: Pick<ScenarioDefinition, 'levels'>): number {
  return Math.max(
    ...scenario.levels.map((level) => (level.kind === 'plan' ? level.calls.length : MAX_TOOL_CALLS_PER_TURN)),
  );
}

/**
 * The dispatcher's inline result budget for these scenarios, in bytes: the
 * platform's result bound, lowered so that the most results any scenario holds
 * at once fit {@link RESULTS_STATE_BUDGET_BYTES} together. A result over it is
 * shrunk (and, with the claim-check, stored whole in the run's workspace).
 */
export function inlineResultBudget(
  scenarios: readonly Pick<ScenarioDefinition, 'levels'>[],
  resultMaxBytes: number,
): number {
  const held = Math.max(1, ...scenarios.map(resultsHeldAtOnce));
  return Math.max(
    MIN_INLINE_RESULT_BYTES,
    Math.min(resultMaxBytes, Math.floor(RESULTS_STATE_BUDGET_BYTES / held / 1024) * 1024),
  );
}

/** A scenario's worst-case state, in bytes, and its largest parts. */
export interface StateBudget {
  readonly bytes: number;
  readonly parts: readonly { readonly part: string; readonly bytes: number }[];
}

/**
 * The largest state a run of `scenario` can have: the input, every level's
 * record, plus the largest transient part: a plan level's call args (static
 * JSON, each reference counted as a whole input) or its results (never both:
 * the Map's results replace the args), or an agent turn's results, tool-call
 * args, inline conversation and call records.
 *
 * @param inlineBytes - the dispatcher's inline result budget ({@link inlineResultBudget}).
 */
export function worstCaseState(scenario: ScenarioDefinition, inlineBytes: number): StateBudget {
  const records = scenario.levels.map((level) => ({
    part: `${level.name} record`,
    bytes:
      level.kind === 'plan'
        ? PLAN_RECORD_OVERHEAD_BYTES + level.calls.length * CALL_RECORD_MAX_BYTES
        : AGENT_RECORD_MAX_BYTES,
  }));
  const transients = scenario.levels.map((level) => ({
    part: `${level.name} ${level.kind === 'plan' ? 'results or args' : 'turn'}`,
    bytes:
      level.kind === 'plan'
        ? Math.max(
            level.calls.length * inlineBytes,
            JSON.stringify(level.calls).length +
              (JSON.stringify(level.calls).match(/\{\{/g)?.length ?? 0) * MAX_INPUT_BYTES,
          )
        : MAX_TOOL_CALLS_PER_TURN * inlineBytes +
          level.max_tokens * BYTES_PER_OUTPUT_TOKEN +
          CONVERSATION_INLINE_MAX_BYTES +
          MAX_AGENT_CALL_RECORDS * CALL_RECORD_MAX_BYTES,
  }));
  const largest = transients.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const parts = [{ part: 'input', bytes: MAX_INPUT_BYTES }, ...records, largest];
  return { bytes: parts.reduce((sum, part) => sum + part.bytes, 0), parts };
}
