import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_REGION_CONCURRENCY, forEachRegion } from '../../../../functions/runtime/aws/region-fan-out';
import type { Deadline } from '../../../../functions/runtime/deadline';
import { PlatformError } from '../../../../functions/runtime/errors';
import { ec2Error, sdkConnectionError } from '../../../helpers/aws-errors';

const REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-central-1',
  'eu-north-1',
  'ap-south-1',
];

/** A task that counts how many run at once and answers its region's name after `ms`. */
function measuredTask(ms = 5) {
  const stats = { inFlight: 0, maxInFlight: 0, started: [] as string[] };
  const task = async (region: string) => {
    stats.started.push(region);
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    await sleep(ms);
    stats.inFlight--;
    return `done:${region}`;
  };
  return { task, stats };
}

/** A deadline that expires once `expire()` is called. */
function manualDeadline() {
  let passed = false;
  const deadline: Deadline = {
    at: 0,
    signal: new AbortController().signal,
    remainingMs: () => (passed ? 0 : 1_000),
    expired: () => passed,
    check: () => undefined,
  };
  return { deadline, expire: () => (passed = true) };
}

describe('forEachRegion()', () => {
  it.each([1, 3])('runs at most %i regions at once', async (concurrency) => {
    // Prepare
    const { task, stats } = measuredTask();

    // Act
    const { outcomes, skipped } = await forEachRegion(REGIONS, task, {
      tool: 't',
      service: 'ec2',
      concurrency,
    });

    // Assess
    expect(stats.maxInFlight).toBe(concurrency);
    expect(outcomes.map((o) => o.region)).toEqual(REGIONS);
    expect(outcomes.every((o) => o.ok && o.value === `done:${o.region}`)).toBe(true);
    expect(skipped).toEqual([]);
  });

  it(`runs ${DEFAULT_REGION_CONCURRENCY} at once by default`, async () => {
    // Prepare
    const { task, stats } = measuredTask();
    const regions = Array.from({ length: DEFAULT_REGION_CONCURRENCY + 5 }, (_, i) => `xx-test-${i + 1}`);

    // Act
    const { outcomes } = await forEachRegion(regions, task, { tool: 't', service: 'ec2' });

    // Assess
    expect(stats.maxInFlight).toBe(DEFAULT_REGION_CONCURRENCY);
    expect(outcomes).toHaveLength(regions.length);
  });

  it("keeps each region's error in its outcome without failing the others", async () => {
    // Prepare
    const task = async (region: string) => {
      if (region === 'eu-west-2') {
        throw ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', {
          httpStatusCode: 403,
        });
      }
      if (region === 'ap-south-1') throw ec2Error('OptInRequired', 'The region is not enabled.');
      return region.length;
    };

    // Act
    const { outcomes } = await forEachRegion(REGIONS, task, { tool: 'aws_ec2_inventory', service: 'ec2' });

    // Assess
    expect(outcomes).toHaveLength(REGIONS.length);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(REGIONS.length - 2);
    expect(outcomes.find((o) => o.region === 'eu-west-2')).toMatchObject({
      ok: false,
      error: { code: 'access_denied', service: 'ec2', details: { awsError: 'UnauthorizedOperation' } },
    });
    expect(outcomes.find((o) => o.region === 'ap-south-1')).toMatchObject({
      ok: false,
      error: { code: 'opt_in_required' },
    });
    expect(outcomes.find((o) => o.region === 'us-east-1')).toEqual({
      region: 'us-east-1',
      ok: true,
      value: 9,
    });
  });

  it('skips the regions not started when the deadline passes; started ones finish', async () => {
    // Prepare
    const { deadline, expire } = manualDeadline();
    const task = async (region: string) => {
      if (region === 'us-east-2') expire();
      await sleep(5);
      return region;
    };

    // Act
    const { outcomes, skipped } = await forEachRegion(REGIONS, task, {
      tool: 't',
      service: 'ec2',
      concurrency: 2,
      deadline,
    });

    // Assess
    expect(outcomes.map((o) => o.region)).toEqual(['us-east-1', 'us-east-2']);
    expect(skipped).toEqual(REGIONS.slice(2));
  });

  it('fails with the code every region shares when no region succeeds, listing each region', async () => {
    // Prepare: no network, as on a machine without a route to AWS.
    const task = async (): Promise<number> => {
      throw sdkConnectionError('ENOTFOUND');
    };

    // Act
    const failure = await forEachRegion(['eu-west-1', 'us-east-1'], task, {
      tool: 'aws_ec2_inventory',
      service: 'ec2',
    }).catch((err: unknown) => err);

    // Assess
    const regionError = {
      code: 'network_error',
      message: 'Could not reach the ec2 endpoint: getaddrinfo ENOTFOUND ec2.eu-west-1.amazonaws.com',
      retryable: true,
      service: 'ec2',
      details: { errno: 'ENOTFOUND' },
    };
    expect(failure).toBeInstanceOf(PlatformError);
    expect(failure).toMatchObject({
      code: 'network_error',
      message:
        'All 2 regions asked failed; first, eu-west-1: Could not reach the ec2 endpoint: getaddrinfo ENOTFOUND ec2.eu-west-1.amazonaws.com',
      retryable: true,
      service: 'ec2',
      details: {
        regions: [
          { region: 'eu-west-1', error: regionError },
          { region: 'us-east-1', error: regionError },
        ],
      },
    });
  });

  it('names the one region asked when it fails', async () => {
    // Prepare
    const task = async (): Promise<number> => {
      throw ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials');
    };

    // Act
    const failure = await forEachRegion(['eu-west-1'], task, { tool: 't', service: 'ec2' }).catch(
      (err: unknown) => err,
    );

    // Assess
    expect(failure).toMatchObject({
      code: 'auth_failed',
      message:
        'The one region asked (eu-west-1) failed: AuthFailure: AWS was not able to validate the provided access credentials',
      retryable: false,
      details: { regions: [{ region: 'eu-west-1', error: { code: 'auth_failed' } }] },
    });
  });

  it('fails with upstream_error when the regions fail differently, retryable if any region is', async () => {
    // Prepare
    const task = async (region: string): Promise<number> => {
      if (region === 'eu-west-1')
        throw ec2Error('UnauthorizedOperation', 'Not authorized.', { httpStatusCode: 403 });
      throw ec2Error('RequestLimitExceeded', 'Request limit exceeded.', { httpStatusCode: 503 });
    };

    // Act
    const failure = await forEachRegion(['eu-west-1', 'us-east-1'], task, {
      tool: 't',
      service: 'ec2',
    }).catch((err: unknown) => err);

    // Assess
    expect(failure).toMatchObject({
      code: 'upstream_error',
      message: 'All 2 regions asked failed; first, eu-west-1: UnauthorizedOperation: Not authorized.',
      retryable: true,
      details: {
        regions: [
          { region: 'eu-west-1', error: { code: 'access_denied', retryable: false } },
          { region: 'us-east-1', error: { code: 'throttled', retryable: true } },
        ],
      },
    });
  });

  it('fails with timeout when the deadline left regions unstarted and none succeeded', async () => {
    // Prepare
    const { deadline, expire } = manualDeadline();
    const task = async (region: string): Promise<number> => {
      expire();
      throw ec2Error('RequestLimitExceeded', `Request limit exceeded in ${region}.`, { httpStatusCode: 503 });
    };

    // Act
    const failure = await forEachRegion(REGIONS.slice(0, 3), task, {
      tool: 't',
      service: 'ec2',
      concurrency: 1,
      deadline,
    }).catch((err: unknown) => err);

    // Assess
    expect(failure).toMatchObject({
      code: 'timeout',
      message:
        'Deadline reached before any region answered: 2 regions not started; 1 region failed, first ' +
        'us-east-1: RequestLimitExceeded: Request limit exceeded in us-east-1.',
      retryable: true,
      service: 'ec2',
      details: {
        regions: [{ region: 'us-east-1', error: { code: 'throttled' } }],
        skippedRegions: ['us-east-2', 'us-west-1'],
      },
    });
  });

  it('returns as usual when one region succeeds and the others fail', async () => {
    // Prepare
    const task = async (region: string) => {
      if (region !== 'ap-south-1') throw sdkConnectionError('ECONNRESET');
      return 1;
    };

    // Act
    const { outcomes } = await forEachRegion(REGIONS, task, { tool: 't', service: 'ec2' });

    // Assess
    expect(outcomes.filter((o) => o.ok)).toEqual([{ region: 'ap-south-1', ok: true, value: 1 }]);
    expect(outcomes.filter((o) => !o.ok)).toHaveLength(REGIONS.length - 1);
  });

  it('handles no regions', async () => {
    expect(await forEachRegion([], async () => 1, { tool: 't', service: 'ec2' })).toEqual({
      outcomes: [],
      skipped: [],
    });
  });
});
