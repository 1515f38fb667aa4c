import { jsonSyntaxMessage } from '../../../functions/runtime/json-syntax';

/** What JSON.parse throws for `text`. */
function parseError(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (err) {
    return err;
  }
  throw new Error(`${text} parsed`);
}

describe('jsonSyntaxMessage()', () => {
  it.each([
    // A credential pasted where JSON was expected: V8 quotes its first 10 characters, or all of a short one.
    ['ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2', "Unexpected token 'g': not valid JSON"],
    ['{"a": ghp_x}', "Unexpected token 'g': not valid JSON"],
    ['xoxb-1', "Unexpected token 'x': not valid JSON"],
  ])('never quotes the text V8 quoted: %p', (text, message) => {
    // Act
    const said = jsonSyntaxMessage(parseError(text));

    // Assess
    expect(said).toBe(message);
  });

  it.each(['{', '{"a":1}x', '"abc'])('keeps a message that gives a position instead: %p', (text) => {
    // Prepare
    const err = parseError(text) as Error;

    // Act, Assess
    expect(jsonSyntaxMessage(err)).toBe(err.message);
    expect(err.message).toMatch(/position \d+/);
  });
});
