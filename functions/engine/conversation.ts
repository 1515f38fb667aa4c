/**
 * An agent level's conversation: kept in the state while small, in the run's
 * workspace once it would outgrow it (limits.ts, CONVERSATION_INLINE_MAX_BYTES),
 * one file per turn so a retried invocation rewrites its own file and never
 * appends twice.
 */
import { jsonByteLength } from '../runtime/bound';
import { PlatformError } from '../runtime/errors';
import type { ToolResult } from '../runtime/result';
import type { Workspace } from '../runtime/workspace';
import { CONVERSATION_INLINE_MAX_BYTES } from './limits';
import type { ContentBlock, Message } from './model-client';
import { asResultRef } from './records';
import { ENGINE_PATHS, readJson, refPath, writeJson } from './workspaces';

/** A conversation: the system prompt and the messages so far. */
export interface StoredConversation {
  readonly system: string;
  readonly messages: Message[];
}

/** Where a conversation is: inline, or at a path of the run's workspace. */
export interface ConversationRef {
  readonly inline?: StoredConversation;
  readonly path?: string;
}

/**
 * Keeps the conversation after `turn` model calls: inline when small, else written
 * to `conversations/<level>/turn-<n>.json`.
 *
 * @param always - write it to the workspace whatever its size (the level's last turn).
 */
export async function saveConversation(
  workspace: Workspace,
  level: string,
  turn: number,
  conversation: StoredConversation,
  always = false,
): Promise<ConversationRef> {
  if (!always && jsonByteLength(conversation) <= CONVERSATION_INLINE_MAX_BYTES)
    return { inline: conversation };
  const path = ENGINE_PATHS.conversation(level, turn);
  await writeJson(workspace, path, conversation);
  return { path };
}

/** @throws PlatformError (`internal_error`) when the reference holds neither, or the file is unreadable. */
export async function loadConversation(
  workspace: Workspace,
  ref: { readonly inline?: unknown; readonly path?: string } | undefined,
): Promise<StoredConversation> {
  if (ref?.inline) return structuredClone(ref.inline as unknown as StoredConversation);
  if (ref?.path) return readJson<StoredConversation>(workspace, ref.path);
  throw new PlatformError('internal_error', 'The turn state carries no conversation');
}

/** The toolUse blocks of a message, in order. */
export function toolUsesOf(
  message: Message | undefined,
): { toolUseId: string; name: string; input: unknown }[] {
  return (message?.content ?? []).flatMap((block) => ('toolUse' in block ? [block.toolUse] : []));
}

/** The text of a message's text blocks, joined. */
export function textOf(message: Message | undefined): string {
  return (message?.content ?? [])
    .flatMap((block) => ('text' in block ? [block.text] : []))
    .join('\n')
    .trim();
}

/**
 * A ToolResult as the model reads it: a toolResult block whose JSON says
 * whether the call worked, its summary and value, or its error code and
 * message (which say what is accepted, so the model can correct its call).
 */
export function toolResultBlock(toolUseId: string, result: ToolResult, workspace: Workspace): ContentBlock {
  if (!result.ok) {
    const { code, message, retryable } = result.error;
    return {
      toolResult: {
        toolUseId,
        content: [{ json: { ok: false, error: { code, message, retryable } } }],
        status: 'error',
      },
    };
  }
  const ref = asResultRef(result.resultRef);
  const path = ref && refPath(workspace, ref);
  return {
    toolResult: {
      toolUseId,
      content: [
        {
          json: {
            ok: true,
            summary: result.summary,
            value: result.value,
            ...(result.truncated ? { truncated: true } : {}),
            ...(ref
              ? {
                  resultRef: ref,
                  note: `The value is shortened; the full value (${ref.bytes} bytes) is at ${path ?? ref.uri} in the run's workspace: read it in slices with read_file.`,
                }
              : {}),
          },
        },
      ],
      status: 'success',
    },
  };
}

/** A toolResult the engine writes itself (a call it did not dispatch, an answer to ask_user). */
export function engineResultBlock(
  toolUseId: string,
  json: Record<string, unknown>,
  error: boolean,
): ContentBlock {
  return { toolResult: { toolUseId, content: [{ json }], status: error ? 'error' : 'success' } };
}
