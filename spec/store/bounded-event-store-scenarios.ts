/**
 * Scenarios of the event stores that ship (in-memory and Redis), which share the options `ttlMs` and
 * `maxEventsPerStream`: ids stay unique across expiry, and trimming or expiry never replays a gap. Each spec
 * supplies how a store is made and how time passes on its clock.
 */
import type { EventStore } from '../../lib/index.js';
import { replay, storeAll } from './event-store-helpers.js';

export interface BoundedEventStoreSetup {
  create(options: { ttlMs?: number; maxEventsPerStream?: number }): EventStore;
  /** The TTL the expiry scenarios use, in milliseconds. */
  ttlMs: number;
  /** Lets `ms` pass on the store's clock. */
  elapse(ms: number): Promise<void>;
  /** Runs on a stream just before it is left to expire (e.g. to complete it). */
  beforeExpiry?(store: EventStore, streamId: string): Promise<void>;
  /** Extra checks of a stream that has just expired, before anything is written to it again. */
  afterExpiry?(store: EventStore, streamId: string): Promise<void>;
  /** Extra checks once a stream that expired is written again. */
  afterRewrite?(store: EventStore, streamId: string): Promise<void>;
}

export function describeBoundedEventStore(name: string, setup: BoundedEventStoreSetup): void {
  const expire = () => setup.elapse(setup.ttlMs * 2.5);

  describe(`${name}: ids across expiry and trimming`, () => {
    test('after TTL expiry an id replays nothing, and once the stream id is written again its new events, with new ids', async () => {
      const store = setup.create({ ttlMs: setup.ttlMs });
      const old = await storeAll(store, 'sess/0', ['a1', 'a2', 'a3']);
      await setup.beforeExpiry?.(store, 'sess/0');
      await expire();
      expect(await replay(store, old[2])).toEqual([]); // expired, nothing new yet
      await setup.afterExpiry?.(store, 'sess/0');
      const fresh = await storeAll(store, 'sess/0', ['b1', 'b2']);
      expect(new Set([...old, ...fresh]).size).toBe(5);
      expect(fresh.every((id) => store.streamIdOf(id) === 'sess/0')).toBe(true);
      await setup.afterRewrite?.(store, 'sess/0');
      const expected = [{ id: fresh[0], method: 'b1' }, { id: fresh[1], method: 'b2' }];
      expect(await replay(store, old[2])).toEqual(expected);
      expect(await replay(store, old[0])).toEqual(expected);
      expect(await replay(store, fresh[0])).toEqual([expected[1]]);
      expect(await replay(store, fresh[1])).toEqual([]);
    });

    test('events dropped for maxEventsPerStream after the id give nothing, never a gap', async () => {
      const store = setup.create({ maxEventsPerStream: 3 });
      const ids = await storeAll(store, 's/1', ['e1', 'e2', 'e3', 'e4', 'e5']); // keeps e3..e5
      expect(await replay(store, ids[0])).toEqual([]);
      expect((await replay(store, ids[1])).map((stored) => stored.method)).toEqual(['e3', 'e4', 'e5']);
      expect(await replay(store, ids[3])).toEqual([{ id: ids[4], method: 'e5' }]);
      expect(await replay(store, 's/1#999999')).toEqual([]); // newer than anything stored
    });

    test('an id from an expired incarnation gives nothing once the new one has dropped events', async () => {
      const store = setup.create({ ttlMs: setup.ttlMs, maxEventsPerStream: 2 });
      const old = await storeAll(store, 's/1', ['a1']);
      await expire();
      const fresh = await storeAll(store, 's/1', ['b1', 'b2', 'b3']); // b1 dropped
      expect(await replay(store, old[0])).toEqual([]);
      expect((await replay(store, fresh[0])).map((stored) => stored.method)).toEqual(['b2', 'b3']);
    });

    test('a replay is not shifted by events stored while it is consumed', async () => {
      const store = setup.create({ maxEventsPerStream: 3 });
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
}
