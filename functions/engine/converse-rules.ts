/**
 * The Converse API's rules for a conversation, in one place: what the engine
 * checks before every call (so it never sends a conversation Bedrock refuses),
 * what it cleans out of a model's answer before storing it, and what the
 * scripted model (`etp model serve`) checks on every request it receives, as
 * Bedrock does.
 *
 * Sources (Amazon Bedrock API reference, "Converse", "Message", "ContentBlock",
 * "ToolUseBlock", "ToolResultBlock", "ToolSpecification"; user guide, "Carry out
 * a conversation with the Converse API operations" and "Call a tool with the
 * Converse API"), with the error Bedrock returns for each where it has one:
 * - `messages` is a non-empty list; the first message is the user's, roles
 *   alternate user/assistant ("A conversation must start with a user message",
 *   "A conversation must alternate between user and assistant roles"); the
 *   engine always ends on a user message (it asks the model to answer).
 * - every message has a non-empty `content`; a text block is not blank ("The text
 *   field in the ContentBlock object at messages.N.content.M is blank").
 * - `toolUse` only in assistant messages: `toolUseId` 1-64 of `[a-zA-Z0-9_.:-]`,
 *   unique; `name` 1-64 of `[a-zA-Z0-9_-]`; `input` a JSON object.
 * - `toolResult` only in user messages, answering the previous assistant
 *   message: exactly one per `toolUse` of that message and none else ("Expected
 *   toolResult blocks at messages.N.content for the following Ids", "The number of
 *   toolResult blocks … exceeds the number of toolUse blocks of previous turn");
 *   its `content` non-empty (an error result says what went wrong), `status`
 *   `success` or `error`.
 * - a conversation holding toolUse or toolResult blocks comes with a `toolConfig`
 *   ("The toolConfig field must be defined when using toolUse and toolResult
 *   content blocks"); tool names are unique and well formed, each with a JSON
 *   Schema object; `inferenceConfig.maxTokens`, when set, is an integer ≥ 1;
 *   system text blocks are not blank.
 */
import type { ContentBlock, Message } from './model-client';

/** `ToolUseBlock.toolUseId`: 1-64 of these characters. */
export const TOOL_USE_ID = /^[a-zA-Z0-9_.:-]{1,64}$/;
/** `ToolUseBlock.name` and `ToolSpecification.name`: 1-64 of these characters. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** One broken rule: where (`messages[2].content[0]`) and what. */
export interface ConverseProblem {
  readonly at: string;
  readonly problem: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const blank = (text: unknown) => typeof text !== 'string' || text.trim() === '';

/** The one member of a content block (a union: exactly one is set), or undefined. */
function memberOf(block: unknown): string | undefined {
  if (!isObject(block)) return undefined;
  const keys = Object.keys(block).filter((key) => block[key] !== undefined);
  return keys.length === 1 ? keys[0] : undefined;
}

/** Problems of one toolResult block's own fields. */
function toolResultProblems(result: unknown, at: string): ConverseProblem[] {
  if (!isObject(result)) return [{ at, problem: 'toolResult must be an object' }];
  const problems: ConverseProblem[] = [];
  if (typeof result.toolUseId !== 'string' || !TOOL_USE_ID.test(result.toolUseId))
    problems.push({ at, problem: 'toolResult.toolUseId must be 1-64 of [a-zA-Z0-9_.:-]' });
  if (result.status !== undefined && result.status !== 'success' && result.status !== 'error')
    problems.push({
      at,
      problem: `toolResult.status must be success or error, not ${String(result.status)}`,
    });
  if (!Array.isArray(result.content) || result.content.length === 0) {
    problems.push({ at, problem: 'toolResult.content must hold at least one block' });
    return problems;
  }
  result.content.forEach((item: unknown, index: number) => {
    const member = memberOf(item);
    const where = `${at}.toolResult.content[${index}]`;
    if (!member) problems.push({ at: where, problem: 'a toolResult content block has exactly one member' });
    else if (member === 'text' && blank((item as { text?: unknown }).text))
      problems.push({ at: where, problem: 'a toolResult text block must not be blank' });
  });
  return problems;
}

/** Problems of the messages of a conversation, in order. */
export function messageProblems(messages: unknown): ConverseProblem[] {
  if (!Array.isArray(messages) || messages.length === 0)
    return [{ at: 'messages', problem: 'messages must be a non-empty list' }];
  const problems: ConverseProblem[] = [];
  const seenIds = new Set<string>();
  let previousUses: string[] = [];
  messages.forEach((message: unknown, index: number) => {
    const at = `messages[${index}]`;
    if (!isObject(message)) {
      problems.push({ at, problem: 'a message must be an object with role and content' });
      previousUses = [];
      return;
    }
    const role = message.role;
    if (role !== 'user' && role !== 'assistant')
      problems.push({ at, problem: `role must be user or assistant, not ${String(role)}` });
    if (index === 0 && role !== 'user')
      problems.push({ at, problem: 'a conversation must start with a user message' });
    const before = index > 0 ? (messages[index - 1] as { role?: unknown } | null)?.role : undefined;
    if (index > 0 && role === before)
      problems.push({ at, problem: 'a conversation must alternate between user and assistant roles' });
    const content = message.content;
    if (!Array.isArray(content) || content.length === 0) {
      problems.push({ at, problem: 'content must hold at least one block' });
      if (role === 'user' && previousUses.length > 0)
        problems.push({ at, problem: `expected toolResult blocks for ${previousUses.join(', ')}` });
      previousUses = [];
      return;
    }
    const uses: string[] = [];
    const answered: string[] = [];
    content.forEach((block: unknown, position: number) => {
      const where = `${at}.content[${position}]`;
      const member = memberOf(block);
      if (!member) {
        problems.push({
          at: where,
          problem: 'a content block has exactly one member (text, toolUse, toolResult…)',
        });
        return;
      }
      const value = (block as Record<string, unknown>)[member];
      if (member === 'text' && blank(value))
        problems.push({ at: where, problem: 'the text field is blank: a text block needs text' });
      if (member === 'toolUse') {
        if (role !== 'assistant')
          problems.push({ at: where, problem: 'toolUse blocks belong to assistant messages' });
        const use = isObject(value) ? value : {};
        const id = use.toolUseId;
        if (typeof id !== 'string' || !TOOL_USE_ID.test(id))
          problems.push({ at: where, problem: 'toolUse.toolUseId must be 1-64 of [a-zA-Z0-9_.:-]' });
        else if (seenIds.has(id)) problems.push({ at: where, problem: `toolUseId ${id} is used twice` });
        else {
          seenIds.add(id);
          uses.push(id);
        }
        if (typeof use.name !== 'string' || !TOOL_NAME.test(use.name))
          problems.push({ at: where, problem: 'toolUse.name must be 1-64 of [a-zA-Z0-9_-]' });
        if (!isObject(use.input))
          problems.push({ at: where, problem: 'toolUse.input must be a JSON object' });
      }
      if (member === 'toolResult') {
        if (role !== 'user')
          problems.push({ at: where, problem: 'toolResult blocks belong to user messages' });
        problems.push(...toolResultProblems(value, where));
        const id = isObject(value) ? value.toolUseId : undefined;
        if (typeof id === 'string') {
          if (!previousUses.includes(id))
            problems.push({
              at: where,
              problem: `toolResult ${id} answers no toolUse of the previous message`,
            });
          else if (answered.includes(id))
            problems.push({ at: where, problem: `toolUse ${id} is answered twice` });
          else answered.push(id);
        }
      }
    });
    if (role === 'user') {
      const missing = previousUses.filter((id) => !answered.includes(id));
      if (missing.length > 0)
        problems.push({
          at,
          problem: `expected toolResult blocks for the previous turn's toolUse ${missing.join(', ')}`,
        });
    }
    previousUses = role === 'assistant' ? uses : [];
  });
  const last = messages[messages.length - 1] as { role?: unknown } | null;
  if (last?.role !== 'user')
    problems.push({ at: `messages[${messages.length - 1}]`, problem: 'the last message must be the user’s' });
  return problems;
}

/** A Converse request body as sent on the wire (the fields these rules read). */
export interface ConverseRequestBody {
  readonly messages?: unknown;
  readonly system?: unknown;
  readonly toolConfig?: unknown;
  readonly inferenceConfig?: unknown;
}

/** Every rule a Converse request breaks: its messages, system prompt, tools and output budget. */
export function requestProblems(body: ConverseRequestBody): ConverseProblem[] {
  const problems = messageProblems(body.messages);
  if (body.system !== undefined) {
    if (!Array.isArray(body.system))
      problems.push({ at: 'system', problem: 'system must be a list of blocks' });
    else
      body.system.forEach((block: unknown, index: number) => {
        if (isObject(block) && 'text' in block && blank(block.text))
          problems.push({ at: `system[${index}]`, problem: 'a system text block must not be blank' });
      });
  }
  const tools = isObject(body.toolConfig) ? body.toolConfig.tools : undefined;
  const usesTools = JSON.stringify(body.messages ?? []).match(/"tool(Use|Result)":/);
  if (body.toolConfig !== undefined && (!Array.isArray(tools) || tools.length === 0))
    problems.push({ at: 'toolConfig.tools', problem: 'toolConfig.tools must hold at least one tool' });
  else if (usesTools && !Array.isArray(tools))
    problems.push({
      at: 'toolConfig',
      problem: 'the toolConfig field must be defined when using toolUse and toolResult content blocks',
    });
  const names = new Set<string>();
  (Array.isArray(tools) ? tools : []).forEach((tool: unknown, index: number) => {
    const at = `toolConfig.tools[${index}]`;
    const spec = isObject(tool) && isObject(tool.toolSpec) ? tool.toolSpec : undefined;
    if (!spec) {
      problems.push({ at, problem: 'a tool is { toolSpec: { name, description, inputSchema } }' });
      return;
    }
    if (typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name))
      problems.push({ at, problem: 'toolSpec.name must be 1-64 of [a-zA-Z0-9_-]' });
    else if (names.has(spec.name)) problems.push({ at, problem: `tool ${spec.name} is defined twice` });
    else names.add(spec.name);
    if (spec.description !== undefined && blank(spec.description))
      problems.push({ at, problem: 'toolSpec.description must not be blank' });
    const schema = isObject(spec.inputSchema) ? spec.inputSchema.json : undefined;
    if (!isObject(schema))
      problems.push({ at, problem: 'toolSpec.inputSchema.json must be a JSON Schema object' });
  });
  const maxTokens = isObject(body.inferenceConfig) ? body.inferenceConfig.maxTokens : undefined;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1))
    problems.push({ at: 'inferenceConfig.maxTokens', problem: 'maxTokens must be an integer of at least 1' });
  return problems;
}

/** What cleaning changed in a model's answer, one line each, for the log. */
export type Cleaning = readonly string[];

/** A toolUse the cleaning had to change: the engine answers it with an error instead of running it. */
export interface RepairedToolUse {
  readonly toolUseId: string;
  readonly name: string;
  readonly problem: string;
}

/**
 * A model's answer made fit to be sent back: blank text blocks dropped; a
 * toolUse with a malformed id given a fresh one, with a malformed name renamed
 * `invalid_tool_name`, with an input that is no object given `{}` (those calls
 * are never run: `repaired` lists them for an error toolResult); an answer left
 * empty holds one text block saying so.
 *
 * @param fresh - makes a toolUseId unused in the conversation (`engine_<turn>_<n>`).
 */
export function cleanAnswer(
  message: Message,
  usedIds: ReadonlySet<string>,
  fresh: (position: number) => string,
): { message: Message; cleaning: Cleaning; repaired: RepairedToolUse[] } {
  const cleaning: string[] = [];
  const repaired: RepairedToolUse[] = [];
  const ids = new Set(usedIds);
  const content: ContentBlock[] = [];
  message.content.forEach((block, position) => {
    if ('text' in block) {
      if (blank(block.text)) cleaning.push(`content[${position}]: a blank text block was dropped`);
      else content.push(block);
      return;
    }
    if (!('toolUse' in block)) {
      content.push(block);
      return;
    }
    const use = block.toolUse;
    const problems: string[] = [];
    let { toolUseId, name, input } = use;
    if (!TOOL_USE_ID.test(toolUseId) || ids.has(toolUseId)) {
      const was = toolUseId;
      toolUseId = fresh(position);
      cleaning.push(
        `content[${position}]: toolUseId ${JSON.stringify(was.slice(0, 80))} replaced by ${toolUseId}`,
      );
    }
    if (!TOOL_NAME.test(name)) {
      problems.push(
        `the tool name ${JSON.stringify(name.slice(0, 80))} is not a tool name (1-64 of [a-zA-Z0-9_-])`,
      );
      cleaning.push(`content[${position}]: tool name ${JSON.stringify(name.slice(0, 80))} replaced`);
      name = 'invalid_tool_name';
    }
    if (!isObject(input)) {
      problems.push('its input was not a JSON object');
      cleaning.push(`content[${position}]: a toolUse input that was no object replaced by {}`);
      input = {};
    }
    ids.add(toolUseId);
    content.push({ toolUse: { toolUseId, name, input } });
    if (problems.length > 0)
      repaired.push({ toolUseId, name: use.name.slice(0, 80), problem: problems.join('; ') });
  });
  if (content.length === 0) {
    content.push({ text: '(no answer)' });
    cleaning.push('the answer was empty: a "(no answer)" text block stands for it');
  }
  return { message: { role: 'assistant', content }, cleaning, repaired };
}

/** Every toolUseId of a conversation. */
export function toolUseIdsOf(messages: readonly Message[]): Set<string> {
  return new Set(
    messages.flatMap((message) =>
      message.content.flatMap((block) => ('toolUse' in block ? [block.toolUse.toolUseId] : [])),
    ),
  );
}
