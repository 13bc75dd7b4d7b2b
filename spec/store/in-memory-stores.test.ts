import { InMemoryEventStore, InMemorySessionStore } from '../../lib/index.js';
import { describeEventStoreContract, describeSessionStoreContract } from '../../lib/testing/index.js';
import { describeBoundedEventStore } from './bounded-event-store-scenarios.js';
import { replay, storeAll } from './event-store-helpers.js';

/** The in-memory stores read `Date.now()`: their TTL checks let time pass on jest's fake clock. */
const fakeClock = { elapse: async (ms: number) => void jest.advanceTimersByTime(ms) };

describe('on a fake clock', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  describeBoundedEventStore('InMemoryEventStore', {
    create: (options) => new InMemoryEventStore(options),
    ttlMs: 50,
    ...fakeClock,
    afterExpiry: async (store) => expect((store as InMemoryEventStore).streamCount).toBe(0),
  });

  describeEventStoreContract('InMemoryEventStore', () => new InMemoryEventStore(), {
    ttl: { ttlMs: 60_000, create: (ttlMs) => new InMemoryEventStore({ ttlMs }), ...fakeClock },
  });
  describeSessionStoreContract('InMemorySessionStore', () => new InMemorySessionStore(), {
    ttl: { ttlMs: 60_000, create: (ttlMs) => new InMemorySessionStore({ ttlMs }), ...fakeClock },
  });
});

describe('InMemoryEventStore ids across eviction', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('expiry found by the periodic sweep while storing also keeps ids unique', async () => {
    const store = new InMemoryEventStore({ ttlMs: 50 });
    const old = await storeAll(store, 'sess/0', ['a1']);
    jest.advanceTimersByTime(100);
    const fresh = await storeAll(store, 'sess/0', ['b1']); // the sweep in storeEvent drops the stale log
    expect(fresh[0]).not.toBe(old[0]);
    expect(await replay(store, old[0])).toEqual([{ id: fresh[0], method: 'b1' }]);
  });

  test('after LRU eviction (maxStreams), new events on the same stream id get new ids and a resume from an old id returns them', async () => {
    const store = new InMemoryEventStore({ maxStreams: 2 });
    const old = await storeAll(store, 'a/0', ['a1', 'a2']);
    await storeAll(store, 'b/0', ['b1']);
    await storeAll(store, 'c/0', ['c1']); // evicts a/0, the least recently written
    expect(store.streamCount).toBe(2);
    expect(await replay(store, old[1])).toEqual([]);
    const fresh = await storeAll(store, 'a/0', ['a3']); // evicts b/0
    expect(store.streamCount).toBe(2);
    expect(old).not.toContain(fresh[0]);
    expect(await replay(store, old[1])).toEqual([{ id: fresh[0], method: 'a3' }]);
    expect(await replay(store, old[0])).toEqual([{ id: fresh[0], method: 'a3' }]);
    expect(await replay(store, fresh[0])).toEqual([]);
  });
});
