import { DescribeInstancesCommand, EC2Client, paginateDescribeInstances } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { DEFAULT_MAX_PAGES, readPages } from '../../../../functions/runtime/aws/pagination';
import type { Deadline } from '../../../../functions/runtime/deadline';
import { ec2Error, throttlingException } from '../../../helpers/aws-errors';

const ec2 = mockClient(EC2Client);

interface Page {
  readonly items: number[];
  readonly NextToken?: string;
}

/** A paginator over `pages` that records how far it was read and whether it was closed. */
function paginator(pages: Page[]) {
  const state = { requested: 0, closed: false };
  async function* generate(): AsyncGenerator<Page> {
    try {
      for (const page of pages) {
        state.requested++;
        yield page;
      }
    } finally {
      state.closed = true;
    }
  }
  return { pages: generate(), state };
}

/** `count` pages of 2 items; every page but the last carries a NextToken. */
function pagesOf(count: number): Page[] {
  return Array.from({ length: count }, (_, i) => ({
    items: [2 * i, 2 * i + 1],
    ...(i < count - 1 ? { NextToken: `token-${i + 1}` } : {}),
  }));
}

/** A deadline that expires after `checks` calls to expired(). */
function deadlineAfter(checks: number): Deadline {
  let calls = 0;
  return {
    at: 0,
    signal: new AbortController().signal,
    remainingMs: () => 0,
    expired: () => ++calls > checks,
    check: () => undefined,
  };
}

describe('readPages()', () => {
  beforeEach(() => {
    ec2.reset();
  });

  it('reads every page to the normal end', async () => {
    // Prepare
    const { pages, state } = paginator(pagesOf(3));
    const items: number[] = [];

    // Act
    const read = await readPages(pages, (page) => items.push(...page.items));

    // Assess
    expect(read).toEqual({ pages: 3 });
    expect(items).toEqual([0, 1, 2, 3, 4, 5]);
    expect(state.closed).toBe(true);
  });

  it(`stops at the page cap (default ${DEFAULT_MAX_PAGES}) without requesting the next page`, async () => {
    // Prepare
    const { pages, state } = paginator(pagesOf(DEFAULT_MAX_PAGES + 20));
    let seen = 0;

    // Act
    const read = await readPages(pages, () => seen++);

    // Assess
    expect(read).toEqual({
      pages: DEFAULT_MAX_PAGES,
      stoppedBy: 'page_cap',
      nextToken: `token-${DEFAULT_MAX_PAGES}`,
    });
    expect(seen).toBe(DEFAULT_MAX_PAGES);
    expect(state.requested).toBe(DEFAULT_MAX_PAGES);
    expect(state.closed).toBe(true);
  });

  it('reports no page_cap when the last page read was the last page', async () => {
    // Prepare
    const { pages } = paginator(pagesOf(2));

    // Act
    const read = await readPages(pages, () => undefined, { maxPages: 2 });

    // Assess
    expect(read).toEqual({ pages: 2 });
  });

  it('stops at the deadline, before the next request', async () => {
    // Prepare
    const { pages, state } = paginator(pagesOf(5));
    const items: number[] = [];

    // Act
    const read = await readPages(pages, (page) => items.push(...page.items), { deadline: deadlineAfter(2) });

    // Assess
    expect(read).toEqual({ pages: 2, stoppedBy: 'deadline', nextToken: 'token-2' });
    expect(items).toEqual([0, 1, 2, 3]);
    expect(state.requested).toBe(2);
    expect(state.closed).toBe(true);
  });

  it('reports no deadline stop when the pages had ended anyway', async () => {
    // Prepare
    const { pages } = paginator(pagesOf(1));

    // Act
    const read = await readPages(pages, () => undefined, { deadline: deadlineAfter(1) });

    // Assess
    expect(read).toEqual({ pages: 1 });
  });

  it('stops when a page repeats the previous token (an API looping on its last page)', async () => {
    // Prepare
    const looping: Page[] = [
      { items: [1], NextToken: 'a' },
      { items: [2], NextToken: 'b' },
      { items: [3], NextToken: 'b' },
      { items: [3], NextToken: 'b' },
    ];
    const { pages } = paginator(looping);
    const items: number[] = [];

    // Act
    const read = await readPages(pages, (page) => items.push(...page.items));

    // Assess
    expect(read).toEqual({ pages: 3, stoppedBy: 'repeated_token' });
    expect(items).toEqual([1, 2, 3]);
  });

  it("drives the SDK's own paginator (DescribeInstances) up to the cap", async () => {
    // Prepare: DescribeInstances pages (EC2 API reference, "DescribeInstances").
    ec2
      .on(DescribeInstancesCommand)
      .resolvesOnce({ Reservations: [{ Instances: [{ InstanceId: 'i-01' }] }], NextToken: 'p2' })
      .resolvesOnce({ Reservations: [{ Instances: [{ InstanceId: 'i-02' }] }], NextToken: 'p3' })
      .resolves({ Reservations: [{ Instances: [{ InstanceId: 'i-03' }] }] });
    const client = new EC2Client({ region: 'eu-west-1' });
    const ids: string[] = [];

    // Act
    const read = await readPages(
      paginateDescribeInstances({ client }, {}),
      (page) => {
        for (const r of page.Reservations ?? [])
          ids.push(...(r.Instances ?? []).map((i) => i.InstanceId ?? ''));
      },
      { maxPages: 2 },
    );

    // Assess
    expect(read).toEqual({ pages: 2, stoppedBy: 'page_cap', nextToken: 'p3' });
    expect(ids).toEqual(['i-01', 'i-02']);
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(2);
  });

  describe('throttled after some pages: the pages read, the token to resume from, the error', () => {
    /** DescribeInstances answering two pages, then `failure` (EC2 API reference, "DescribeInstances"). */
    async function readThrottled(failure: Error, pagesBefore = 2) {
      const mock = ec2.on(DescribeInstancesCommand);
      for (let page = 1; page <= pagesBefore; page++) {
        mock.resolvesOnce({
          Reservations: [{ Instances: [{ InstanceId: `i-0${page}` }] }],
          NextToken: `p${page + 1}`,
        });
      }
      mock.rejects(failure);
      const ids: string[] = [];
      const read = await readPages(
        paginateDescribeInstances({ client: new EC2Client({ region: 'eu-west-1' }) }, {}),
        (page) => {
          for (const r of page.Reservations ?? [])
            ids.push(...(r.Instances ?? []).map((i) => i.InstanceId ?? ''));
        },
      );
      return { read, ids };
    }

    it.each([
      [
        'EC2 RequestLimitExceeded',
        () => ec2Error('RequestLimitExceeded', 'Request limit exceeded.'),
        'RequestLimitExceeded',
      ],
      ['ThrottlingException', () => throttlingException(), 'ThrottlingException'],
    ])('keeps the pages read before %s', async (_name, failure, awsError) => {
      // Act
      const { read, ids } = await readThrottled(failure());

      // Assess
      expect(ids).toEqual(['i-01', 'i-02']);
      expect(read).toEqual({
        pages: 2,
        stoppedBy: 'throttled',
        nextToken: 'p3',
        stopError: expect.objectContaining({
          code: 'throttled',
          retryable: true,
          details: expect.objectContaining({ awsError }),
        }),
      });
    });

    it('throws a throttled first page: nothing read is not an empty result', async () => {
      // Act / Assess
      await expect(readThrottled(throttlingException(), 0)).rejects.toMatchObject({
        name: 'ThrottlingException',
      });
    });

    it('throws any other error after some pages', async () => {
      // Act / Assess
      await expect(
        readThrottled(ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.')),
      ).rejects.toMatchObject({ name: 'UnauthorizedOperation' });
    });
  });
});
