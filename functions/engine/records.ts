/**
 * What a run's state holds between levels: the merged input and one compact
 * record per finished level. Full results, conversations and findings live in
 * the run's workspace; records keep what later states, prompts and the run
 * summary read, within the bounds of limits.ts.
 */

import type { ToolCatalog } from '../runtime/catalog';
import { MAX_ERROR_MESSAGE_CHARS } from '../runtime/error-sources/error-info';
import type { ErrorCode } from '../runtime/errors';
import {
  failureResult,
  oneLineSummary,
  type ToolErrorInfo,
  type ToolFailure,
  type ToolResult,
} from '../runtime/result';
import type { ResultRef } from '../runtime/workspace';

/** One call of a level, as the state and the run summary keep it. */
export interface CallRecord {
  readonly callId: string;
  readonly tool: string;
  readonly ok: boolean;
  /** The error code of a failed call. */
  readonly code?: ErrorCode;
  /** The result's one-line summary (`code: message` on failure). */
  readonly summary: string;
  readonly durationMs: number;
  /** The value was shrunk or the tool stopped early. */
  readonly truncated?: boolean;
  /** The platform shrank the value to fit (`ToolSuccess.shrunk`); `truncated` without it is the tool's own. */
  readonly shrunk?: true;
  /** Where the full value is when it was too large for the state (claim-check). */
  readonly resultRef?: ResultRef;
  /** Cost Explorer requests the call reported (`value.costExplorer.requests`): each is billed. */
  readonly costExplorerRequests?: number;
  /** The Task failed and its Catch wrote the result (one more state transition). */
  readonly caught?: boolean;
  /** Answered by the engine without a dispatch (over the per-turn limit, or the run budget). */
  readonly rejected?: boolean;
  /** Not started because its estimate would have taken the run past its budget (functions/engine/run-budget.ts). */
  readonly skipped?: 'budget';
  /** With `skipped`: the call's estimate, in USD. */
  readonly estimateUsd?: number;
}

/**
 * A per-account level's calls over the accounts recorded (from the `account_done`
 * records `ResultWriter` kept): what the run summary's estimate counts for them.
 */
export interface OrgCallUse {
  /** Accounts whose calls are counted. */
  readonly accounts: number;
  /** Per call of the level, in its order: accounts that made it and their summed duration in ms. */
  readonly perCall: readonly { readonly tool: string; readonly count: number; readonly ms: number }[];
  /** Calls whose Catch wrote the result. */
  readonly caught: number;
  /** Calls that failed, over the accounts recorded (their failed checks); absent on older records. */
  readonly failed?: number;
  readonly costExplorerRequests: number;
}

/** Counts of a level's tracked findings against the tenant's previous run (functions/engine/findings.ts). */
export interface FindingsCounts {
  readonly total: number;
  readonly new: number;
  readonly unchanged: number;
  readonly resolved: number;
  /** Previous findings not seen this run because the tool failed or listed only its top findings. */
  readonly unknown: number;
  readonly bySeverity: Readonly<Record<string, number>>;
  readonly estimatedMonthlyCostUsd: number;
  /** The run compared against; absent on the tenant's first run of the scenario. */
  readonly previousRunId?: string;
}

/** How a plan level ended: every call ok, some, or none. */
export type PlanOutcome = 'ok' | 'partial' | 'failed';

/**
 * The accounts of a per-account level the run budget left out: how many, their
 * estimates summed (USD), and the first {@link ORG_BUDGET_SKIPPED_IDS} of them
 * (all are named in the level's `not-audited.json`; the state never grows with them).
 */
export interface OrgBudgetSkipped {
  readonly accounts: number;
  readonly estimateUsd: number;
  readonly first: readonly { readonly accountId: string; readonly estimateUsd: number }[];
}

/** Skipped accounts named in the level's record and the run summary; the rest are counted. */
export const ORG_BUDGET_SKIPPED_IDS = 20;

/** A finished plan level. */
export interface PlanLevelRecord {
  readonly kind: 'plan';
  readonly outcome: PlanOutcome;
  /** One line for people: `12 calls: 10 ok, 2 failed (access_denied, opt_in_required)`. */
  readonly summary: string;
  readonly calls: readonly CallRecord[];
  readonly findings?: FindingsCounts;
  /**
   * A per-account level's accounts (functions/engine/org-report.ts): counted by
   * outcome, the whole report at `report` in the run's workspace. Its `calls` are
   * then empty (each account's are in the report) and `summary` is the report's text.
   */
  readonly organization?: {
    readonly selected: number;
    readonly audited: number;
    readonly partial: number;
    readonly failed: number;
    readonly notAudited: number;
    readonly report: string;
    /** The per-account calls, summed from the accounts' records (absent in records written before it). */
    readonly calls?: OrgCallUse;
    /** Accounts the run budget did not start (`org_targets`); each is also in the report's not-audited list. */
    readonly budgetSkipped?: OrgBudgetSkipped;
  };
  /** Milliseconds the engine spent closing the level (its `plan_done` invocation). */
  readonly engineMs?: number;
  /** The run had a budget: the level went through its budget gate (`<level>_gate`, one more engine invocation). */
  readonly gated?: true;
}

/**
 * How an agent level ended (docs/scenarios.md, "Stop reasons"): the model called
 * `finish`; it reached `max_turns`; it stopped without `finish`; its answers
 * kept being cut at the output budget's ceiling (`truncated`); a guardrail or
 * the model's content filter blocked its answer; the conversation outgrew the
 * model's context window even once compacted; the model could not be called
 * or answered in a way the engine cannot use (access, model id, validation, a
 * malformed answer, an unknown stop reason, the level's time used up); the next
 * turn's estimate would have taken the run past its budget (`budget_exhausted`,
 * functions/engine/run-budget.ts); or the loop itself failed.
 */
export type AgentOutcome =
  | 'finished'
  | 'max_turns'
  | 'stopped'
  | 'truncated'
  | 'guardrail_intervened'
  | 'content_filtered'
  | 'context_window_exceeded'
  | 'model_error'
  | 'budget_exhausted'
  | 'failed';

/** What the model and the engine spent on one agent level. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Converse calls that returned. */
  readonly modelCalls: number;
  /** Milliseconds Converse took, summed. */
  readonly modelMs: number;
  /** Invocations of the engine's `turn` action (one per model turn, one to close the level). */
  readonly engineInvocations: number;
  /** Milliseconds those invocations ran, summed (Lambda billed time). */
  readonly engineMs: number;
  /** Turns that dispatched tool calls (a Map each). */
  readonly toolTurns: number;
  /** Turns that asked a person (`ask_user`). */
  readonly askTurns: number;
  /** Questions posted to Slack (a dispatcher call each). */
  readonly askPosts: number;
  /** Questions that got no answer (timeout or failure: one more state each). */
  readonly unanswered: number;
}

/** A usage with nothing spent. */
export const NO_USAGE: ModelUsage = {
  inputTokens: 0,
  outputTokens: 0,
  modelCalls: 0,
  modelMs: 0,
  engineInvocations: 0,
  engineMs: 0,
  toolTurns: 0,
  askTurns: 0,
  askPosts: 0,
  unanswered: 0,
};

/** A finished agent level. */
export interface AgentLevelRecord {
  readonly kind: 'agent';
  readonly outcome: AgentOutcome;
  /** `finish`'s summary, or the engine's account of why there is none (in plain words). */
  readonly summary: string;
  /** `finish`'s data (bounded; the whole of it in `levels/<level>/finish.json`); `{}` without. */
  readonly data: Readonly<Record<string, unknown>>;
  readonly model: string;
  /** Model turns taken. */
  readonly turns: number;
  /** Tool calls dispatched over the level. */
  readonly callCount: number;
  /** The first calls' records (limits.ts, MAX_AGENT_CALL_RECORDS). */
  readonly calls: readonly CallRecord[];
  readonly usage: ModelUsage;
  /** Why the model could not be called, for `model_error` and `failed`. */
  readonly error?: ToolErrorInfo;
  /** The Converse stop reason of the level's last answer, when it ended on one other than `end_turn`/`tool_use`. */
  readonly stopReason?: string;
  /** `budget_exhausted`: the model turn not started and its estimate, in USD. */
  readonly budgetSkipped?: { readonly turn: number; readonly estimateUsd: number };
}

/** A finished level. */
export type LevelRecord = PlanLevelRecord | AgentLevelRecord;

/** The state between levels: `$.input` and `$.levels`. */
export interface RunState {
  readonly input: Record<string, unknown>;
  readonly levels: Record<string, LevelRecord>;
}

/** Whether a level produced its result: a plan level with at least one call ok, an agent level that called `finish`. */
export function levelHasResult(record: LevelRecord): boolean {
  return record.kind === 'plan' ? record.outcome !== 'failed' : record.outcome === 'finished';
}

/** A {@link ResultRef} when `value` has its shape (`uri`, `bytes`, `sha256`). */
export function asResultRef(value: unknown): ResultRef | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const ref = value as Record<string, unknown>;
  return typeof ref.uri === 'string' && typeof ref.bytes === 'number' && typeof ref.sha256 === 'string'
    ? { uri: ref.uri, bytes: ref.bytes, sha256: ref.sha256 }
    : undefined;
}

/** `value.costExplorer.requests` of a result, as the Cost Explorer tools report it. */
function costExplorerRequestsOf(value: unknown): number | undefined {
  const requests = (value as { costExplorer?: { requests?: unknown } } | null)?.costExplorer?.requests;
  return typeof requests === 'number' && Number.isFinite(requests) ? requests : undefined;
}

/** The compact record of a ToolResult (a dispatcher's, or a Catch's failure result). */
export function callRecordOf(result: ToolResult): CallRecord {
  const base = {
    callId: result.callId,
    tool: result.tool,
    ok: result.ok,
    summary: result.summary,
    durationMs: result.durationMs,
    ...((result as { caught?: unknown }).caught === true ? { caught: true } : {}),
  };
  if (!result.ok) return { ...base, code: result.error.code };
  const resultRef = asResultRef(result.resultRef);
  const requests = costExplorerRequestsOf(result.value);
  return {
    ...base,
    ...(result.truncated ? { truncated: true } : {}),
    ...(result.shrunk ? { shrunk: true } : {}),
    ...(resultRef ? { resultRef } : {}),
    ...(requests !== undefined ? { costExplorerRequests: requests } : {}),
  };
}

/**
 * A plan level's outcome and summary line from its call records.
 *
 * @example planOutcome(records).summary // '12 calls: 9 ok, 2 failed (access_denied, opt_in_required), 1 not started (run budget)'
 */
export function planOutcome(calls: readonly CallRecord[]): { outcome: PlanOutcome; summary: string } {
  const notOk = calls.filter((call) => !call.ok);
  const skipped = notOk.filter((call) => call.skipped === 'budget').length;
  const failed = notOk.filter((call) => call.skipped !== 'budget');
  const codes = [...new Set(failed.map((call) => call.code ?? 'internal_error'))];
  const outcome: PlanOutcome =
    notOk.length === 0 ? 'ok' : notOk.length === calls.length ? 'failed' : 'partial';
  const count = `${calls.length} call${calls.length === 1 ? '' : 's'}`;
  const detail = failed.length > 0 ? `, ${failed.length} failed (${codes.join(', ')})` : '';
  const notStarted = skipped > 0 ? `, ${skipped} not started (run budget)` : '';
  return { outcome, summary: `${count}: ${calls.length - notOk.length} ok${detail}${notStarted}` };
}

/** Whether a tool writes (`sideEffects: 'write'`): a failure its call's Task Catch wrote may have taken effect. */
export type IsWriteTool = (tool: string) => boolean;

/** {@link IsWriteTool} over a catalog; a name the catalog does not hold is no write tool. */
export function writeToolsOf(catalog: ToolCatalog): IsWriteTool {
  return (tool) => catalog.has(tool) && catalog.get(tool).sideEffects === 'write';
}

/** What ends the message of a caught write call's failure (as functions/dispatcher/function-error.ts words it). */
export const CAUGHT_WRITE_SUFFIX = '; not retried: it may have taken effect';

/**
 * A failure written by a call's Catch Pass (`caught: true`: the Task timed out at
 * its `TimeoutSeconds`, or the dispatcher or tool function failed as a function)
 * for a write tool: the tool may have written before its function died, so the
 * failure is `details.effect: 'unknown'`, not retryable, its message saying so —
 * as a write tool's function failure reads from the dispatcher
 * (docs/errors.md, "Write tools"). The Pass states cannot tell tools apart (a
 * Map's calls are of several tools) and write `retryable: true` for `timeout`: a
 * model told so would make the write again under a new call id.
 */
function settledCaughtWrite(result: ToolFailure): ToolFailure {
  const room = MAX_ERROR_MESSAGE_CHARS - CAUGHT_WRITE_SUFFIX.length;
  const message = result.error.message.endsWith(CAUGHT_WRITE_SUFFIX)
    ? result.error.message
    : `${result.error.message.slice(0, room)}${CAUGHT_WRITE_SUFFIX}`;
  return {
    ...result,
    error: {
      ...result.error,
      message,
      retryable: false,
      details: { ...result.error.details, effect: 'unknown' },
    },
    summary: oneLineSummary(`${result.error.code}: ${message}`),
  };
}

/**
 * A dispatcher's result as the state carries it, checked for the fields the
 * engine reads; anything else (a Map iteration that returned nothing usable)
 * becomes an `internal_error` result of `fallback`'s call. A caught failure of a
 * write tool (`isWrite`) is made final ({@link settledCaughtWrite}).
 */
export function narrowResult(
  raw: unknown,
  fallback: { tool: string; callId: string },
  isWrite: IsWriteTool,
): ToolResult {
  const result = raw as Partial<ToolResult> | null;
  const valid =
    result !== null &&
    typeof result === 'object' &&
    typeof result.tool === 'string' &&
    typeof result.callId === 'string' &&
    typeof result.summary === 'string' &&
    (result.ok === true || (result.ok === false && typeof result.error?.code === 'string'));
  if (valid) {
    const narrowed = result as ToolResult;
    const caught = (narrowed as { caught?: unknown }).caught === true;
    return !narrowed.ok && caught && isWrite(narrowed.tool) ? settledCaughtWrite(narrowed) : narrowed;
  }
  return failureResult(
    fallback.tool,
    fallback.callId,
    { code: 'internal_error', message: 'The call returned no result', retryable: false },
    0,
  );
}

/** `usage` with `add`'s counts added. */
export function sumUsage(usage: ModelUsage, add: Partial<ModelUsage>): ModelUsage {
  const out = { ...usage } as Record<keyof ModelUsage, number>;
  for (const [key, value] of Object.entries(add)) out[key as keyof ModelUsage] += value ?? 0;
  return out;
}
