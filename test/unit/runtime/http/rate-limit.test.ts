import { ThrottledError } from '../../../../functions/runtime/http/errors';
import { RateLimiter } from '../../../../functions/runtime/http/rate-limit';

describe('RateLimiter', () => {
  it('loads its cache (lru-cache) on the first acquire, not when built at module load', async () => {
    // Prepare: a fresh module registry that counts loads of lru-cache
    let loads = 0;
    let isolated: typeof RateLimiter | undefined;
    jest.isolateModules(() => {
      jest.doMock('lru-cache', () => {
        loads += 1;
        return jest.requireActual('lru-cache');
      });
      isolated = (
        require('../../../../functions/runtime/http/rate-limit') as { RateLimiter: typeof RateLimiter }
      ).RateLimiter;
    });
    const limiter = new (isolated as typeof RateLimiter)();
    const atLoad = loads;
    const sizeBefore = limiter.size;

    // Act
    await limiter.acquire('acme\u0000host', { burst: 1, perSecond: 1 }, { remainingMs: 1_000 });

    // Assess
    expect({ atLoad, sizeBefore, afterAcquire: loads, size: limiter.size }).toEqual({
      atLoad: 0,
      sizeBefore: 0,
      afterAcquire: 1,
      size: 1,
    });
  });

  it('refuses at once, with retryAfterMs, a caller whose reserved token comes after its deadline', async () => {
    // Prepare: a bucket of 1, refilled at 1/s; one caller takes the token, four queue behind it
    const limiter = new RateLimiter();
    const limit = { burst: 1, perSecond: 1 };
    await limiter.acquire('acme\u0000host', limit, { remainingMs: 10_000 });
    const started = Date.now();

    // Act: the first waiter's token comes in about 1 s (fits 1.5 s); the second's in about 2 s (does not)
    const first = limiter.acquire('acme\u0000host', limit, { remainingMs: 1_500 });
    const second = await limiter
      .acquire('acme\u0000host', limit, { remainingMs: 1_500 })
      .catch((err: unknown) => err);

    // Assess: refused without waiting, told when its slot would come
    expect(Date.now() - started).toBeLessThan(100);
    expect(second).toBeInstanceOf(ThrottledError);
    const details = (second as ThrottledError).details as { retryAfterMs: number; retryAfterSeconds: number };
    expect(details.retryAfterMs).toBeGreaterThan(1_900);
    expect(details.retryAfterMs).toBeLessThanOrEqual(2_000);
    expect(details.retryAfterSeconds).toBe(2);
    await first;
  });

  it('keeps at most maxBuckets buckets, least recently used out first', async () => {
    // Prepare
    const limiter = new RateLimiter({ maxBuckets: 3 });
    const limit = { burst: 1, perSecond: 0.001 };

    // Act
    for (const tenant of ['a', 'b', 'c', 'd', 'e']) {
      await limiter.acquire(`${tenant}\u0000host`, limit, { remainingMs: 1_000 });
    }

    // Assess: 'e' holds its spent bucket; 'a' was forgotten (full again)
    expect(limiter.size).toBe(3);
    await expect(limiter.acquire('e\u0000host', limit, { remainingMs: 1_000 })).rejects.toBeInstanceOf(
      ThrottledError,
    );
    await expect(limiter.acquire('a\u0000host', limit, { remainingMs: 1_000 })).resolves.toBeUndefined();
  });

  it('gives its token back when the wait is aborted', async () => {
    // Prepare
    let now = 0;
    const limiter = new RateLimiter({ now: () => now });
    const limit = { burst: 1, perSecond: 10 };
    await limiter.acquire('k', limit, { remainingMs: 1_000 });
    const controller = new AbortController();

    // Act: a waiter reserves the next token (100 ms away), then is aborted
    const waiting = limiter.acquire('k', limit, { remainingMs: 1_000, signal: controller.signal });
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    now += 100;

    // Assess: the token it had reserved is free for the next caller, at no wait
    const started = Date.now();
    await limiter.acquire('k', limit, { remainingMs: 0 });
    expect(Date.now() - started).toBeLessThan(50);
  });
});
