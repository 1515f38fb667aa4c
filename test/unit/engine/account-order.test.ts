import { accountDurations, longestFirst } from '../../../functions/engine/account-order';

const items = (...ids: string[]) => ids.map((accountId) => ({ accountId, name: `n-${accountId}` }));

describe('longestFirst', () => {
  it('orders by the previous durations, longest first, ties by account id', () => {
    expect(
      longestFirst(items('111111111111', '222222222222', '333333333333', '444444444444'), {
        '111111111111': 10,
        '222222222222': 30,
        '333333333333': 10,
        '444444444444': 20,
      }).map((item) => item.accountId),
    ).toEqual(['222222222222', '444444444444', '111111111111', '333333333333']);
  });

  it('starts the accounts the previous run did not time first, by account id, keeping each item whole', () => {
    const ordered = longestFirst(items('333333333333', '111111111111', '222222222222'), {
      '222222222222': 5,
      '999999999999': 100,
    });
    expect(ordered).toEqual([
      { accountId: '111111111111', name: 'n-111111111111' },
      { accountId: '333333333333', name: 'n-333333333333' },
      { accountId: '222222222222', name: 'n-222222222222' },
    ]);
  });

  it('keeps the given order without durations, and never reorders the input array', () => {
    const given = items('222222222222', '111111111111');
    expect(longestFirst(given, undefined)).toEqual(given);
    longestFirst(given, { '111111111111': 9 });
    expect(given.map((item) => item.accountId)).toEqual(['222222222222', '111111111111']);
  });

  it('treats a duration that is not a finite number as unknown', () => {
    const durations = JSON.parse('{"111111111111": "slow", "222222222222": null, "333333333333": 1}');
    expect(
      longestFirst(items('333333333333', '222222222222', '111111111111'), durations).map(
        (item) => item.accountId,
      ),
    ).toEqual(['111111111111', '222222222222', '333333333333']);
  });
});

describe('accountDurations', () => {
  it("sums each recorded account's call durations and leaves out accounts without usage", () => {
    expect(
      accountDurations([
        { accountId: '111111111111', usage: { callMs: [5, 7.5] } },
        { accountId: '222222222222' },
        { accountId: '333333333333', usage: { callMs: [] } },
      ]),
    ).toEqual({ '111111111111': 12.5, '333333333333': 0 });
  });
});
