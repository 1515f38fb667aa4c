import { applyPins, type PinnedArgs } from '../../../functions/dispatcher/pins';

const PINNED: PinnedArgs = { s: { act: { slack_post_threaded: ['channel', 'thread_ts'] } } };
const envelope = (args: unknown, pins?: unknown) => ({
  scenario: 's',
  level: 'act',
  tool: 'slack_post_threaded',
  args,
  pins,
});
const PINS = {
  slack_post_threaded: { channel: { value: 'C0PINNED' }, thread_ts: { one_of: ['1.000100', '2.000200'] } },
};

describe('applyPins: the dispatcher holds a level’s pinned arguments', () => {
  it('applies a fixed pin the call leaves out, and accepts the same value given', () => {
    expect(applyPins(PINNED, envelope({ thread_ts: '1.000100', text: 'hi' }, PINS))).toEqual({
      thread_ts: '1.000100',
      text: 'hi',
      channel: 'C0PINNED',
    });
    expect(applyPins(PINNED, envelope('{"channel":"C0PINNED","text":"hi"}', PINS))).toEqual({
      channel: 'C0PINNED',
      text: 'hi',
    });
  });

  it('refuses a call that sets a fixed argument otherwise, naming it', () => {
    expect(() => applyPins(PINNED, envelope({ channel: '#attacker', text: 'x' }, PINS))).toThrow(
      expect.objectContaining({
        code: 'tool_not_allowed',
        message:
          'slack_post_threaded: argument "channel" is pinned by level "act": the scenario sets it: leave it out of the call',
      }),
    );
  });

  it('refuses a value outside a restricted pin, item by item for a list', () => {
    expect(() => applyPins(PINNED, envelope({ thread_ts: '9.000900' }, PINS))).toThrow(
      'argument "thread_ts" is pinned by level "act": "9.000900" is not among the allowed values ("1.000100", "2.000200")',
    );
    expect(() => applyPins(PINNED, envelope({ thread_ts: ['1.000100', '9.000900'] }, PINS))).toThrow(
      '"9.000900" is not among the allowed values',
    );
  });

  it('fails closed: no pins in the envelope, an unavailable value, an empty set', () => {
    expect(() => applyPins(PINNED, envelope({ text: 'x' }))).toThrow(
      'argument "channel" is pinned by level "act": the call carries no pinned value for it',
    );
    expect(() =>
      applyPins(
        PINNED,
        envelope(
          {},
          { slack_post_threaded: { channel: { unavailable: '{{x}} is absent' }, thread_ts: { one_of: [] } } },
        ),
      ),
    ).toThrow('this run has no value for it ({{x}} is absent), so the tool cannot be called');
    expect(() =>
      applyPins(
        PINNED,
        envelope(
          { thread_ts: '1.000100' },
          { slack_post_threaded: { channel: { value: 'C' }, thread_ts: { one_of: [] } } },
        ),
      ),
    ).toThrow('no value is allowed in this run');
  });

  it('leaves the args of levels and tools without pins as they are, inherited names included', () => {
    const args = { channel: 'C1', text: 'x' };
    expect(applyPins(PINNED, { ...envelope(args), tool: 'slack_post_message' })).toBe(args);
    expect(applyPins(PINNED, { ...envelope(args), level: 'constructor' })).toBe(args);
    expect(applyPins(undefined, envelope(args))).toBe(args);
  });
});
