/**
 * The calls of a model answer: each toolUse dispatched, asked (`ask_user`), or
 * answered by the engine itself without a dispatch: a malformed toolUse, a call
 * over the per-turn count, and a call whose arguments exceed the level's
 * argument budget or the tool's own limit, which never enters the state.
 */
import { jsonByteLength } from '../../runtime/bound';
import type { ToolCatalog } from '../../runtime/catalog';
import { toJsonSchema } from '../../runtime/spec';
import type { RepairedToolUse } from '../converse-rules';
import { type AgentLevel, ASK_USER_TOOL } from '../definition';
import type { PendingCall, RejectedCall } from '../events';
import { MAX_QUESTION_CHARS } from '../level-tools';
import { MAX_QUESTIONS_PER_LEVEL, MAX_TOOL_CALLS_PER_TURN, turnArgsBudgetBytes } from '../limits';
import type { ContentBlock, Message } from '../model-client';

/** A toolUse of the answer. */
export interface ToolUse {
  readonly toolUseId: string;
  readonly name: string;
  readonly input: unknown;
}

/** What the answer's toolUses come to. */
export interface TurnCalls {
  readonly calls: PendingCall[];
  readonly rejected: RejectedCall[];
  readonly question?: { readonly text: string; readonly toolUseId: string };
}

/**
 * Why args of `bytes` are refused, naming the tool's own limit where one of its
 * arguments has one (`write_file`'s content), else the level's budget.
 */
export function oversizeMessage(catalog: ToolCatalog, use: ToolUse, bytes: number, budget: number): string {
  const input = (use.input ?? {}) as Record<string, unknown>;
  const [largest] = Object.entries(input)
    .map(([key, value]) => [key, jsonByteLength(value)] as const)
    .sort((a, b) => b[1] - a[1]);
  const head = `The arguments of this call are ${bytes} bytes of JSON, more than this step accepts in one turn (${budget} bytes), so it was not run.`;
  if (!largest || !catalog.has(use.name)) return `${head} Send smaller arguments.`;
  const property = (toJsonSchema(catalog.get(use.name).inputSchema).properties ?? {}) as Record<
    string,
    { maxLength?: number; maxItems?: number }
  >;
  const own = property[largest[0]];
  const limit =
    own?.maxLength !== undefined
      ? `${use.name}'s ${largest[0]} takes at most ${own.maxLength} characters`
      : own?.maxItems !== undefined
        ? `${use.name}'s ${largest[0]} takes at most ${own.maxItems} items`
        : undefined;
  return limit
    ? `${head} ${limit} (this call's ${largest[0]} is ${largest[1]} bytes): send it in smaller parts, one call each.`
    : `${head} Its ${largest[0]} alone is ${largest[1]} bytes: send it in smaller parts, one call each.`;
}

/**
 * Sorts the answer's toolUses into calls, the question and the engine's own answers.
 *
 * @param asked - questions the level asked so far.
 * @param firstCallIndex - the level's calls so far (call ids go on from it).
 */
export function turnCalls(
  catalog: ToolCatalog,
  level: AgentLevel,
  uses: readonly ToolUse[],
  repaired: readonly RepairedToolUse[],
  asked: number,
  firstCallIndex: number,
): TurnCalls {
  const calls: PendingCall[] = [];
  const rejected: RejectedCall[] = [];
  let question: TurnCalls['question'];
  const budget = turnArgsBudgetBytes(level);
  let argsBytes = 0;
  const reject = (use: ToolUse, code: string, message: string) =>
    rejected.push({ toolUseId: use.toolUseId, tool: use.name, code, message });
  for (const use of uses) {
    const broken = repaired.find((r) => r.toolUseId === use.toolUseId);
    if (broken) {
      reject(
        use,
        use.name === 'invalid_tool_name' ? 'unknown_tool' : 'invalid_args',
        `This call was not run: ${broken.problem}.`,
      );
      continue;
    }
    if (level.ask_user && use.name === ASK_USER_TOOL) {
      const text = (use.input as { question?: unknown } | null)?.question;
      const problem =
        typeof text !== 'string' || text.trim() === '' || text.length > MAX_QUESTION_CHARS
          ? `question: expected a string of 1-${MAX_QUESTION_CHARS} characters`
          : question
            ? 'ask one question per turn: this one was not asked'
            : asked >= MAX_QUESTIONS_PER_LEVEL
              ? `at most ${MAX_QUESTIONS_PER_LEVEL} questions per level: go on without asking`
              : undefined;
      if (problem) reject(use, 'invalid_args', problem);
      else question = { text: text as string, toolUseId: use.toolUseId };
      continue;
    }
    if (calls.length >= MAX_TOOL_CALLS_PER_TURN) {
      reject(
        use,
        'limit_exceeded',
        `At most ${MAX_TOOL_CALLS_PER_TURN} tool calls run per turn; this one was not run: call it again next turn`,
      );
      continue;
    }
    const bytes = jsonByteLength(use.input ?? {});
    if (argsBytes + bytes > budget) {
      reject(use, 'limit_exceeded', oversizeMessage(catalog, use, bytes, budget));
      continue;
    }
    argsBytes += bytes;
    calls.push({
      tool: use.name,
      callId: `${level.name}/${firstCallIndex + calls.length}`,
      args: use.input ?? {},
      toolUseId: use.toolUseId,
    });
  }
  return { calls, rejected, ...(question ? { question } : {}) };
}

/**
 * The answer as the conversation keeps it: a toolUse whose input is over
 * `maxBytes` keeps a stand-in (the call was refused, see {@link oversizeMessage}),
 * a text block over it is cut, so an oversized answer is never sent back to the
 * model nor kept whole.
 */
export function boundedAnswer(message: Message, maxBytes: number): { message: Message; cleaning: string[] } {
  const cleaning: string[] = [];
  const content = message.content.map((block, position): ContentBlock => {
    if ('text' in block && Buffer.byteLength(block.text) > maxBytes) {
      cleaning.push(
        `content[${position}]: a text block of ${Buffer.byteLength(block.text)} bytes was cut to ${maxBytes}`,
      );
      return {
        text: `${Buffer.from(block.text).subarray(0, maxBytes).toString('utf8')}… (cut: the answer was too large)`,
      };
    }
    if ('toolUse' in block) {
      const bytes = jsonByteLength(block.toolUse.input ?? {});
      if (bytes > maxBytes) {
        cleaning.push(
          `content[${position}]: the ${bytes}-byte input of ${block.toolUse.name} was replaced by a stand-in`,
        );
        return {
          toolUse: {
            ...block.toolUse,
            input: { omitted: `${bytes} bytes of arguments, over this step's limit: the call was not run` },
          },
        };
      }
    }
    return block;
  });
  return { message: { role: message.role, content }, cleaning };
}
