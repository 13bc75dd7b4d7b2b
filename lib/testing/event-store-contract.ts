/**
 * The contract every `EventStore` passes (the in-memory and Redis stores, and yours):
 * `describeEventStoreContract('MyEventStore', () => new MyEventStore())` at the top level of a jest test file.
 */
import type { SseEvent } from '../store/sse-event.js';
import type { EventStore, StoredEvent } from '../store/event-store.js';
import { testGlobals } from './test-globals.js';

/** How the contract checks a store's time to live (see `EventStoreContractOptions.ttl`). */
export interface StoreTtlCheck<Store> {
  /** The TTL the checks use, in milliseconds: long enough that a store write and read take far less. */
  ttlMs: number;
  /** A store that forgets what was written `ttlMs` after the last write. */
  create(ttlMs: number): Store | Promise<Store>;
  /**
   * Lets `ms` milliseconds pass on the store's clock: advance jest's fake timers for a store that reads
   * `Date.now()`, or really wait for one whose clock is elsewhere (a database server).
   */
  elapse(ms: number): Promise<void>;
}

export interface EventStoreContractOptions {
  /** Called after each test with the store it used (close connections here). Defaults to doing nothing. */
  dispose?: (store: EventStore) => void | Promise<void>;
  /** Checks of the store's per-stream TTL (forgotten `ttlMs` after its last write). Defaults to none (not checked). */
  ttl?: StoreTtlCheck<EventStore>;
}

const message = (method: string): SseEvent => ({ message: { jsonrpc: '2.0', method, params: { n: method } } });

async function replay(store: EventStore, id: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const stored of store.replayEventsAfter(id)) out.push(stored);
  return out;
}

const uniquePrefix = () => `contract-${Date.now()}-${Math.random().toString(36).slice(2)}`;

export function describeEventStoreContract(name: string, create: () => EventStore | Promise<EventStore>, options: EventStoreContractOptions = {}): void {
  const { describe, test, beforeEach, afterEach, expect } = testGlobals();
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    let prefix: string;
    beforeEach(async () => {
      store = await create();
      // Unique stream names per test, so a shared backing service never mixes tests.
      prefix = uniquePrefix();
    });
    afterEach(async () => {
      await options.dispose?.(store);
    });

    test('ids are unique across streams and sessions, and decode back to their stream', async () => {
      const streams = [`${prefix}-a/1`, `${prefix}-a/2`, `${prefix}-b/1`];
      const ids: string[] = [];
      for (const streamId of streams) {
        for (let n = 0; n < 3; n++) {
          const id = await store.storeEvent(streamId, message(`${streamId}:${n}`));
          expect(store.streamIdOf(id)).toBe(streamId);
          ids.push(id);
        }
      }
      expect(new Set(ids).size).toBe(ids.length);
    });

    test('ids never repeat for one stream id, even across many events', async () => {
      const streamId = `${prefix}-r/1`;
      const ids: string[] = [];
      for (let n = 0; n < 60; n++) {
        ids.push(await store.storeEvent(streamId, message(`r-${n}`)));
        if (n % 7 === 0) await store.storeEvent(`${prefix}-r/2`, message(`other-${n}`));
      }
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.every((id) => store.streamIdOf(id) === streamId)).toBe(true);
      expect((await replay(store, ids[0])).map((stored) => stored.id)).toEqual(ids.slice(1));
    });

    test('replay yields the later events of that stream only, in order, with their original ids', async () => {
      const mine = `${prefix}-s/1`;
      const other = `${prefix}-s/2`;
      const ids: string[] = [];
      for (let n = 0; n < 4; n++) {
        ids.push(await store.storeEvent(mine, message(`mine-${n}`)));
        await store.storeEvent(other, message(`other-${n}`));
      }
      const replayed = await replay(store, ids[1]);
      expect(replayed.map((stored) => stored.id)).toEqual([ids[2], ids[3]]);
      expect(replayed.map((stored) => stored.event)).toEqual([message('mine-2'), message('mine-3')]);
      expect(await replay(store, ids[3])).toEqual([]);
    });

    test('a priming event (retry, no message) round-trips and its id resumes', async () => {
      const streamId = `${prefix}-p/1`;
      const priming = await store.storeEvent(streamId, { retry: 3000 });
      const first = await store.storeEvent(streamId, message('after-priming'));
      const replayed = await replay(store, priming);
      expect(replayed).toEqual([{ id: first, event: message('after-priming') }]);
      const [again] = await replay(store, priming);
      expect(again.event.message).toEqual(message('after-priming').message);
    });

    test('an event is visible to replay as soon as storeEvent resolves', async () => {
      const streamId = `${prefix}-d/1`;
      const first = await store.storeEvent(streamId, message('one'));
      const second = await store.storeEvent(streamId, message('two'));
      expect((await replay(store, first)).map((stored) => stored.id)).toEqual([second]);
    });

    test('with keepsWriteOrder, writes made without waiting are stored and replayed in call order', async () => {
      if (!store.keepsWriteOrder) return;
      const streamId = `${prefix}-o/1`;
      const first = await store.storeEvent(streamId, message('start'));
      const methods = Array.from({ length: 20 }, (_, n) => `m${n}`);
      const ids = await Promise.all(methods.map((method) => store.storeEvent(streamId, message(method))));
      const replayed = await replay(store, first);
      expect(replayed.map((stored) => stored.id)).toEqual(ids);
      expect(replayed.map((stored) => (stored.event.message as { method: string }).method)).toEqual(methods);
    });

    test('startEventId comes before every event of its stream, and only its stream', async () => {
      if (!store.startEventId) return;
      const streamId = `${prefix}-s/1`;
      const start = store.startEventId(streamId);
      expect(store.streamIdOf(start)).toBe(streamId);
      expect(await replay(store, start)).toEqual([]); // nothing stored yet
      const ids = [await store.storeEvent(streamId, message('one')), await store.storeEvent(streamId, message('two'))];
      await store.storeEvent(`${prefix}-s/2`, message('other'));
      expect((await replay(store, start)).map((stored) => stored.id)).toEqual(ids);
      expect(store.startEventId(`${prefix}-s/2`)).not.toBe(start);
    });

    test('unknown, foreign and malformed ids replay nothing and do not throw', async () => {
      await store.storeEvent(`${prefix}-u/1`, message('x'));
      for (const id of ['', 'garbage', `${prefix}-missing/1#1`, '#1', '\u0000', 'a'.repeat(5000)]) {
        expect(await replay(store, id)).toEqual([]);
        expect(() => store.streamIdOf(id)).not.toThrow();
      }
    });

    test('a completed stream still replays what it stored, and completing it twice is harmless', async () => {
      if (!store.completeStream) return;
      const streamId = `${prefix}-c/1`;
      const first = await store.storeEvent(streamId, message('x'));
      const second = await store.storeEvent(streamId, message('y'));
      await store.completeStream(streamId);
      await store.completeStream(streamId);
      expect((await replay(store, first)).map((stored) => stored.id)).toEqual([second]);
    });

    const ttl = options.ttl;
    if (ttl) {
      describe(`with ttlMs ${ttl.ttlMs}`, () => {
        let expiring: EventStore;
        beforeEach(async () => {
          expiring = await ttl.create(ttl.ttlMs);
        });
        afterEach(async () => {
          await options.dispose?.(expiring);
        });
        const part = (fraction: number) => Math.round(ttl.ttlMs * fraction);

        test('a stream is kept until ttlMs after its last write, then replays nothing', async () => {
          const streamId = `${prefix}-t/1`;
          const [first, second] = [await expiring.storeEvent(streamId, message('one')), await expiring.storeEvent(streamId, message('two'))];
          await ttl.elapse(part(0.5));
          expect((await replay(expiring, first)).map((stored) => stored.id)).toEqual([second]);
          await ttl.elapse(part(0.7));
          expect(await replay(expiring, first)).toEqual([]);
        });

        test('every write to a stream restarts its TTL', async () => {
          const streamId = `${prefix}-w/1`;
          const first = await expiring.storeEvent(streamId, message('one'));
          await ttl.elapse(part(0.6));
          const second = await expiring.storeEvent(streamId, message('two'));
          await ttl.elapse(part(0.6));
          // ttlMs after the first write, but not after the second: the stream is still there.
          expect((await replay(expiring, first)).map((stored) => stored.id)).toEqual([second]);
          await ttl.elapse(part(0.6));
          expect(await replay(expiring, first)).toEqual([]);
        });

        test('a write to one stream does not keep another alive', async () => {
          const [kept, dropped] = [`${prefix}-k/1`, `${prefix}-k/2`];
          const droppedIds = [await expiring.storeEvent(dropped, message('a')), await expiring.storeEvent(dropped, message('b'))];
          const keptIds = [await expiring.storeEvent(kept, message('c'))];
          await ttl.elapse(part(0.6));
          keptIds.push(await expiring.storeEvent(kept, message('d')));
          await ttl.elapse(part(0.6));
          expect(await replay(expiring, droppedIds[0])).toEqual([]);
          expect((await replay(expiring, keptIds[0])).map((stored) => stored.id)).toEqual([keptIds[1]]);
        });
      });
    }
  });
}
