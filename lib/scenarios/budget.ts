/**
 * The state-size budget of scenario runs, checked at synth: every state of a
 * run must stay under {@link STATE_BUDGET_BYTES} whatever the account size. The
 * state holds the input, one compact record per finished level, and at most one
 * batch of ToolResults at a time (a plan level's Map output, or one agent turn's
 * results), each bounded by the dispatcher's inline budget, which this module
 * computes so that every scenario fits. Everything larger lives in the run's
 * workspace (claim-check). A per-account level (`for_each_account`) holds one
 * account's results at a time, in a child execution, and at most
 * `ORG_INLINE_ACCOUNTS_MAX` account items in the parent: its worst case is the
 * same for 10 accounts or 10,000 (docs/organizations-runs.md, "State size").
 */
import type { ScenarioDefinition } from '../../functions/engine/definition';
import { MAX_INPUT_BYTES } from '../../functions/engine/inputs';
import {
  ACCOUNT_ITEM_MAX_BYTES,
  ACCOUNT_RECORD_MAX_BYTES,
  AGENT_RECORD_MAX_BYTES,
  CALL_RECORD_MAX_BYTES,
  CONVERSATION_INLINE_MAX_BYTES,
  MAX_AGENT_CALL_RECORDS,
  MAX_TOOL_CALLS_PER_TURN,
  MIN_INLINE_RESULT_BYTES,
  ORG_INLINE_ACCOUNTS_MAX,
  ORG_PLAN_OVERHEAD_BYTES,
  ORG_RECORD_MAX_BYTES,
  PINS_MAX_BYTES,
  PLAN_RECORD_OVERHEAD_BYTES,
  STATE_BUDGET_BYTES,
  turnArgsBudgetBytes,
} from '../../functions/engine/limits';

export { STATE_BUDGET_BYTES };

/** One level's transient part of the state: how many results it holds at once, and what else. */
function transientOf(level: ScenarioDefinition['levels'][number]): {
  held: number;
  extra: number;
  args: number;
} {
  if (level.kind === 'plan') {
    const calls = JSON.stringify(level.calls);
    // Args (the Pass before the Map) and results (the Map's output) are never held together.
    const args = calls.length + (calls.match(/\{\{/g)?.length ?? 0) * MAX_INPUT_BYTES;
    const fanOut = level.for_each_account;
    if (!fanOut) return { held: level.calls.length, extra: 0, args };
    // Per account (counted as if beside every record, which a child never holds): the
    // account item, then its results; the parent holds the plan (inline items at most),
    // a child's batch its items and input, then its accounts' records. None grows with
    // the organization: the records are written to the workspace (ResultWriter).
    return {
      held: level.calls.length,
      extra: ACCOUNT_ITEM_MAX_BYTES,
      args: Math.max(
        args + ACCOUNT_ITEM_MAX_BYTES,
        ORG_INLINE_ACCOUNTS_MAX * ACCOUNT_ITEM_MAX_BYTES + ORG_PLAN_OVERHEAD_BYTES,
        fanOut.accounts_per_child * Math.max(ACCOUNT_ITEM_MAX_BYTES, ACCOUNT_RECORD_MAX_BYTES),
      ),
    };
  }
  return {
    held: MAX_TOOL_CALLS_PER_TURN,
    // The turn's tool-call args (bounded by the level's argument budget, at its output ceiling) and pins.
    extra:
      turnArgsBudgetBytes(level) +
      (level.pin ? PINS_MAX_BYTES : 0) +
      CONVERSATION_INLINE_MAX_BYTES +
      MAX_AGENT_CALL_RECORDS * CALL_RECORD_MAX_BYTES,
    args: 0,
  };
}

/** The input and every level's record: what the state holds by the end of a run. */
function recordsBytes(scenario: ScenarioDefinition): { part: string; bytes: number }[] {
  return [
    { part: 'input', bytes: MAX_INPUT_BYTES },
    ...scenario.levels.map((level) => ({
      part: `${level.name} record`,
      bytes:
        level.kind === 'plan'
          ? level.for_each_account
            ? ORG_RECORD_MAX_BYTES
            : PLAN_RECORD_OVERHEAD_BYTES + level.calls.length * CALL_RECORD_MAX_BYTES
          : AGENT_RECORD_MAX_BYTES,
    })),
  ];
}

/**
 * The dispatcher's inline result budget for these scenarios, in bytes: the
 * largest bound (whole KiB, at most the platform's result bound, at least
 * {@link MIN_INLINE_RESULT_BYTES}) at which every level of every scenario keeps
 * the state within {@link STATE_BUDGET_BYTES}: the input and all level records,
 * plus the level's results held at once and what else it holds (an agent
 * turn's tool-call args, inline conversation and call records). A result over
 * it is shrunk (and, with the claim-check, stored whole in the run's workspace).
 */
export function inlineResultBudget(scenarios: readonly ScenarioDefinition[], resultMaxBytes: number): number {
  let fits = resultMaxBytes;
  for (const scenario of scenarios) {
    const fixed = recordsBytes(scenario).reduce((sum, part) => sum + part.bytes, 0);
    for (const level of scenario.levels) {
      const { held, extra } = transientOf(level);
      fits = Math.min(fits, Math.floor((STATE_BUDGET_BYTES - fixed - extra) / held / 1024) * 1024);
    }
  }
  return Math.max(MIN_INLINE_RESULT_BYTES, fits);
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
  const transients = scenario.levels.map((level) => {
    const { held, extra, args } = transientOf(level);
    return {
      part: `${level.name} ${level.kind === 'plan' ? 'results or args' : 'turn'}`,
      bytes: Math.max(held * inlineBytes + extra, args),
    };
  });
  const largest = transients.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const parts = [...recordsBytes(scenario), largest];
  return { bytes: parts.reduce((sum, part) => sum + part.bytes, 0), parts };
}
