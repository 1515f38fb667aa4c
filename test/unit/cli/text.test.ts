import { clip, firstSentence, formatDuration, formatTable } from '../../../bin/cli/text';

describe('formatTable', () => {
  it('aligns columns under upper-case headers and leaves the last column unpadded', () => {
    // Act
    const table = formatTable(
      ['name', 'tags', 'description'],
      [
        ['finish', 'file', 'Ends a level.'],
        ['aws_ec2_inventory', 'aws, ec2', 'Inventory\nof instances.'],
      ],
    );

    // Assess
    expect(table).toBe(
      'NAME               TAGS      DESCRIPTION\n' +
        'finish             file      Ends a level.\n' +
        'aws_ec2_inventory  aws, ec2  Inventory of instances.\n',
    );
  });
});

describe('firstSentence', () => {
  it.each([
    ['Lists things. Costs nothing.', 'Lists things.'],
    ['Posts with chat.postMessage when present. Then more.', 'Posts with chat.postMessage when present.'],
    ['One page per 1,000.5 items! Next.', 'One page per 1,000.5 items!'],
    ['No full stop at all', 'No full stop at all'],
  ])('cuts %j to %j', (text, expected) => {
    // Act / Assess
    expect(firstSentence(text)).toBe(expected);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [412.4, '412 ms'],
    [999, '999 ms'],
    [1000, '1.0 s'],
    [12_345, '12.3 s'],
  ])('formats %d ms as %s', (ms, expected) => {
    // Act / Assess
    expect(formatDuration(ms)).toBe(expected);
  });
});

describe('clip', () => {
  it('keeps short text and cuts long text with an ellipsis, at most maxChars long', () => {
    expect(clip('Ends a level.', 100)).toBe('Ends a level.');
    expect(clip('Inventory of EC2 instances', 12)).toBe('Inventory o…');
  });
});
