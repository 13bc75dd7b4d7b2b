/**
 * The Redis adapters (`mcp-express/redis`) against a real Redis: the shared store contracts, Redis-specific
 * behaviour (TTL, trimming, ids across instances) and rmcp's seed scenario across two Express apps.
 *
 * Redis at `redis://127.0.0.1:6379` (`REDIS_URL` overrides). Unreachable, the suites are skipped with a warning,
 * or fail when `REQUIRE_REDIS=1`. Every key of a run starts with a unique prefix and is deleted in afterAll.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SessionState, SseEvent } from '../../lib/index.js';
import { RedisEventStore, RedisSessionStore, RedisStreamLeases, type RedisEventStoreOptions } from '../../lib/redis/index.js';
import { describeEventStoreContract, describeSessionStoreContract } from '../../lib/testing/index.js';
import { describeWithRedis, type RedisTestClient } from '../helpers/redis.js';
import { sleep } from '../helpers/wire.js';
import { describeBoundedEventStore } from '../store/bounded-event-store-scenarios.js';
import { event, replay, storeAll } from '../store/event-store-helpers.js';
import { replayOnSecondInstanceWithRedis } from '../helpers/seed-scenario.js';

test('the core package never imports the Redis adapters or the driver', () => {
  const root = path.join(__dirname, '..', '..', 'lib');
  const sources = (fs.readdirSync(root, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts') && !file.startsWith(`redis${path.sep}`));
  expect(sources).toContain('index.ts');
  for (const file of sources) expect(fs.readFileSync(path.join(root, file), 'utf8')).not.toMatch(/from ['"](?:redis|@redis\/[^'"]*|[^'"]*\/redis\/[^'"]*)['"]|require\(['"]redis/);
  // Nor do the adapters load the driver: they take a connected client.
  for (const file of fs.readdirSync(path.join(root, 'redis'))) expect(fs.readFileSync(path.join(root, 'redis', file), 'utf8')).not.toMatch(/from ['"](?:redis|@redis\/)/);
});

/** The client, recording in `sent` the name of each method called that `counts` (commands, for the tests). */
function recording(client: RedisTestClient, sent: string[], counts: (name: string) => boolean): RedisTestClient {
  return new Proxy(client, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof name === 'string' && counts(name)) sent.push(name);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describeWithRedis('the Redis store suites', (redis) => {
  const { connect, prefix, runPrefix } = redis;
  // The client connects in beforeAll: read it at use, inside tests and hooks.
  const client = () => redis.client();

  // Redis expires keys on its own clock: the TTL checks really wait (a 1 s TTL leaves 400 ms of slack per step).
  const redisClock = { elapse: (ms: number) => sleep(ms) };
  describeEventStoreContract('RedisEventStore', () => new RedisEventStore(client(), { keyPrefix: `${runPrefix}contract-events:` }), {
    ttl: { ttlMs: 1000, create: (ttlMs) => new RedisEventStore(client(), { keyPrefix: prefix('contract-ttl-events'), ttlMs }), ...redisClock },
  });
  describeSessionStoreContract('RedisSessionStore', () => new RedisSessionStore(client(), { keyPrefix: `${runPrefix}contract-sessions:` }), {
    ttl: { ttlMs: 1000, create: (ttlMs) => new RedisSessionStore(client(), { keyPrefix: prefix('contract-ttl-sessions'), ttlMs }), ...redisClock },
  });

  const eventStore = (options: RedisEventStoreOptions = {}, on: RedisTestClient = client()): RedisEventStore =>
    new RedisEventStore(on, { keyPrefix: prefix('events'), ...options });

  // Redis expires keys itself: the expiry scenarios really wait (2.5 TTLs of 100 ms).
  describeBoundedEventStore('RedisEventStore', {
    create: (options) => eventStore(options),
    ttlMs: 100,
    ...redisClock,
    beforeExpiry: async (store, streamId) => {
      await store.completeStream!(streamId);
      expect(await (store as RedisEventStore).isStreamComplete(streamId)).toBe(true);
    },
    afterExpiry: async (store, streamId) => expect(await (store as RedisEventStore).isStreamComplete(streamId)).toBe(false),
    afterRewrite: async (store, streamId) => expect(await (store as RedisEventStore).isStreamComplete(streamId)).toBe(false),
  });

  describe('RedisEventStore on Redis', () => {
    test('an event writes one key, its stream\'s list, with the TTL; the counter never expires', async () => {
      const keyPrefix = prefix('layout');
      const store = new RedisEventStore(client(), { keyPrefix, ttlMs: 60_000 });
      const [id, response] = await Promise.all([
        store.storeEvent('sess/1', { message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } } }),
        store.storeEvent('sess/1', { message: { jsonrpc: '2.0', id: 1, result: { content: [] } } }),
      ]);
      expect(id).toMatch(/^sess\/1#\d+$/);
      expect((await client().keys(`${keyPrefix}*`)).sort()).toEqual([`${keyPrefix}seq`, `${keyPrefix}{sess/1}:log`]);
      expect(await client().lRange(`${keyPrefix}{sess/1}:log`, 0, -1)).toEqual([
        `{"seq":${id.split('#')[1]},"message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}}`,
        `{"seq":${response.split('#')[1]},"message":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}`,
      ]);
      const ttl = await client().pTTL(`${keyPrefix}{sess/1}:log`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await client().get(`${keyPrefix}seq`)).toBe(response.split('#')[1]);
      expect(await client().pTTL(`${keyPrefix}seq`)).toBe(-1);
      // Its last event is a response: complete, with no mark written.
      expect(await store.isStreamComplete('sess/1')).toBe(true);
      await store.completeStream('sess/1');
      expect(await client().exists(`${keyPrefix}{sess/1}:meta`)).toBe(0);
    });

    test('completeStream of a stream that ended without a response marks its last event, in a hash that expires with the list', async () => {
      const keyPrefix = prefix('mark');
      const store = new RedisEventStore(client(), { keyPrefix, ttlMs: 60_000 });
      const [, last] = await storeAll(store, 's/1', ['e1', 'e2']);
      await client().pExpire(`${keyPrefix}{s/1}:log`, 30_000);
      expect(await store.isStreamComplete('s/1')).toBe(false);
      await store.completeStream('s/1');
      expect(await store.isStreamComplete('s/1')).toBe(true);
      expect(await client().hGetAll(`${keyPrefix}{s/1}:meta`)).toEqual({ complete: last.split('#')[1] });
      const ttl = await client().pTTL(`${keyPrefix}{s/1}:meta`);
      expect(ttl).toBeGreaterThan(25_000);
      expect(ttl).toBeLessThanOrEqual(30_000);
      // An event stored after the mark (a later incarnation, or a writer that went on): no longer complete.
      await storeAll(store, 's/1', ['e3']);
      expect(await store.isStreamComplete('s/1')).toBe(false);
    });

    test('a replay takes the incarnation\'s start from its list: an id of an expired earlier incarnation replays what is there now', async () => {
      const keyPrefix = prefix('incarnation');
      const store = new RedisEventStore(client(), { keyPrefix, ttlMs: 60_000 });
      const [old] = await storeAll(store, 's/1', ['old']);
      await client().del(`${keyPrefix}{s/1}:log`); // as if it expired
      await storeAll(store, 'other/1', ['between']);
      const [first, second] = await storeAll(store, 's/1', ['new1', 'new2']);
      expect((await replay(store, old)).map((stored) => stored.id)).toEqual([first, second]);
      expect((await replay(store, first)).map((stored) => stored.id)).toEqual([second]);
    });

    // Every write restarts the TTL (checked by the contract with real waits) because each write sets it anew:
    // seen here without waiting, on the TTL Redis reports.
    test('each write sets the TTL of its stream anew', async () => {
      const keyPrefix = prefix('rewrite-events');
      const store = new RedisEventStore(client(), { keyPrefix, ttlMs: 60_000 });
      await storeAll(store, 's/1', ['e1']);
      await client().pExpire(`${keyPrefix}{s/1}:log`, 5_000);
      await storeAll(store, 's/1', ['e2']);
      expect(await client().pTTL(`${keyPrefix}{s/1}:log`)).toBeGreaterThan(50_000);
    });

    test('RedisSessionStore sets the TTL of a session anew on every write', async () => {
      const keyPrefix = prefix('rewrite-sessions');
      const store = new RedisSessionStore(client(), { keyPrefix, ttlMs: 60_000 });
      const state: SessionState = { protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [], initializeParams: {}, createdAt: 0 };
      await store.store('s', state);
      expect(await client().pTTL(`${keyPrefix}s`)).toBeGreaterThan(50_000);
      await client().pExpire(`${keyPrefix}s`, 5_000);
      await store.store('s', { ...state, logLevel: 'info' });
      expect(await client().pTTL(`${keyPrefix}s`)).toBeGreaterThan(50_000);
      expect(await store.load('s')).toEqual({ ...state, logLevel: 'info' });
    });

    // Replays after trimming: the shared bounded-store scenarios above.
    test('trimming to maxEventsPerStream keeps one entry more: the last dropped seq', async () => {
      const keyPrefix = prefix('trim');
      const store = new RedisEventStore(client(), { keyPrefix, maxEventsPerStream: 3 });
      await storeAll(store, 's/1', ['e1', 'e2', 'e3', 'e4', 'e5']); // keeps e3..e5
      expect(await client().lLen(`${keyPrefix}{s/1}:log`)).toBe(4); // plus e2, kept only as the last dropped seq
    });

    test('completeStream on an unknown stream is a no-op and writes nothing', async () => {
      const keyPrefix = prefix('complete');
      const store = new RedisEventStore(client(), { keyPrefix });
      await store.completeStream('nobody/1');
      expect(await store.isStreamComplete('nobody/1')).toBe(false);
      expect(await client().exists(`${keyPrefix}{nobody/1}:meta`)).toBe(0);
      await storeAll(store, 'nobody/1', ['x']);
      expect(await store.isStreamComplete('nobody/1')).toBe(false);
    });

    test('scripts go by their SHA1, and their text again only after Redis lost them (SCRIPT FLUSH); events always go as text', async () => {
      const raw = await connect();
      const sent: string[] = [];
      // commandTimeoutMs 0: the adapters use the client as given, so the proxy sees every script call.
      const counted = recording(raw, sent, (name) => name === 'eval' || name === 'evalSha');
      const keyPrefix = prefix('scripts');
      const store = new RedisEventStore(counted, { keyPrefix, commandTimeoutMs: 0 });
      const leases = new RedisStreamLeases(counted, { keyPrefix: prefix('script-leases'), commandTimeoutMs: 0 });
      const [first] = await storeAll(store, 's/1', ['e1']);
      await store.completeStream('s/1'); // loads the script if this Redis did not know it
      sent.length = 0;
      await store.completeStream('s/1');
      await storeAll(store, 's/1', ['e2']);
      // An event goes as text: a NOSCRIPT retry could land after a later write of the stream (pipelined writes).
      expect(sent).toEqual(['evalSha', 'eval']);

      await raw.scriptFlush();
      sent.length = 0;
      await storeAll(store, 's/1', ['e3']);
      await store.completeStream('s/1');
      await leases.acquire('s/1', { requestId: 7 }, 60_000, 60_000);
      expect(sent).toEqual(['eval', 'evalSha', 'eval', 'evalSha', 'eval']);
      expect((await replay(store, first)).map((stored) => stored.method)).toEqual(['e2', 'e3']);
      expect(await store.isStreamComplete('s/1')).toBe(true);
      expect(await leases.inspect('s/1')).toEqual({ info: { requestId: 7 }, held: true, released: false });
      sent.length = 0;
      await leases.release('s/1'); // its own script, not used since the flush
      expect(sent).toEqual(['evalSha', 'eval']);
      expect(await leases.inspect('s/1')).toEqual({ info: { requestId: 7 }, held: false, released: true });
    });

    test('the events a stream gets in one tick go to Redis in one command, each with its own id, in order', async () => {
      const raw = await connect();
      const sent: string[] = [];
      const counted = recording(raw, sent, (name) => name === 'eval');
      const store = new RedisEventStore(counted, { keyPrefix: prefix('batch'), commandTimeoutMs: 0 });
      const progress = { message: { jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: 1, progress: 1 } } };
      const response = { message: { jsonrpc: '2.0' as const, id: 1, result: { content: [] } } };
      // As a tool does, called from a socket's callback (a plain callback, not a promise's): a progress
      // notification, then, a few promise callbacks later, its result.
      const ids = await new Promise<string[]>((resolve, reject) => {
        setImmediate(() => {
          const first = store.storeEvent('s/1', progress);
          const other = store.storeEvent('s/2', event('other'));
          const last = Promise.resolve()
            .then(() => Promise.resolve())
            .then(() => store.storeEvent('s/1', response));
          Promise.all([first, last, other]).then(resolve, reject);
        });
      });
      expect(sent).toEqual(['eval', 'eval']); // s/1's two events in one command, s/2's in another
      const [first, second] = ids.map((id) => Number(id.split('#')[1]));
      expect(second).toBe(first + 1);
      expect((await replay(store, store.startEventId('s/1'))).map((stored) => stored.id)).toEqual([ids[0], ids[1]]);
      expect(await store.isStreamComplete('s/1')).toBe(true);
      sent.length = 0;
      await store.completeStream('s/1');
      expect(sent).toEqual([]); // its response's write completed it
      // Awaited one by one: a command each.
      await storeAll(store, 's/3', ['a', 'b']);
      expect(sent).toEqual(['eval', 'eval']);
    });

    test('a burst larger than one command takes (256 events) goes out in several, in order; trimming sees the whole batch', async () => {
      const raw = await connect();
      const sent: string[] = [];
      const counted = recording(raw, sent, (name) => name === 'eval');
      const store = new RedisEventStore(counted, { keyPrefix: prefix('burst'), commandTimeoutMs: 0 });
      const ids = await Promise.all(Array.from({ length: 600 }, (_, n) => store.storeEvent('s/1', event(`e${n}`))));
      expect(sent).toEqual(['eval', 'eval', 'eval']);
      const seqs = ids.map((id) => Number(id.split('#')[1]));
      expect(seqs.every((seq, n) => n === 0 || seq > seqs[n - 1])).toBe(true);
      expect((await replay(store, store.startEventId('s/1'))).map((stored) => stored.method)).toEqual(Array.from({ length: 600 }, (_, n) => `e${n}`));

      const bounded = new RedisEventStore(client(), { keyPrefix: prefix('burst-trim'), maxEventsPerStream: 3 });
      const trimmed = await Promise.all(['e1', 'e2', 'e3', 'e4', 'e5'].map((method) => bounded.storeEvent('s/1', event(method))));
      expect(await replay(bounded, bounded.startEventId('s/1'))).toEqual([]); // events were dropped from its start: nothing, never a gap
      expect(await replay(bounded, trimmed[0])).toEqual([]);
      expect((await replay(bounded, trimmed[1])).map((stored) => stored.method)).toEqual(['e3', 'e4', 'e5']);
      expect((await replay(bounded, trimmed[3])).map((stored) => stored.method)).toEqual(['e5']);
    });

    test('a replay, a completion or a check asked for before the end of the tick finds the events queued before it', async () => {
      const store = new RedisEventStore(client(), { keyPrefix: prefix('queued') });
      const first = store.storeEvent('s/1', event('e1'));
      const replayed = replay(store, store.startEventId('s/1')); // not awaited in between: the event is still queued
      expect((await replayed).map((stored) => stored.method)).toEqual(['e1']);
      await first;
      void store.storeEvent('s/2', event('e1'));
      await store.completeStream('s/2');
      expect(await store.isStreamComplete('s/2')).toBe(true);
      void store.storeEvent('s/3', { message: { jsonrpc: '2.0', id: 1, result: {} } });
      expect(await store.isStreamComplete('s/3')).toBe(true);
    });

    test('a response followed by another event (a batch POST whose last member was cancelled) is not complete until completeStream marks it', async () => {
      const store = new RedisEventStore(client(), { keyPrefix: prefix('after-response') });
      const response = { message: { jsonrpc: '2.0' as const, id: 1, result: {} } };
      await Promise.all([store.storeEvent('s/1', response), store.storeEvent('s/1', event('later'))]); // one tick
      await store.storeEvent('s/2', response);
      await store.storeEvent('s/2', event('later')); // a tick of its own
      for (const streamId of ['s/1', 's/2']) {
        expect(await store.isStreamComplete(streamId)).toBe(false);
        await store.completeStream(streamId);
        expect(await store.isStreamComplete(streamId)).toBe(true);
      }
    });

    test('a message JSON cannot hold rejects (never throws) and takes nothing else down with it', async () => {
      const store = new RedisEventStore(client(), { keyPrefix: prefix('unserialisable') });
      const bad = { message: { jsonrpc: '2.0' as const, method: 'x', params: { n: 1n } } } as unknown as SseEvent;
      const good = store.storeEvent('s/1', event('ok'));
      let stored: Promise<string> | undefined;
      expect(() => {
        stored = store.storeEvent('s/1', bad);
      }).not.toThrow();
      await expect(stored).rejects.toThrow(/BigInt/);
      expect((await replay(store, store.startEventId('s/1'))).map((e) => e.method)).toEqual(['ok']);
      await good;
    });

    test('a stored response marks its stream complete in the same command; the completeStream after it sends nothing', async () => {
      const raw = await connect();
      const sent: string[] = [];
      const counted = recording(raw, sent, (name) => name !== 'withCommandOptions');
      const store = new RedisEventStore(counted, { keyPrefix: prefix('complete-by-response'), commandTimeoutMs: 0 });
      await store.storeEvent('s/1', { message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } } });
      expect(await store.isStreamComplete('s/1')).toBe(false);
      await store.storeEvent('s/1', { message: { jsonrpc: '2.0', id: 1, result: { content: [] } } });
      expect(await store.isStreamComplete('s/1')).toBe(true);
      sent.length = 0;
      await store.completeStream('s/1');
      expect(sent).toEqual([]);
      // A stream that ends without a response (a cancelled request) is marked by completeStream itself.
      await store.storeEvent('s/2', { message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } } });
      sent.length = 0;
      await store.completeStream('s/2');
      expect(sent.length).toBeGreaterThan(0);
      expect(await store.isStreamComplete('s/2')).toBe(true);
    });

    test('ids are unique across two stores on two clients sharing one Redis, and each replays the other', async () => {
      const keyPrefix = prefix('shared');
      const one = new RedisEventStore(client(), { keyPrefix });
      const two = new RedisEventStore(await connect(), { keyPrefix });
      const write = (store: RedisEventStore, streamId: string) => storeAll(store, streamId, Array.from({ length: 40 }, (_, n) => `${streamId}-${n}`));
      const [a, b, c] = await Promise.all([write(one, 'a/1'), write(two, 'b/1'), Promise.all([write(one, 'c/1'), write(two, 'c/2')]).then((ids) => ids.flat())]);
      const all = [...a, ...b, ...c];
      expect(new Set(all).size).toBe(all.length);
      expect(new Set(all.map((id) => id.split('#')[1])).size).toBe(all.length); // one counter for both
      expect((await replay(two, a[37])).map((stored) => stored.id)).toEqual(a.slice(38));
      expect((await replay(one, b[0])).map((stored) => stored.id)).toEqual(b.slice(1));
    });
  });

  describe('two Express apps sharing Redis stores (rmcp seed scenario)', () => {
    test('instance B, with its own stores on new clients, replays from Redis the response instance A stored', () =>
      replayOnSecondInstanceWithRedis({ connect, exists: (key) => client().exists(key), prefix }));
  });
});
