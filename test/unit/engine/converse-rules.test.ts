import {
  cleanAnswer,
  messageProblems,
  requestProblems,
  TOOL_NAME,
  TOOL_USE_ID,
} from '../../../functions/engine/converse-rules';
import type { Message } from '../../../functions/engine/model-client';

/** A valid exchange: prompt, a tool call, its result. */
const prompt: Message = { role: 'user', content: [{ text: 'Go.' }] };
const use = (toolUseId: string, name = 'list_files', input: unknown = {}) => ({
  toolUse: { toolUseId, name, input },
});
const result = (toolUseId: string, content: unknown[] = [{ json: { ok: true } }], status = 'success') => ({
  toolResult: { toolUseId, content, status },
});
const problemsOf = (messages: unknown[]) => messageProblems(messages).map((p) => `${p.at}: ${p.problem}`);

describe('the Converse rules: one test per rule', () => {
  it('accepts a valid conversation', () => {
    // Act / Assess
    expect(
      problemsOf([
        prompt,
        { role: 'assistant', content: [{ text: 'Let me look.' }, use('t1')] },
        { role: 'user', content: [result('t1')] },
      ]),
    ).toEqual([]);
  });

  it('needs a non-empty list of messages', () => {
    expect(problemsOf([])).toEqual(['messages: messages must be a non-empty list']);
  });

  it('starts with a user message', () => {
    expect(problemsOf([{ role: 'assistant', content: [{ text: 'Hi' }] }, prompt])).toContain(
      'messages[0]: a conversation must start with a user message',
    );
  });

  it('alternates user and assistant roles', () => {
    expect(problemsOf([prompt, prompt])).toContain(
      'messages[1]: a conversation must alternate between user and assistant roles',
    );
  });

  it('knows only the user and assistant roles', () => {
    expect(problemsOf([{ role: 'system', content: [{ text: 'x' }] }])).toContain(
      'messages[0]: role must be user or assistant, not system',
    );
  });

  it('needs content in every message', () => {
    expect(problemsOf([{ role: 'user', content: [] }])).toContain(
      'messages[0]: content must hold at least one block',
    );
  });

  it.each(['', '   ', '\n\t'])('refuses a blank text block (%j)', (text) => {
    expect(problemsOf([{ role: 'user', content: [{ text }] }])).toContain(
      'messages[0].content[0]: the text field is blank: a text block needs text',
    );
  });

  it('takes exactly one member per content block', () => {
    expect(problemsOf([{ role: 'user', content: [{ text: 'a', json: {} }] }])[0]).toContain(
      'a content block has exactly one member',
    );
  });

  it('puts toolUse in assistant messages and toolResult in user messages', () => {
    const problems = problemsOf([{ role: 'user', content: [use('t1')] }]);
    expect(problems).toContain('messages[0].content[0]: toolUse blocks belong to assistant messages');
    expect(problemsOf([prompt, { role: 'assistant', content: [result('t1')] }])).toContain(
      'messages[1].content[0]: toolResult blocks belong to user messages',
    );
  });

  it('checks toolUse ids, names and inputs', () => {
    const problems = problemsOf([
      prompt,
      { role: 'assistant', content: [use('bad id', 'bad.name', 'text')] },
    ]);
    expect(problems).toEqual(
      expect.arrayContaining([
        'messages[1].content[0]: toolUse.toolUseId must be 1-64 of [a-zA-Z0-9_.:-]',
        'messages[1].content[0]: toolUse.name must be 1-64 of [a-zA-Z0-9_-]',
        'messages[1].content[0]: toolUse.input must be a JSON object',
      ]),
    );
    expect(TOOL_USE_ID.test('tooluse_abc.1:2-3')).toBe(true);
    expect(TOOL_NAME.test('a'.repeat(65))).toBe(false);
  });

  it('refuses a toolUseId used twice', () => {
    expect(
      problemsOf([
        prompt,
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1')] },
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1')] },
      ]),
    ).toContain('messages[3].content[0]: toolUseId t1 is used twice');
  });

  it('needs a toolResult for every toolUse of the previous turn', () => {
    expect(
      problemsOf([
        prompt,
        { role: 'assistant', content: [use('t1'), use('t2')] },
        { role: 'user', content: [result('t1')] },
      ]),
    ).toContain("messages[2]: expected toolResult blocks for the previous turn's toolUse t2");
  });

  it('refuses a toolResult that answers no toolUse of the previous turn, or answers one twice', () => {
    const problems = problemsOf([
      prompt,
      { role: 'assistant', content: [use('t1')] },
      { role: 'user', content: [result('t1'), result('t1'), result('t9')] },
    ]);
    expect(problems).toEqual(
      expect.arrayContaining([
        'messages[2].content[1]: toolUse t1 is answered twice',
        'messages[2].content[2]: toolResult t9 answers no toolUse of the previous message',
      ]),
    );
  });

  it('needs content in a toolResult, an error one too, and no blank text in it', () => {
    const problems = problemsOf([
      prompt,
      { role: 'assistant', content: [use('t1'), use('t2')] },
      { role: 'user', content: [result('t1', [], 'error'), result('t2', [{ text: ' ' }])] },
    ]);
    expect(problems).toEqual(
      expect.arrayContaining([
        'messages[2].content[0]: toolResult.content must hold at least one block',
        'messages[2].content[1].toolResult.content[0]: a toolResult text block must not be blank',
      ]),
    );
  });

  it('takes success or error as a toolResult status', () => {
    expect(
      problemsOf([
        prompt,
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1', undefined, 'done')] },
      ]),
    ).toContain('messages[2].content[0]: toolResult.status must be success or error, not done');
  });

  it('ends on a user message', () => {
    expect(problemsOf([prompt, { role: 'assistant', content: [{ text: 'Done' }] }])).toContain(
      'messages[1]: the last message must be the user’s',
    );
  });

  it('needs a toolConfig when the conversation holds tool blocks, with well-formed, unique tools', () => {
    const messages = [
      prompt,
      { role: 'assistant', content: [use('t1')] },
      { role: 'user', content: [result('t1')] },
    ];
    expect(requestProblems({ messages }).map((p) => p.problem)).toContain(
      'the toolConfig field must be defined when using toolUse and toolResult content blocks',
    );
    const spec = { name: 'list_files', description: 'Lists.', inputSchema: { json: { type: 'object' } } };
    expect(
      requestProblems({ messages, toolConfig: { tools: [{ toolSpec: spec }, { toolSpec: spec }] } }).map(
        (p) => p.problem,
      ),
    ).toEqual(['tool list_files is defined twice']);
    expect(requestProblems({ messages, toolConfig: { tools: [] } }).map((p) => p.problem)).toEqual([
      'toolConfig.tools must hold at least one tool',
    ]);
  });

  it('refuses a blank system prompt and a maxTokens below 1', () => {
    expect(
      requestProblems({ messages: [prompt], system: [{ text: ' ' }], inferenceConfig: { maxTokens: 0 } }).map(
        (p) => `${p.at}: ${p.problem}`,
      ),
    ).toEqual([
      'system[0]: a system text block must not be blank',
      'inferenceConfig.maxTokens: maxTokens must be an integer of at least 1',
    ]);
  });
});

describe('cleanAnswer: a model answer made fit to send back', () => {
  const fresh = (position: number) => `engine_1_${position}`;

  it('drops blank text blocks and says so', () => {
    // Act
    const out = cleanAnswer(
      { role: 'assistant', content: [{ text: '  ' }, { text: 'Hi' }] },
      new Set(),
      fresh,
    );

    // Assess
    expect(out.message.content).toEqual([{ text: 'Hi' }]);
    expect(out.cleaning).toEqual(['content[0]: a blank text block was dropped']);
  });

  it('stands for an answer left empty with a text block', () => {
    const out = cleanAnswer({ role: 'assistant', content: [{ text: '' }] }, new Set(), fresh);
    expect(out.message.content).toEqual([{ text: '(no answer)' }]);
  });

  it('gives a malformed or reused toolUseId a fresh one, and marks a bad name or input for an error result', () => {
    // Act
    const out = cleanAnswer(
      {
        role: 'assistant',
        content: [use('has space'), use('t1'), use('t2', 'functions.finish', 'not an object')],
      },
      new Set(['t1']),
      fresh,
    );

    // Assess
    const ids = out.message.content.map((b) => ('toolUse' in b ? b.toolUse.toolUseId : ''));
    expect(ids).toEqual(['engine_1_0', 'engine_1_1', 't2']);
    expect(out.message.content[2]).toEqual({
      toolUse: { toolUseId: 't2', name: 'invalid_tool_name', input: {} },
    });
    expect(out.repaired).toEqual([
      {
        toolUseId: 't2',
        name: 'functions.finish',
        problem:
          'the tool name "functions.finish" is not a tool name (1-64 of [a-zA-Z0-9_-]); its input was not a JSON object',
      },
    ]);
    // What is left breaks no rule once answered.
    expect(
      messageProblems([prompt, out.message, { role: 'user', content: ids.map((id) => result(id)) }]),
    ).toEqual([]);
  });
});
