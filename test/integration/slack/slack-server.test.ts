import { DEFAULT_BOT_TOKEN, type LocalSlack, startSlackServer } from '../../helpers/slack-server';

/** The local Slack itself: the parts the WebClient does not exercise (JSON arguments, missing auth). */
let slack: LocalSlack;

async function postJson(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(`${slack.apiUrl}chat.postMessage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

beforeEach(async () => {
  slack = await startSlackServer();
});

afterEach(async () => {
  await slack.stop();
});

describe('local Slack Web API', () => {
  it('accepts JSON arguments with a bearer token, resolving the channel by ID', async () => {
    // Act
    const answer = await postJson(
      { channel: 'C0123ABCD', text: 'deploy finished', thread_ts: '1712345678.000100' },
      { authorization: `Bearer ${slack.botToken}` },
    );

    // Assess
    expect(answer).toEqual({
      ok: true,
      channel: 'C0123ABCD',
      ts: slack.messages[0]?.ts,
      message: {
        type: 'message',
        subtype: 'bot_message',
        text: 'deploy finished',
        bot_id: 'B0LOCALBOT',
        ts: slack.messages[0]?.ts,
        thread_ts: '1712345678.000100',
      },
    });
    expect(slack.messages).toEqual([
      {
        channel: 'C0123ABCD',
        text: 'deploy finished',
        thread_ts: '1712345678.000100',
        ts: expect.stringMatching(/^\d+\.000001$/),
        encoding: 'json',
      },
    ]);
  });

  it.each([
    ['no token', {}, { channel: '#general', text: 'hi' }, 'not_authed'],
    [
      'no text or blocks',
      { authorization: `Bearer ${DEFAULT_BOT_TOKEN}` },
      { channel: '#general' },
      'no_text',
    ],
    [
      'blocks that are not an array',
      { authorization: `Bearer ${DEFAULT_BOT_TOKEN}` },
      { channel: '#general', text: 'hi', blocks: '{"type":"section"' },
      'invalid_blocks_format',
    ],
    [
      'an unknown channel',
      { authorization: `Bearer ${DEFAULT_BOT_TOKEN}` },
      { channel: '#random', text: 'hi' },
      'channel_not_found',
    ],
  ])('answers ok:false for %s', async (_label, headers, body, error) => {
    // Act
    const answer = await postJson(body, headers);

    // Assess
    expect(answer).toEqual({ ok: false, error });
    expect(slack.messages).toEqual([]);
  });

  it('answers unknown_method for a method it does not implement', async () => {
    // Act
    const response = await fetch(`${slack.apiUrl}conversations.list`, { method: 'POST' });

    // Assess
    expect(await response.json()).toEqual({ ok: false, error: 'unknown_method' });
  });
});
