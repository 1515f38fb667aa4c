/**
 * Closing an agent level: its record (summary in words when the model did not
 * finish, bounded `finish` data, the first call records, usage), `finish` and
 * the conversation kept in the run's workspace, and the `done` turn state the
 * state machine moves to `$.levels.<level>`.
 */
import { shrinkToFit } from '../../runtime/bound';
import type { ToolErrorInfo } from '../../runtime/result';
import type { Workspace } from '../../runtime/workspace';
import { type StoredConversation, saveConversation } from '../conversation';
import type { AgentLevel, ScenarioDefinition } from '../definition';
import type { TurnState } from '../events';
import { FINISH_DATA_INLINE_MAX_BYTES, MAX_AGENT_CALL_RECORDS, MAX_LEVEL_SUMMARY_CHARS } from '../limits';
import { agentEndInWords, fallbackReport, plainReason } from '../plain-words';
import type { AgentLevelRecord, AgentOutcome, CallRecord, LevelRecord, ModelUsage } from '../records';
import { ENGINE_PATHS, writeJson } from '../workspaces';

/** A summary within the state's bound, in characters. */
export function cutSummary(text: string): string {
  return text.length > MAX_LEVEL_SUMMARY_CHARS ? `${text.slice(0, MAX_LEVEL_SUMMARY_CHARS - 1)}…` : text;
}

/** How the level ended, and with what. */
export interface LevelEnd {
  readonly outcome: AgentOutcome;
  /** `finish`'s value when the model finished. */
  readonly finish?: Record<string, unknown>;
  /** What the model said last (kept for `stopped`, `truncated` and the blocked outcomes). */
  readonly text?: string;
  readonly error?: ToolErrorInfo;
  /** The stop reason the level ended on, when it is not end_turn/tool_use. */
  readonly stopReason?: string;
  /** `budget_exhausted`: the turn not started and its estimate (USD). */
  readonly budgetSkipped?: { readonly turn: number; readonly estimateUsd: number };
}

/** Outcomes whose summary is what the model said, in the engine's words. */
const SAID: ReadonlySet<AgentOutcome> = new Set(['truncated', 'guardrail_intervened', 'content_filtered']);

/** The level's summary: `finish`'s, the model's own words when it stopped, else the engine's report. */
export function levelSummary(
  scenario: ScenarioDefinition,
  level: AgentLevel,
  levels: Readonly<Record<string, LevelRecord>>,
  end: LevelEnd,
): string {
  if (typeof end.finish?.summary === 'string') return end.finish.summary;
  if (end.outcome === 'stopped' && end.text) return end.text;
  const reason = SAID.has(end.outcome)
    ? end.text || undefined
    : end.error
      ? plainReason(end.error.code)
      : undefined;
  return fallbackReport(scenario, levels, agentEndInWords(end.outcome, level.max_turns, reason));
}

/** The level's record. */
export function agentRecord(
  scenario: ScenarioDefinition,
  level: AgentLevel,
  levels: Readonly<Record<string, LevelRecord>>,
  end: LevelEnd,
  progress: { turns: number; callCount: number; records: readonly CallRecord[]; usage: ModelUsage },
): AgentLevelRecord {
  const data = (end.finish?.data ?? {}) as Record<string, unknown>;
  return {
    kind: 'agent',
    outcome: end.outcome,
    summary: cutSummary(levelSummary(scenario, level, levels, end)),
    data: shrinkToFit(data, FINISH_DATA_INLINE_MAX_BYTES).value as Record<string, unknown>,
    model: level.model,
    turns: progress.turns,
    callCount: progress.callCount,
    calls: progress.records.slice(0, MAX_AGENT_CALL_RECORDS),
    usage: progress.usage,
    ...(end.error ? { error: end.error } : {}),
    ...(end.stopReason ? { stopReason: end.stopReason } : {}),
    ...(end.budgetSkipped
      ? {
          budgetSkipped: {
            turn: end.budgetSkipped.turn,
            estimateUsd: Math.round(end.budgetSkipped.estimateUsd * 1e6) / 1e6,
          },
        }
      : {}),
  };
}

/** The `done` turn state carrying the record. */
export function doneState(
  level: string,
  record: AgentLevelRecord,
  extra: { n: number; conversation?: TurnState['conversation'] },
): TurnState {
  return {
    level,
    n: extra.n,
    status: 'done',
    calls: [],
    results: [],
    rejected: [],
    ...(extra.conversation ? { conversation: extra.conversation } : {}),
    callCount: record.callCount,
    records: [],
    usage: record.usage as unknown as Record<string, unknown>,
    record: record as unknown as Record<string, unknown>,
  };
}

/** Writes `finish` and the conversation to the workspace, then the record. */
export async function closeLevel(
  workspace: Workspace,
  scenario: ScenarioDefinition,
  level: AgentLevel,
  levels: Readonly<Record<string, LevelRecord>>,
  end: LevelEnd,
  conversation: StoredConversation,
  progress: { turns: number; callCount: number; records: readonly CallRecord[]; usage: ModelUsage },
): Promise<TurnState> {
  if (end.finish) await writeJson(workspace, ENGINE_PATHS.finish(level.name), end.finish);
  const ref = await saveConversation(workspace, level.name, progress.turns, conversation, true);
  const record = agentRecord(scenario, level, levels, end, progress);
  return doneState(level.name, record, { n: progress.turns, conversation: ref as TurnState['conversation'] });
}
