import { failureInWords, stateFailure } from '../../../functions/engine/state-errors';

describe('stateFailure (a Catch’s Error and Cause as <code>: <message>)', () => {
  it.each([
    [
      'a Lambda function error whose message carries its code',
      'PlatformError',
      JSON.stringify({ errorType: 'PlatformError', errorMessage: 'throttled: Rate exceeded', trace: [] }),
      { code: 'throttled', message: 'Rate exceeded' },
    ],
    [
      'a Lambda function error without a code: its class name left out',
      'TypeError',
      JSON.stringify({ errorType: 'TypeError', errorMessage: 'x is not a function', trace: [] }),
      { code: 'internal_error', message: 'x is not a function' },
    ],
    ['the Task’s timeout', 'States.Timeout', '', { code: 'timeout', message: 'States.Timeout' }],
    [
      'Lambda throttling the invoke',
      'Lambda.TooManyRequestsException',
      'Rate Exceeded.',
      { code: 'throttled', message: 'Lambda.TooManyRequestsException: Rate Exceeded.' },
    ],
    [
      'a Lambda service error',
      'Lambda.ServiceException',
      'Lambda down',
      { code: 'upstream_error', message: 'Lambda.ServiceException: Lambda down' },
    ],
    [
      'a function that died (Lambda.Unknown)',
      'Lambda.Unknown',
      'The cause of the error is unknown',
      { code: 'internal_error', message: 'Lambda.Unknown: The cause of the error is unknown' },
    ],
    ['nothing at all', undefined, undefined, { code: 'internal_error', message: 'an unknown error' }],
  ])('reads %s', (_what, error, cause, expected) => {
    expect(stateFailure(error, cause)).toEqual(expected);
  });

  it('writes <code>: <message>, the message cut to its length', () => {
    expect(failureInWords({ code: 'timeout', message: 'x'.repeat(20) }, 10)).toBe(
      `timeout: ${'x'.repeat(9)}…`,
    );
  });
});
