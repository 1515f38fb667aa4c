/**
 * The scenario engine: the bookkeeping Task states of a run, one module per
 * action (actions/): `start` (the input, the watermark filled in), `plan_gate`
 * (a plan level's calls under the run budget), `plan_done` (a plan level's results,
 * findings and record), `org_targets` / `account_done` / `org_done` (a per-account
 * level: its accounts, each account's record, the organization report), `turn` (one
 * model turn of an agent level), `wrapup`
 * (an agent level whose turn failed for good), `ask` (records a question),
 * `summary` (the run summary). Every tool call still goes through the
 * dispatcher, from the state machine's Map states; the engine only reads
 * results. The state passed between the states is typed in events.ts
 * (`$.turn`) and records.ts (`$.input`, `$.levels`). `summary` also advances
 * the scenario's watermark when the run succeeded.
 */
import { InvalidArgsError } from '../runtime/errors';
import { accountDone } from './actions/account-done';
import { ask } from './actions/ask';
import { orgDone } from './actions/org-done';
import { orgTargets } from './actions/org-targets';
import { planDone } from './actions/plan-done';
import { planGate } from './actions/plan-gate';
import { start } from './actions/start';
import { type RunOutput, summary } from './actions/summary';
import { turn } from './actions/turn';
import { wrapup } from './actions/wrapup';
import { type EngineDependencies, engineContext } from './engine-context';
import { engineEventSchema } from './events';
import type { RunState } from './records';

export type { RunOutput } from './actions/summary';
export type { EngineDependencies } from './engine-context';
export { MAX_QUESTION_CHARS } from './level-tools';

/** Handles one engine event; `signal` aborts a model call when the invocation runs out of time. */
export type Engine = (event: unknown, signal?: AbortSignal) => Promise<unknown>;

/**
 * Builds the engine.
 *
 * @example
 * const engine = createEngine({ config, catalog: toolCatalog, workspaces, records, model, logger });
 * const state = await engine({ action: 'start', scenario: 'aws_pulse', runId: 'r1', input: { regions: ['eu-west-1'] } });
 * @throws InvalidArgsError (from the returned function) for a malformed event, naming each problem.
 */
export function createEngine(deps: EngineDependencies): Engine {
  const ctx = engineContext(deps);
  return async (raw, signal) => {
    const parsed = engineEventSchema().safeParse(raw);
    if (!parsed.success) {
      throw new InvalidArgsError(
        `Malformed engine event: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
      );
    }
    const event = parsed.data;
    switch (event.action) {
      case 'start':
        return start(ctx, event) satisfies Promise<RunState>;
      case 'plan_gate':
        return planGate(ctx, event);
      case 'plan_done':
        return planDone(ctx, event);
      case 'org_targets':
        return orgTargets(ctx, event);
      case 'account_done':
        return accountDone(ctx, event);
      case 'org_done':
        return orgDone(ctx, event);
      case 'turn':
        return turn(ctx, event, signal);
      case 'wrapup':
        return wrapup(ctx, event);
      case 'ask':
        return ask(ctx, event);
      case 'summary':
        return summary(ctx, event) satisfies Promise<RunOutput>;
    }
  };
}
