import { escapeMrkdwn, renderText, splitText } from '../../../../functions/tools/slack/escape';

describe('escapeMrkdwn()', () => {
  it('escapes exactly &, < and >, leaving formatting and quotes alone', () => {
    expect(escapeMrkdwn(`*bold* <!channel> & "q" 'a' > _i_`)).toBe(
      `*bold* &lt;!channel&gt; &amp; "q" 'a' &gt; _i_`,
    );
  });

  it('escapes an already escaped entity again: text is text', () => {
    expect(escapeMrkdwn('&lt;')).toBe('&amp;lt;');
  });
});

describe('renderText()', () => {
  it('renders every segment kind, escaping strings and labels', () => {
    expect(
      renderText([
        'a<b ',
        { link: 'mailto:ops@example.com', label: 'ops | <team>' },
        { user: 'U0123ABCD' },
        { channel: 'C0123ABCD' },
        { usergroup: 'S0123ABCD' },
        { broadcast: 'channel' },
      ]),
    ).toBe(
      'a&lt;b <mailto:ops@example.com|ops ¦ &lt;team&gt;><@U0123ABCD><#C0123ABCD><!subteam^S0123ABCD><!channel>',
    );
  });

  it('percent-encodes |, < and > in link targets so a URL cannot end its own sequence', () => {
    expect(renderText([{ link: 'https://x.io/?q=<!here>|y' }])).toBe('<https://x.io/?q=%3C!here%3E%7Cy>');
  });
});

describe('splitText()', () => {
  it('keeps short text whole', () => {
    expect(splitText('hello', 10)).toEqual(['hello']);
  });

  it('cuts at a paragraph, then a line, then a word in the second half of the window', () => {
    expect(splitText('aaaa bbbb\n\ncccc', 12)).toEqual(['aaaa bbbb', 'cccc']);
    expect(splitText('aaaa bbbb\ncccc', 12)).toEqual(['aaaa bbbb', 'cccc']);
    expect(splitText('aaaa bbbb cccc', 12)).toEqual(['aaaa bbbb', 'cccc']);
  });

  it('never cuts inside an entity or a control sequence', () => {
    // Prepare: without a boundary, a cut at 10 would fall inside "&amp;" and inside "<@U0123ABCD>".
    const entity = splitText(`${'x'.repeat(8)}&amp;yyyy`, 10);
    const mention = splitText(`${'x'.repeat(6)}<@U0123ABCD>zz`, 10);

    // Assess
    expect(entity).toEqual(['x'.repeat(8), '&amp;yyyy']);
    expect(mention[0]).toBe('x'.repeat(6));
    expect(mention.join('')).toBe(`${'x'.repeat(6)}<@U0123ABCD>zz`);
  });

  it('never cuts a surrogate pair in two', () => {
    const parts = splitText(`${'x'.repeat(9)}😀yy`, 10);
    expect(parts).toEqual(['x'.repeat(9), '😀yy']);
  });

  it('cuts text with no boundary at the limit', () => {
    expect(splitText('a'.repeat(9_000), 4_000).map((p) => p.length)).toEqual([4_000, 4_000, 1_000]);
  });
});
