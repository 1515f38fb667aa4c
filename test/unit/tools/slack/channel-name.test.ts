import { parseToolArgs } from '../../../../functions/runtime/args';
import { InvalidArgsError } from '../../../../functions/runtime/errors';
import { toolCatalog } from '../../../../functions/tools/catalog';
import { postChannelArg } from '../../../../functions/tools/slack/schemas';

/** The tools that take a channel to post to by ID or #name: they share one schema. */
const posting = toolCatalog.list().filter((spec) => spec.inputSchema.shape.channel === postChannelArg());

const ACCEPTED = [
  '#공지사항',
  '#お知らせ',
  '#объявления',
  '#إعلانات',
  '#अपडेट',
  '#ops-알림_2',
  'C0123ABCD',
  '#aws-pulse',
];
const REFUSED = ['#two words', '#semi;colon', '#<script>', `#${'a'.repeat(81)}`, '##', '#'];

describe('Slack channel names as Slack defines them, in every script', () => {
  it('is the schema of every posting tool', () => {
    expect(posting.map((spec) => spec.name)).toEqual(
      expect.arrayContaining(['slack_post_message', 'slack_post_blocks']),
    );
  });

  it.each(ACCEPTED)('accepts %s, and slack_post_message takes it as given', (channel) => {
    // Act
    const args = parseToolArgs(toolCatalog.get('slack_post_message'), { channel, text: 'hi' }) as {
      channel: string;
    };

    // Assess
    expect(postChannelArg().safeParse(channel).success).toBe(true);
    expect(args.channel).toBe(channel);
  });

  it.each(REFUSED)('refuses %s', (channel) => {
    // Act
    const refuse = () => parseToolArgs(toolCatalog.get('slack_post_message'), { channel, text: 'hi' });

    // Assess
    expect(postChannelArg().safeParse(channel).success).toBe(false);
    expect(refuse).toThrow(InvalidArgsError);
  });
});
