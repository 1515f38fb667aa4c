/**
 * What one level of a run used, from its record: the Step Functions states it entered, the engine's
 * invocations and milliseconds, and the calls the dispatcher ran (the run summary's counts, summary.ts).
 */
import type { CallRecord, LevelRecord } from './records';

/** Milliseconds assumed for engine invocations that do not time themselves (start, ask, summary). */
export const ENGINE_UNTIMED_MS = 50;
/** Milliseconds the dispatcher adds around a call (validation, invoke round trip), for its GB-seconds. */
export const DISPATCHER_OVERHEAD_MS = 10;

/** What one level's states, invocations and GB-seconds come to. */
export interface LevelUse {
  transitions: number;
  engine: { invocations: number; ms: number };
  dispatched: CallRecord[];
  /** Dispatched calls without a record (agent calls past the kept records). */
  unrecorded: number;
  /** A per-account level's calls, summed per call of the level over its accounts. */
  accountCalls?: readonly { readonly tool: string; readonly count: number; readonly ms: number }[];
  accountCeRequests?: number;
}

/**
 * The states a level entered, from its record, as lib/scenarios/asl.ts lays them
 * out (bench/scenario-run.ts checks this count against the interpreter's):
 * - plan: its Pass, its budget Choice (and the `<level>_gate` Task when the run has a budget), its
 *   Map, one Task per started call, one Catch Pass per caught call, `<level>_done`;
 * - per-account plan (lib/scenarios/asl-states/org.ts): `L`, the route, the Map and
 *   `L_done`; per child execution its batch Map; per account `L_account`, the calls'
 *   Map, a Task per call, a Catch Pass per caught call and `L_account_done` (one engine
 *   invocation each, untimed), counted from the accounts' `usage` records;
 * - agent: its Pass; per `turn` invocation the Task and the route Choice; per
 *   tool turn the Map, a Task per call and a Catch Pass per caught call; per ask
 *   turn the Map and calls, the Slack post (and its Catch), the wait and, when
 *   unanswered, the no-answer Pass; `<level>_done`.
 */
export function levelUse(record: LevelRecord, accountsPerChild = 1): LevelUse {
  const org = record.kind === 'plan' ? record.organization?.calls : undefined;
  if (record.kind === 'plan' && org) {
    // Parent: L, the route, the Map, L_done; per child its batch Map; per account
    // L_account, the calls Map, a Task per call (and a Pass per caught one), L_account_done.
    const children = Math.ceil(org.accounts / accountsPerChild);
    const calls = org.perCall.reduce((sum, call) => sum + call.count, 0);
    return {
      transitions: 4 + children + 3 * org.accounts + calls + org.caught,
      engine: {
        invocations: 2 + org.accounts,
        ms: (1 + org.accounts) * ENGINE_UNTIMED_MS + (record.engineMs ?? ENGINE_UNTIMED_MS),
      },
      dispatched: [],
      unrecorded: 0,
      accountCalls: org.perCall,
      accountCeRequests: org.costExplorerRequests,
    };
  }
  if (record.kind === 'plan') {
    const started = record.calls.filter((call) => call.skipped === undefined);
    const caught = started.filter((call) => call.caught).length;
    const gate = record.gated ? 1 : 0;
    return {
      transitions: 4 + gate + started.length + caught,
      engine: {
        invocations: 1 + gate,
        ms: (record.engineMs ?? ENGINE_UNTIMED_MS) + gate * ENGINE_UNTIMED_MS,
      },
      dispatched: started,
      unrecorded: 0,
    };
  }
  const usage = record.usage;
  const dispatched = record.calls.filter((call) => !call.rejected);
  const caught = dispatched.filter((call) => call.caught).length;
  const failedTurn = record.outcome === 'failed' ? 2 : 0;
  return {
    transitions:
      1 +
      usage.engineInvocations * 2 +
      usage.toolTurns +
      usage.askTurns +
      record.callCount +
      caught +
      usage.askPosts +
      usage.askTurns +
      usage.unanswered +
      failedTurn +
      1,
    engine: {
      invocations: usage.engineInvocations + usage.askTurns + (failedTurn ? 1 : 0),
      ms: usage.engineMs + usage.askTurns * ENGINE_UNTIMED_MS,
    },
    dispatched,
    unrecorded: Math.max(0, record.callCount - dispatched.length) + usage.askPosts,
  };
}
