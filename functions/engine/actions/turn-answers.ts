/**
 * The user message that answers the model's previous turn: a toolResult for
 * every toolUse of it (a dispatched call's result, a call the engine refused
 * itself, the `ask_user` answer), in the order of the toolUse blocks, and the
 * engine's notice when the last answer was not used as given.
 */
import type { Workspace } from '../../runtime/workspace';
import { engineResultBlock, type StoredConversation, toolResultBlock, toolUsesOf } from '../conversation';
import type { Answer, PendingCall, RejectedCall, TurnState } from '../events';
import type { ContentBlock } from '../model-client';
import { type CallRecord, callRecordOf, type IsWriteTool, narrowResult } from '../records';

/** What answering a turn gave: the blocks, the calls' records, and `finish`'s value when it succeeded. */
export interface TurnAnswers {
  readonly blocks: ContentBlock[];
  readonly records: CallRecord[];
  readonly finish?: Record<string, unknown>;
}

/**
 * The toolResult blocks answering the previous turn's toolUses, and the calls' records.
 *
 * @param isWrite - which tools write: their calls' caught failures are final (records.ts, `narrowResult`).
 */
export function answersOfTurn(
  state: TurnState,
  conversation: StoredConversation,
  workspace: Workspace,
  isWrite: IsWriteTool,
): TurnAnswers {
  const byToolUse = new Map<string, ContentBlock>();
  const records: CallRecord[] = [];
  let finish: Record<string, unknown> | undefined;
  state.calls.forEach((call: PendingCall, index: number) => {
    const result = narrowResult(state.results[index], call, isWrite);
    records.push(callRecordOf(result));
    byToolUse.set(call.toolUseId, toolResultBlock(call.toolUseId, result, workspace));
    if (call.tool === 'finish' && result.ok && !finish) finish = result.value as Record<string, unknown>;
  });
  for (const rejected of state.rejected as RejectedCall[]) {
    records.push({
      callId: `${state.level}/-`,
      tool: rejected.tool,
      ok: false,
      code: rejected.code as CallRecord['code'],
      summary: `${rejected.code}: ${rejected.message}`,
      durationMs: 0,
      rejected: true,
      ...(rejected.budgetUsd !== undefined ? { skipped: 'budget', estimateUsd: rejected.budgetUsd } : {}),
    });
    byToolUse.set(
      rejected.toolUseId,
      engineResultBlock(
        rejected.toolUseId,
        { ok: false, error: { code: rejected.code, message: rejected.message, retryable: true } },
        true,
      ),
    );
  }
  if (state.askToolUseId) {
    const answer = state.answer as Answer | null | undefined;
    byToolUse.set(
      state.askToolUseId,
      engineResultBlock(
        state.askToolUseId,
        answer?.answered && answer.text !== undefined
          ? { answered: true, answer: answer.text, ...(answer.by ? { by: answer.by } : {}) }
          : {
              answered: false,
              answer: 'no answer',
              reason:
                answer?.reason === 'timeout'
                  ? 'Nobody answered in time: go on without the answer.'
                  : 'The question could not be asked: go on without the answer.',
            },
        false,
      ),
    );
  }
  // In the order of the assistant's toolUse blocks, as Converse expects them; a toolUse
  // nothing answered (never expected) still gets an error result, so the conversation stays valid.
  const last = conversation.messages[conversation.messages.length - 1];
  const blocks = toolUsesOf(last).map(
    (use) =>
      byToolUse.get(use.toolUseId) ??
      engineResultBlock(
        use.toolUseId,
        { ok: false, error: { code: 'internal_error', message: 'This call was not run', retryable: true } },
        true,
      ),
  );
  return { blocks, records, ...(finish ? { finish } : {}) };
}

/**
 * Appends the answers (and the engine's notice) as the next user message: after
 * an assistant message, a new user message; when the last message is already
 * the user's (the last answer was dropped), to that message.
 */
export function appendAnswers(
  conversation: StoredConversation,
  blocks: readonly ContentBlock[],
  notice: string | undefined,
): void {
  const content = [...blocks, ...(notice ? [{ text: notice }] : [])];
  if (content.length === 0) return;
  const last = conversation.messages[conversation.messages.length - 1];
  if (last?.role === 'user') {
    conversation.messages[conversation.messages.length - 1] = {
      role: 'user',
      content: [...last.content, ...content],
    };
  } else conversation.messages.push({ role: 'user', content });
}
