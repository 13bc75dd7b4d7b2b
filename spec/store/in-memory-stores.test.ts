import { InMemoryEventStore, InMemorySessionStore } from '../../lib/index.js';
import { describeEventStoreContract, describeSessionStoreContract } from '../../lib/testing/index.js';
import { replay, storeAll } from './event-store-helpers.js';

/** The in-memory stores read `Date.now()`: their TTL checks let time pass on jest's fake clock. */
const fakeClock = { elapse: async (ms: number) => void jest.advanceTimersByTime(ms) };

describe('on a fake clock', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

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

  test('after TTL expiry, new events on the same stream id get new ids and a resume from an old id returns them', async () => {
    const store = new InMemoryEventStore({ ttlMs: 50 });
    const old = await storeAll(store, 'sess/0', ['a1', 'a2', 'a3']);
    jest.advanceTimersByTime(100);
    expect(await replay(store, old[2])).toEqual([]); // expired, nothing new yet
    expect(store.streamCount).toBe(0);
    const fresh = await storeAll(store, 'sess/0', ['b1', 'b2']);
    expect(new Set([...old, ...fresh]).size).toBe(5);
    expect(fresh.every((id) => store.streamIdOf(id) === 'sess/0')).toBe(true);
    const expected = [{ id: fresh[0], method: 'b1' }, { id: fresh[1], method: 'b2' }];
    expect(await replay(store, old[2])).toEqual(expected);
    expect(await replay(store, old[0])).toEqual(expected);
    expect(await replay(store, fresh[0])).toEqual([expected[1]]);
    expect(await replay(store, fresh[1])).toEqual([]);
  });

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

  test('events dropped for maxEventsPerStream after the id give nothing, never a gap', async () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 3 });
    const ids = await storeAll(store, 's/1', ['e1', 'e2', 'e3', 'e4', 'e5']); // keeps e3..e5
    expect(await replay(store, ids[0])).toEqual([]);
    expect((await replay(store, ids[1])).map((stored) => stored.method)).toEqual(['e3', 'e4', 'e5']);
    expect(await replay(store, ids[3])).toEqual([{ id: ids[4], method: 'e5' }]);
    expect(await replay(store, 's/1#999999')).toEqual([]); // newer than anything stored
  });

  test('an id from an evicted incarnation gives nothing once the new one has dropped events', async () => {
    const store = new InMemoryEventStore({ ttlMs: 50, maxEventsPerStream: 2 });
    const old = await storeAll(store, 's/1', ['a1']);
    jest.advanceTimersByTime(100);
    const fresh = await storeAll(store, 's/1', ['b1', 'b2', 'b3']); // b1 dropped
    expect(await replay(store, old[0])).toEqual([]);
    expect((await replay(store, fresh[0])).map((stored) => stored.method)).toEqual(['b2', 'b3']);
  });

  test('a replay is not shifted by events stored while it is consumed', async () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 3 });
    const ids = await storeAll(store, 's/1', ['e1', 'e2', 'e3']);
    const iterator = store.replayEventsAfter(ids[0])[Symbol.asyncIterator]();
    const first = await iterator.next();
    await storeAll(store, 's/1', ['e4', 'e5']);
    const rest = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value.id);
    expect(first.value?.id).toBe(ids[1]);
    expect(rest).toEqual([ids[2]]);
  });
});
