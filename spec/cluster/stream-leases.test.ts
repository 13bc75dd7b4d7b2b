import { InMemoryStreamLeases } from '../../lib/index.js';
import { RedisStreamLeases } from '../../lib/redis/index.js';
import { RELEASED_LEASE_KEEP_MS } from '../../lib/store/stream-leases.js';
import { describeStreamLeasesContract } from '../../lib/testing/index.js';
import { describeWithRedis } from '../helpers/redis.js';

describeStreamLeasesContract('InMemoryStreamLeases', () => new InMemoryStreamLeases());

describe('InMemoryStreamLeases stays bounded under a steady stream of requests', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());
  const FIVE_MINUTES = 5 * 60_000;

  test('a released record is kept a minute at most; a lease never released is kept its keepMs (a lost instance)', async () => {
    const leases = new InMemoryStreamLeases();
    await leases.acquire('done', { requestId: 1 }, 10_000, FIVE_MINUTES);
    await leases.acquire('lost', { requestId: 2 }, 10_000, FIVE_MINUTES);
    await leases.release('done');
    jest.advanceTimersByTime(RELEASED_LEASE_KEEP_MS - 1);
    expect(await leases.inspect('done')).toEqual({ info: { requestId: 1 }, held: false, released: true });
    jest.advanceTimersByTime(1);
    expect(await leases.inspect('done')).toBeUndefined();
    expect(await leases.inspect('lost')).toEqual({ info: { requestId: 2 }, held: false, released: false });
    jest.advanceTimersByTime(FIVE_MINUTES);
    await leases.acquire('next', { requestId: 3 }, 10_000, FIVE_MINUTES); // the sweep runs on an acquire
    expect(leases.size).toBe(1);
  });

  test('past maxReleased the oldest released records go first; held leases are never dropped', async () => {
    const leases = new InMemoryStreamLeases({ maxReleased: 3 });
    await leases.acquire('running', { requestId: 0 }, 10_000, FIVE_MINUTES);
    for (let n = 1; n <= 10; n++) {
      await leases.acquire(`s${n}`, { requestId: n }, 10_000, FIVE_MINUTES);
      await leases.release(`s${n}`);
    }
    expect(leases.size).toBe(4);
    for (const n of [8, 9, 10]) expect((await leases.inspect(`s${n}`))?.released).toBe(true);
    expect(await leases.inspect('s7')).toBeUndefined();
    expect(await leases.inspect('running')).toEqual({ info: { requestId: 0 }, held: true, released: false });
    // A stream id taken again after its release is a new lease, no longer counted as released.
    await leases.acquire('s10', { requestId: 11 }, 10_000, FIVE_MINUTES);
    expect(await leases.inspect('s10')).toEqual({ info: { requestId: 11 }, held: true, released: false });
    await leases.acquire('s11', { requestId: 12 }, 10_000, FIVE_MINUTES);
    await leases.release('s11');
    expect((await leases.inspect('s8'))?.released).toBe(true); // s10's release no longer counts: nothing dropped
  });

  test('maxReleased is checked when the leases are made', () => {
    expect(() => new InMemoryStreamLeases({ maxReleased: -1 })).toThrow(/maxReleased must be a non-negative integer/);
    expect(() => new InMemoryStreamLeases({ maxReleased: 1.5 })).toThrow(RangeError);
  });
});

describeWithRedis('RedisStreamLeases', (redis) => {
  describeStreamLeasesContract('RedisStreamLeases', () => new RedisStreamLeases(redis.client(), { keyPrefix: redis.prefix('lease') }));

  test('a released record expires within a minute; one never released keeps keepMs', async () => {
    const keyPrefix = redis.prefix('lease-ttl');
    const leases = new RedisStreamLeases(redis.client(), { keyPrefix });
    await leases.acquire('done', { requestId: 1 }, 10_000, 5 * 60_000);
    await leases.acquire('lost', { requestId: 2 }, 10_000, 5 * 60_000);
    await leases.release('done');
    const released = await redis.client().pTTL(`${keyPrefix}{done}:info`);
    expect(released).toBeGreaterThan(RELEASED_LEASE_KEEP_MS - 5_000);
    expect(released).toBeLessThanOrEqual(RELEASED_LEASE_KEEP_MS);
    expect(await redis.client().pTTL(`${keyPrefix}{lost}:info`)).toBeGreaterThan(4 * 60_000);
    // A keepMs shorter than a minute is not lengthened by the release.
    await leases.acquire('short', { requestId: 3 }, 1_000, 5_000);
    await leases.release('short');
    expect(await redis.client().pTTL(`${keyPrefix}{short}:info`)).toBeLessThanOrEqual(5_000);
  });
});
