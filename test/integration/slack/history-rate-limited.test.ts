import type { Tool } from '../../../functions/runtime/spec';
import { slackChannelHistoryTool } from '../../../functions/tools/slack/channel-history';
import { callSlackTool, failure, slackSecrets, success, useLocalSlack } from '../../helpers/slack-tool';

/**
 * Slack's 2025 limits for apps outside the Marketplace (15 messages a page, one
 * history request a minute): a read rate limited after some pages returns the
 * pages it read with the cursor to continue from, never nothing.
 */
const historyTool = slackChannelHistoryTool as unknown as Tool;
const localSlack = useLocalSlack({ historyPageMax: 15 });

async function seed(count: number): Promise<void> {
  const slack = localSlack.current();
  for (let i = 0; i < count; i++) {
    await fetch(`${slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${slack.botToken}` },
      body: JSON.stringify({ channel: 'C0AWSPULSE', text: `message ${i}` }),
    });
  }
}

describe('slack_channel_history under a rate limit', () => {
  it('returns the page it read and the cursor of the next when the second page is rate limited', async () => {
    // Prepare: 40 messages, pages of 15, the second history request answered 429
    await seed(40);
    const slack = localSlack.current();
    const bot = slackSecrets(JSON.stringify({ bot_token: slack.botToken }));
    slack.failNext({ status: 429, retryAfterSeconds: 60 }, 1, {
      path: '/api/conversations.history',
      after: 1,
    });

    // Act
    const first = success(await callSlackTool(historyTool, { channel: 'C0AWSPULSE', limit: 40 }, bot));
    const rest = success(
      await callSlackTool(
        historyTool,
        { channel: 'C0AWSPULSE', limit: 40, cursor: first.value.next_cursor },
        bot,
      ),
    );

    // Assess: the 15 it read, the cursor of message 24, and the rest read from it later
    const texts = (page: typeof first) => (page.value.messages as { text: string }[]).map((m) => m.text);
    expect(texts(first)).toEqual(Array.from({ length: 15 }, (_, i) => `message ${39 - i}`));
    expect(first.value).toMatchObject({ has_more: true, next_cursor: expect.any(String), rate_limited: {} });
    expect(first.truncated).toBe(true);
    expect(texts(rest)).toEqual(Array.from({ length: 25 }, (_, i) => `message ${24 - i}`));
  });

  it('is throttled when the very first page is rate limited: there is nothing to return', async () => {
    // Prepare
    await seed(3);
    const slack = localSlack.current();
    slack.failNext({ status: 429, retryAfterSeconds: 60 }, 1, { path: '/api/conversations.history' });

    // Act
    const result = failure(
      await callSlackTool(
        historyTool,
        { channel: 'C0AWSPULSE', limit: 10 },
        slackSecrets(JSON.stringify({ bot_token: slack.botToken })),
      ),
    );

    // Assess
    expect(result.error.code).toBe('throttled');
  });
});
