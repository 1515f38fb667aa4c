import type { Tool } from '../../../functions/runtime/spec';
import { slackChannelHistoryTool } from '../../../functions/tools/slack/channel-history';
import { slackPostBlocksTool } from '../../../functions/tools/slack/post-blocks';
import { slackPostThreadedTool } from '../../../functions/tools/slack/post-threaded';
import type { LocalSlack } from '../../helpers/slack-server';
import { callSlackTool, failure, slackSecrets, success, useLocalSlack } from '../../helpers/slack-tool';

const blocksTool = slackPostBlocksTool as unknown as Tool;
const threadedTool = slackPostThreadedTool as unknown as Tool;
const historyTool = slackChannelHistoryTool as unknown as Tool;
let slack: LocalSlack;

const bot = () => slackSecrets(JSON.stringify({ bot_token: slack.botToken }));
const webhookOnly = () => slackSecrets(JSON.stringify({ webhook_url: slack.webhookUrl }));
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

const localSlack = useLocalSlack();
beforeEach(() => {
  slack = localSlack.current();
});

describe('slack_post_blocks', () => {
  it('posts 51 blocks as a message of 50 and a threaded follow-up of 1', async () => {
    // Prepare
    const blocks = Array.from({ length: 51 }, (_, i) => section(`row ${i}`));

    // Act
    const result = success(await callSlackTool(blocksTool, { channel: 'C0AWSPULSE', blocks }, bot()));

    // Assess
    const [parent, reply] = slack.messages;
    expect(slack.messages.map((m) => m.blocks?.length)).toEqual([50, 1]);
    expect(reply?.thread_ts).toBe(parent?.ts);
    expect(parent?.text).toBe('row 0');
    expect(reply?.text).toBe('row 0 (2/2)');
    expect(result.value).toMatchObject({
      messages: 2,
      ts: parent?.ts,
      thread_ts: parent?.ts,
      posted_ts: [parent?.ts, reply?.ts],
    });
  });

  it('keeps each message under 12,000 characters of block text', async () => {
    // Prepare: six sections of 2,500 characters (15,000 in all).
    const blocks = Array.from({ length: 6 }, (_, i) => section(`${i}`.repeat(2_500)));

    // Act
    success(await callSlackTool(blocksTool, { channel: 'C0AWSPULSE', blocks }, bot()));

    // Assess
    expect(slack.messages.map((m) => m.blocks?.length)).toEqual([4, 2]);
  });

  it.each([
    [
      'a section text of 3,001 characters',
      [section('x'.repeat(3_001))],
      '/blocks/0/text/text',
      'section text is 3001 characters; at most 3000',
    ],
    [
      'a header of 151 characters',
      [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }],
      '/blocks/0/text/text',
      'header text is 151 characters; at most 150',
    ],
    [
      'a section with 11 fields',
      [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) }],
      '/blocks/0/fields',
      'a section has 11 fields; at most 10',
    ],
    [
      'an empty mrkdwn text',
      [section('ok'), { type: 'context', elements: [{ type: 'mrkdwn', text: '' }] }],
      '/blocks/1/elements/0/text',
      'a mrkdwn text object needs a non-empty string text',
    ],
    [
      'a block_id of 256 characters',
      [{ ...section('ok'), block_id: 'b'.repeat(256) }],
      '/blocks/0/block_id',
      'block_id is 256 characters; at most 255',
    ],
    [
      'an actions block of 26 elements',
      [
        {
          type: 'actions',
          elements: Array.from({ length: 26 }, (_, i) => ({
            type: 'button',
            text: { type: 'plain_text', text: `b${i}` },
            action_id: `a${i}`,
          })),
        },
      ],
      '/blocks/0/elements',
      'an actions block has 26 elements; at most 25',
    ],
    [
      // Past the first message's 50 blocks: refused before the first message is posted, not after.
      'an image alt_text of 2,001 characters in the second message',
      [
        ...Array.from({ length: 55 }, (_, i) => section(`row ${i}`)),
        { type: 'image', image_url: 'https://example.com/cpu.png', alt_text: 'a'.repeat(2_001) },
      ],
      '/blocks/55/alt_text',
      'image alt_text is 2001 characters; at most 2000',
    ],
    [
      'an image_url of 3,001 characters',
      [{ type: 'image', image_url: `https://example.com/${'p'.repeat(2_981)}`, alt_text: 'cpu' }],
      '/blocks/0/image_url',
      'image_url is 3001 characters; at most 3000',
    ],
    [
      'an image title of 2,001 characters',
      [
        {
          type: 'image',
          image_url: 'https://example.com/cpu.png',
          alt_text: 'cpu',
          title: { type: 'plain_text', text: 't'.repeat(2_001) },
        },
      ],
      '/blocks/0/title/text',
      'image title is 2001 characters; at most 2000',
    ],
  ])('refuses %s before any call, with its JSON pointer', async (_label, blocks, path, message) => {
    // Act
    const result = failure(await callSlackTool(blocksTool, { channel: 'C0AWSPULSE', blocks }, bot()));

    // Assess
    expect(result.error).toMatchObject({
      code: 'invalid_args',
      retryable: false,
      details: { violations: [{ path, message }] },
    });
    expect(slack.requests).toEqual([]);
  });

  it('refuses a notification text of only white space before any call', async () => {
    // Act
    const result = failure(
      await callSlackTool(blocksTool, { channel: 'C0AWSPULSE', blocks: [section('ok')], text: ' ' }, bot()),
    );

    // Assess
    expect(result.error).toMatchObject({
      code: 'invalid_args',
      details: {
        violations: [{ path: '/text', message: expect.stringMatching(/^text has nothing to show/) }],
      },
    });
    expect(slack.requests).toEqual([]);
  });

  it('takes the notification fallback from the first block text that is not blank', async () => {
    // Prepare
    const blank = { type: 'header', text: { type: 'plain_text', text: '   ' } };

    // Act
    success(
      await callSlackTool(
        blocksTool,
        { channel: 'C0AWSPULSE', blocks: [blank, section('disk full')] },
        bot(),
      ),
    );
    success(
      await callSlackTool(
        blocksTool,
        { channel: 'C0AWSPULSE', blocks: [blank, { type: 'divider' }] },
        bot(),
        { callId: 'report/1' },
      ),
    );

    // Assess: a text of only white space is no fallback (a blank text is refused, and shows nothing).
    expect(slack.messages.map((m) => m.text)).toEqual(['disk full', 'Message']);
  });

  it('takes the fallback from the words of a text that opens with more white space than a fallback holds', async () => {
    // Act: 200 newlines before the words (a section takes 3,000 characters; the fallback 150)
    success(
      await callSlackTool(
        blocksTool,
        { channel: 'C0AWSPULSE', blocks: [section(`${'\n'.repeat(200)}disk full`)] },
        bot(),
      ),
    );

    // Assess: the notification says the words, not nothing
    expect(slack.messages.map((m) => m.text)).toEqual(['disk full']);
  });

  it('refuses content that would take more than 20 messages, before any call', async () => {
    // Prepare: 21 messages' worth of sections (4 × 3,000 characters each).
    const blocks = Array.from({ length: 84 }, () => section('y'.repeat(3_000)));

    // Act
    const result = failure(await callSlackTool(blocksTool, { channel: 'C0AWSPULSE', blocks }, bot()));

    // Assess
    expect(result.error.code).toBe('invalid_args');
    expect(result.error.message).toMatch(/^The content would take 21 messages; one call posts at most 20/);
    expect(slack.requests).toEqual([]);
  });

  it("passes Slack's own invalid_blocks pointer to the caller", async () => {
    // Act
    const result = failure(
      await callSlackTool(
        blocksTool,
        { channel: 'C0AWSPULSE', blocks: [{ type: 'carousel', items: [] }] },
        bot(),
      ),
    );

    // Assess
    expect(result.error).toMatchObject({
      code: 'invalid_args',
      details: {
        slackError: 'invalid_blocks',
        violations: [{ pointer: '/blocks/0/type', message: 'unsupported type' }],
      },
    });
    expect(slack.messages).toEqual([]);
  });

  it('escapes mrkdwn text objects and the fallback, renders segments, leaves plain_text alone', async () => {
    // Prepare
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'Tags <!channel> & co' } },
      section('owner=<!here>'),
      {
        type: 'section',
        text: { type: 'mrkdwn', text: ['see ', { link: 'https://example.com/a', label: 'runbook' }] },
      },
    ];

    // Act
    success(await callSlackTool(blocksTool, { channel: 'C0AWSPULSE', blocks }, bot()));

    // Assess
    const [message] = slack.messages;
    expect(message?.text).toBe('Tags &lt;!channel&gt; &amp; co');
    expect(message?.blocks).toEqual([
      { type: 'header', text: { type: 'plain_text', text: 'Tags <!channel> & co' } },
      section('owner=&lt;!here&gt;'),
      section('see <https://example.com/a|runbook>'),
    ]);
  });

  it('posts blocks through the incoming webhook', async () => {
    // Act
    const result = success(
      await callSlackTool(blocksTool, { channel: 'C0AWSPULSE', blocks: [section('hi')] }, webhookOnly()),
    );

    // Assess
    expect(result.value).toMatchObject({ via: 'webhook', messages: 1 });
    expect(slack.webhookDeliveries.map((d) => d.payload)).toEqual([
      { text: 'hi', blocks: [section('hi')], unfurl_links: false, unfurl_media: false },
    ]);
  });
});

describe('slack_post_threaded', () => {
  it('replies in the thread and returns ts and thread_ts for chaining', async () => {
    // Prepare
    const parent = '1712345678.000100';

    // Act
    const result = success(
      await callSlackTool(
        threadedTool,
        { channel: 'C0AWSPULSE', thread_ts: parent, text: 'a < b', broadcast: true },
        bot(),
      ),
    );

    // Assess
    const [reply] = slack.messages;
    expect(reply).toMatchObject({ thread_ts: parent, text: 'a &lt; b', reply_broadcast: true });
    expect(result.value).toMatchObject({ ts: reply?.ts, thread_ts: parent, messages: 1 });
  });

  it.each([
    ['a number', 1712345678.0001],
    ['a ts with too few decimals', '1712345678.0001'],
    ['a date', '2026-03-31T08:00:00Z'],
  ])('refuses thread_ts given as %s, before any call', async (_label, threadTs) => {
    // Act
    const result = failure(
      await callSlackTool(threadedTool, { channel: 'C0AWSPULSE', thread_ts: threadTs, text: 'hi' }, bot()),
    );

    // Assess
    expect(result.error.code).toBe('invalid_args');
    expect(JSON.stringify(result.error.details)).toMatch(/1712345678\.000100/);
    expect(slack.requests).toEqual([]);
  });

  it('answers secret_invalid, clearly, when the tenant has only a webhook', async () => {
    // Act
    const result = failure(
      await callSlackTool(
        threadedTool,
        { channel: 'C0AWSPULSE', thread_ts: '1712345678.000100', text: 'hi' },
        webhookOnly(),
      ),
    );

    // Assess
    expect(result.error).toMatchObject({ code: 'secret_invalid', retryable: false, service: 'slack' });
    expect(result.error.message).toMatch(/^slack_post_threaded needs a bot token/);
    expect(slack.requests).toEqual([]);
  });
});

describe('slack_channel_history', () => {
  /** Posts `count` messages (oldest first) through the server's own API. */
  async function seed(count: number, text = (i: number) => `message ${i}`): Promise<void> {
    for (let i = 0; i < count; i++) {
      await fetch(`${slack.apiUrl}chat.postMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${slack.botToken}` },
        body: JSON.stringify({ channel: 'C0AWSPULSE', text: text(i) }),
      });
    }
  }

  it('reads messages newest first with thread info, a limit and a cursor for the next page', async () => {
    // Prepare
    await seed(5);
    const firstTs = slack.messages[0]?.ts as string;
    await fetch(`${slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${slack.botToken}` },
      body: JSON.stringify({ channel: 'C0AWSPULSE', text: 'reply', thread_ts: firstTs }),
    });

    // Act
    const page1 = success(await callSlackTool(historyTool, { channel: 'C0AWSPULSE', limit: 3 }, bot()));
    const page2 = success(
      await callSlackTool(
        historyTool,
        { channel: 'C0AWSPULSE', limit: 3, cursor: page1.value.next_cursor },
        bot(),
      ),
    );

    // Assess
    const texts = (page: typeof page1) => (page.value.messages as { text: string }[]).map((m) => m.text);
    expect(texts(page1)).toEqual(['message 4', 'message 3', 'message 2']);
    expect(page1.value).toMatchObject({
      has_more: true,
      next_cursor: expect.any(String),
      resume_latest: null,
    });
    expect(texts(page2)).toEqual(['message 1', 'message 0']);
    expect((page2.value.messages as object[])[1]).toEqual({
      ts: firstTs,
      bot_id: 'B0LOCALBOT',
      text: 'message 0',
      thread_ts: firstTs,
      reply_count: 1,
      latest_reply: slack.messages[5]?.ts,
    });
    expect(page2.value).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('reads a thread with thread_ts, and a time window', async () => {
    // Prepare
    await seed(2);
    const parentTs = slack.messages[0]?.ts as string;

    // Act
    const thread = success(
      await callSlackTool(historyTool, { channel: 'C0AWSPULSE', thread_ts: parentTs }, bot()),
    );
    const future = success(
      await callSlackTool(historyTool, { channel: 'C0AWSPULSE', oldest: '2999-01-01T00:00:00Z' }, bot()),
    );

    // Assess
    expect((thread.value.messages as { ts: string }[]).map((m) => m.ts)).toEqual([parentTs]);
    expect(future.value.messages).toEqual([]);
  });

  it('redacts credentials found in messages', async () => {
    // Prepare
    await seed(1, () => 'new token xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx, rotate it');

    // Act
    const result = success(await callSlackTool(historyTool, { channel: 'C0AWSPULSE' }, bot()));

    // Assess
    expect((result.value.messages as { text: string }[])[0]?.text).toBe('new token <redacted>, rotate it');
  });

  it('bounds its output: long texts cut, the call resumable from the last ts', async () => {
    // Prepare: 60 messages of 3,000 characters.
    await seed(60, (i) => `${i} ${'x'.repeat(3_000)}`);

    // Act
    const result = success(await callSlackTool(historyTool, { channel: 'C0AWSPULSE', limit: 60 }, bot()));

    // Assess
    const messages = result.value.messages as { ts: string; text: string; text_truncated?: true }[];
    expect(result.truncated).toBe(true);
    expect(messages.length).toBeLessThan(60);
    expect(messages.every((m) => m.text.length <= 1_501 && m.text_truncated === true)).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(result.value))).toBeLessThanOrEqual(48 * 1024 + 500);
    expect(result.value).toMatchObject({
      has_more: true,
      next_cursor: null,
      resume_latest: messages.at(-1)?.ts,
    });
  });

  it('answers secret_invalid, clearly, with only a webhook', async () => {
    // Act
    const result = failure(await callSlackTool(historyTool, { channel: 'C0AWSPULSE' }, webhookOnly()));

    // Assess
    expect(result.error).toMatchObject({ code: 'secret_invalid', retryable: false, service: 'slack' });
    expect(result.error.message).toMatch(
      /^slack_channel_history needs a bot token: the tenant's slack_default has only webhook_url/,
    );
    expect(slack.requests).toEqual([]);
  });

  it.each([
    ['a #name', { channel: '#aws-pulse' }],
    [
      'a window ending before it starts',
      { channel: 'C0AWSPULSE', oldest: '2026-03-02T00:00:00Z', latest: '2026-03-01T00:00:00Z' },
    ],
    ['a time without zone', { channel: 'C0AWSPULSE', oldest: '2026-03-02T00:00:00' }],
  ])('refuses %s before any call', async (_label, args) => {
    // Act
    const result = failure(await callSlackTool(historyTool, args, bot()));

    // Assess
    expect(result.error.code).toBe('invalid_args');
    expect(slack.requests).toEqual([]);
  });
});
