/**
 * A run as it happens, for the console's live page: tool calls, model turns,
 * questions and the closing summary, each passed through the platform's one
 * `redact()` before it leaves the API. Two sources give the same events: the
 * local console's own runs, as they happen (bin/local/console-backend.ts), and
 * any run's workspace files (a deployed run, or one started elsewhere), read in
 * the order they were written.
 */
import type { StoredConversation } from '../engine/conversation';
import type { TurnState } from '../engine/events';
import type { Message } from '../engine/model-client';
import type { RunSummary } from '../engine/summary';
import { redact } from '../runtime/redact';
import type { Workspace } from '../runtime/workspace';

/** Longest text of one event, in characters: a page shows the start, the workspace file holds the rest. */
export const LIVE_TEXT_MAX_CHARS = 2000;

/** One thing that happened in a run. */
export type LiveEvent =
  | { readonly type: 'level_started'; readonly level: string; readonly kind: 'plan' | 'agent' }
  | {
      readonly type: 'call';
      readonly level: string;
      readonly callId: string;
      readonly tool: string;
      readonly ok: boolean;
      readonly code?: string;
      readonly summary: string;
      readonly durationMs: number;
    }
  | {
      readonly type: 'turn';
      readonly level: string;
      readonly turn: number;
      /** What the model said. */
      readonly text?: string;
      /** The tools it asked for, with their arguments (redacted). */
      readonly toolUses: readonly { readonly name: string; readonly input: unknown }[];
    }
  | { readonly type: 'question'; readonly level: string; readonly question: string }
  | { readonly type: 'answer'; readonly level: string; readonly answered: boolean }
  | {
      readonly type: 'level_ended';
      readonly level: string;
      readonly outcome: string;
      readonly summary: string;
    }
  | { readonly type: 'summary'; readonly summary: RunSummary }
  /** The execution itself failed (its input refused by `Start`, an interpreter error). */
  | { readonly type: 'run_failed'; readonly message: string };

/** `text` cut to {@link LIVE_TEXT_MAX_CHARS}. */
export function clipText(text: string): string {
  return text.length > LIVE_TEXT_MAX_CHARS ? `${text.slice(0, LIVE_TEXT_MAX_CHARS - 1)}…` : text;
}

/** An event made safe to send: every string redacted (keys and credential-looking values) and clipped. */
export function liveEvent(event: LiveEvent): LiveEvent {
  const redacted = redact(event);
  if (redacted.type === 'turn' && redacted.text !== undefined)
    return { ...redacted, text: clipText(redacted.text) };
  if (redacted.type === 'run_failed') return { ...redacted, message: clipText(redacted.message) };
  if (redacted.type === 'call' || redacted.type === 'level_ended') {
    return { ...redacted, summary: clipText(redacted.summary) };
  }
  return redacted;
}

/** The turn event of a model message: its text and its tool uses. */
export function turnEvent(level: string, turn: number, message: Message | undefined): LiveEvent {
  const content = message?.content ?? [];
  const text = content
    .flatMap((block) => ('text' in block ? [block.text] : []))
    .join('\n')
    .trim();
  const toolUses = content.flatMap((block) =>
    'toolUse' in block ? [{ name: block.toolUse.name, input: block.toolUse.input }] : [],
  );
  return liveEvent({ type: 'turn', level, turn, ...(text ? { text } : {}), toolUses });
}

/**
 * The turn event of an engine `turn` (or `wrapup`) result: the last assistant
 * message of the conversation it carries inline (a claim-checked conversation is
 * in its workspace file, which {@link eventsFromWorkspace} reads).
 */
export function turnStateEvent(level: string, turn: Pick<TurnState, 'n' | 'conversation'>): LiveEvent {
  const inline = turn.conversation?.inline as { messages?: unknown[] } | undefined;
  const messages = (inline?.messages ?? []) as (Message | undefined)[];
  const last = [...messages].reverse().find((message) => message?.role === 'assistant');
  return turnEvent(level, turn.n, last);
}

const CALL_FILE = /^levels\/([a-z][a-z0-9_]*)\/(\d+)-([a-z][a-z0-9_]*)\.json$/;
const TURN_FILE = /^conversations\/([a-z][a-z0-9_]*)\/turn-(\d+)\.json$/;
const FINISH_FILE = /^levels\/([a-z][a-z0-9_]*)\/finish\.json$/;

async function readJsonFile<T>(workspace: Workspace, path: string): Promise<T | undefined> {
  try {
    return JSON.parse((await workspace.read(path, { length: 1_048_576 })).content) as T;
  } catch {
    return undefined;
  }
}

/**
 * A run's events from its workspace: each plan call's result file, each turn's
 * conversation file (the engine writes one when the conversation outgrows the
 * state, and always on a level's last turn), each `finish`, and the summary,
 * in the order they were written (`lastModified`, then path).
 */
export async function eventsFromWorkspace(workspace: Workspace): Promise<LiveEvent[]> {
  const files = (await workspace.list('', { limit: 1000 })).filter(
    (file) => CALL_FILE.test(file.path) || TURN_FILE.test(file.path) || FINISH_FILE.test(file.path),
  );
  files.sort(
    (a, b) => (a.lastModified ?? '').localeCompare(b.lastModified ?? '') || a.path.localeCompare(b.path),
  );
  const events: LiveEvent[] = [];
  for (const file of files) {
    const call = CALL_FILE.exec(file.path);
    if (call) {
      const result = await readJsonFile<{
        ok?: boolean;
        callId?: string;
        summary?: string;
        durationMs?: number;
        error?: { code?: string };
      }>(workspace, file.path);
      if (!result) continue;
      events.push(
        liveEvent({
          type: 'call',
          level: call[1] ?? '',
          callId: result.callId ?? `${call[1]}/${call[2]}`,
          tool: call[3] ?? '',
          ok: result.ok === true,
          ...(result.error?.code ? { code: result.error.code } : {}),
          summary: String(result.summary ?? ''),
          durationMs: Number(result.durationMs ?? 0),
        }),
      );
      continue;
    }
    const turn = TURN_FILE.exec(file.path);
    if (turn) {
      const conversation = await readJsonFile<StoredConversation>(workspace, file.path);
      const last = conversation?.messages.filter((message) => message.role === 'assistant').at(-1);
      events.push(turnEvent(turn[1] ?? '', Number(turn[2]), last));
      continue;
    }
    const finish = FINISH_FILE.exec(file.path);
    if (finish) {
      const answer = await readJsonFile<{ summary?: string }>(workspace, file.path);
      events.push(
        liveEvent({
          type: 'level_ended',
          level: finish[1] ?? '',
          outcome: 'finished',
          summary: String(answer?.summary ?? ''),
        }),
      );
    }
  }
  const summary = summaryOf(await readJsonFile<unknown>(workspace, 'summary.json'));
  if (summary) events.push(liveEvent({ type: 'summary', summary }));
  return events;
}

/** A summary file's content when it has the summary's shape (outcome, levels, cost), else undefined. */
export function summaryOf(value: unknown): RunSummary | undefined {
  const summary = value as Partial<RunSummary> | undefined;
  return summary &&
    (summary.outcome === 'succeeded' || summary.outcome === 'incomplete') &&
    Array.isArray(summary.levels) &&
    typeof summary.cost?.totalUsd === 'number'
    ? (summary as RunSummary)
    : undefined;
}
