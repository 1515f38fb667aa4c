import { COMPACT_KEEP_MESSAGES, compactConversation } from '../../../functions/engine/compaction';
import { messageProblems } from '../../../functions/engine/converse-rules';
import type { Message } from '../../../functions/engine/model-client';
import { ABSENT, walk } from '../../../functions/engine/pins';

/** A conversation of `turns` tool turns, each result `bytes` of JSON, with a claim-check reference every other turn. */
function conversation(turns: number, bytes: number): Message[] {
  const messages: Message[] = [{ role: 'user', content: [{ text: 'Audit the account.' }] }];
  for (let n = 0; n < turns; n++) {
    messages.push({
      role: 'assistant',
      content: [{ toolUse: { toolUseId: `t${n}`, name: 'list_files', input: {} } }],
    });
    const json = {
      ok: true,
      summary: `result ${n}`,
      value: 'v'.repeat(bytes),
      ...(n % 2 === 0
        ? { resultRef: { uri: `s3://b/runs/t/s/r/r${n}.json`, bytes: 99_999, sha256: 'abc' } }
        : {}),
    };
    messages.push({
      role: 'user',
      content: [{ toolResult: { toolUseId: `t${n}`, content: [{ json }], status: 'success' } }],
    });
  }
  return messages;
}

describe('compactConversation', () => {
  it('shortens large results, folds the oldest turns and still follows every Converse rule', () => {
    // Act
    const compacted = compactConversation({ system: 'You audit.', messages: conversation(6, 10_000) });

    // Assess
    const messages = compacted.conversation.messages;
    expect(messageProblems(messages)).toEqual([]);
    expect(compacted.folded).toBe(12 - COMPACT_KEEP_MESSAGES);
    expect(messages).toHaveLength(1 + COMPACT_KEEP_MESSAGES);
    expect(JSON.stringify(messages[0])).toContain('removed the 8 earlier messages');
    expect(compacted.shortened).toBe(6);
    const kept = JSON.stringify(messages);
    expect(kept).not.toContain('v'.repeat(100));
    expect(kept).toContain('s3://b/runs/t/s/r/r4.json');
    expect(kept.length).toBeLessThan(4_000);
  });

  it('leaves a short conversation whole but for its large results', () => {
    const compacted = compactConversation({ system: 'You audit.', messages: conversation(1, 100) });
    expect(compacted).toMatchObject({ folded: 0, shortened: 0 });
    expect(compacted.conversation.messages).toEqual(conversation(1, 100));
  });
});

describe('walk: a pin reference into an earlier value', () => {
  const value = { leads: [{ id: 'L1', tags: ['a'] }, { id: 'L2', tags: ['b', 'c'] }, { name: 'no id' }] };

  it('takes every item of a list with *, skipping items without the field', () => {
    expect(walk(value, ['leads', '*', 'id'])).toEqual(['L1', 'L2']);
    expect(walk(value, ['leads', '*', 'tags', '*'])).toEqual(['a', 'b', 'c']);
  });

  it('follows names and indexes, own properties only', () => {
    expect(walk(value, ['leads', '1', 'id'])).toBe('L2');
    expect(walk(value, ['leads', '7', 'id'])).toBe(ABSENT);
    expect(walk(value, ['constructor'])).toBe(ABSENT);
  });
});
