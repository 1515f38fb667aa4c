import { slackRequestPolicy } from '../../../../functions/tools/slack/post-message';

/** The longest a Web API call can take under a policy: every attempt timing out, the longest backoff between them. */
function worstCaseMs(remainingMs: number): number {
  const { timeoutMs, retryConfig } = slackRequestPolicy(remainingMs);
  const retries = retryConfig.retries ?? 0;
  const maxBackoffMs = retries * (retryConfig.maxTimeout ?? 0);
  return timeoutMs * (retries + 1) + maxBackoffMs;
}

describe('slackRequestPolicy()', () => {
  it('gives the 30 s tool three attempts of 7.8 s, ending 0.5 s before its deadline (28 s left)', () => {
    // Act
    const policy = slackRequestPolicy(28_000);

    // Assess
    expect(policy).toEqual({
      timeoutMs: 7_833,
      retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2_000, randomize: true },
    });
    expect(worstCaseMs(28_000)).toBe(27_499);
  });

  it('caps each attempt at 10 s when there is time to spare', () => {
    expect(slackRequestPolicy(120_000).timeoutMs).toBe(10_000);
  });

  it('gives one attempt all the time left, less 0.5 s, when retries would not fit', () => {
    expect(slackRequestPolicy(2_000)).toEqual({ timeoutMs: 1_500, retryConfig: { retries: 0 } });
  });

  it('never asks for a timeout below 1 ms', () => {
    expect(slackRequestPolicy(0)).toEqual({ timeoutMs: 1, retryConfig: { retries: 0 } });
  });

  it.each([1_000, 5_000, 9_999, 10_500, 15_000, 28_000, 60_000, 900_000])(
    'fits every attempt and wait of a call into %i ms',
    (remainingMs) => {
      expect(worstCaseMs(remainingMs)).toBeLessThanOrEqual(remainingMs - 500);
    },
  );
});
