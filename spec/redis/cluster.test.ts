/**
 * The Redis adapters on a Redis Cluster (`createCluster()` clients): a local cluster of 3 masters started for this
 * file (`spec/helpers/redis-cluster.ts`) runs the store and stream lease contracts, the bus contract (sharded and classic pub/sub)
 * and rmcp's seed scenario across two Express apps. Skipped with a notice where `redis-server` is missing (a
 * failure under `REQUIRE_REDIS=1`).
 */
import { createCluster } from 'redis';
import { RedisEventStore, RedisMessageBus, RedisSessionStore, RedisStreamLeases, RedisTaskStore, type RedisMessageBusOptions } from '../../lib/redis/index.js';
import {
  describeEventStoreContract,
  describeMessageBusContract,
  describeSessionStoreContract,
  describeStreamLeasesContract,
  describeTaskStoreContract,
} from '../../lib/testing/index.js';
import { describeWithRedisCluster } from '../helpers/redis-cluster.js';
import { replayOnSecondInstanceWithRedis } from '../helpers/seed-scenario.js';
import { sleep, waitUntil } from '../helpers/wire.js';
import { replay, storeAll } from '../store/event-store-helpers.js';

const newCluster = (rootNodes: Array<{ url: string }>) => createCluster({ rootNodes });
type Cluster = ReturnType<typeof newCluster>;

describeWithRedisCluster('the Redis adapters on a local Redis Cluster', (cluster) => {
  const clients: Cluster[] = [];
  let client: Cluster;
  let prefixes = 0;
  const prefix = (name: string) => `mcp-express-test:${name}-${++prefixes}:`;

  async function connect(): Promise<Cluster> {
    const created = newCluster(cluster().rootNodes);
    created.on('error', (error) => console.error('[redis cluster test client]', error));
    clients.push(created);
    await created.connect();
    return created;
  }

  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await Promise.all(clients.map((each) => each.close()));
  });

  test('the cluster has 3 masters and refuses a transaction across slots (so the passing suites mean something)', async () => {
    expect(client.masters).toHaveLength(3);
    await expect(client.multi().set('mcp-express-test:{a}', '1').set('mcp-express-test:{b}', '2').exec()).rejects.toThrow();
  });

  // Redis expires keys on its own clock: the TTL checks really wait (a 1 s TTL leaves 400 ms of slack per step).
  const redisClock = { elapse: (ms: number) => sleep(ms) };
  describeEventStoreContract('RedisEventStore on a cluster', () => new RedisEventStore(client, { keyPrefix: prefix('contract-events') }), {
    ttl: { ttlMs: 1000, create: (ttlMs) => new RedisEventStore(client, { keyPrefix: prefix('contract-ttl-events'), ttlMs }), ...redisClock },
  });
  describeSessionStoreContract('RedisSessionStore on a cluster', () => new RedisSessionStore(client, { keyPrefix: prefix('contract-sessions') }), {
    ttl: { ttlMs: 1000, create: (ttlMs) => new RedisSessionStore(client, { keyPrefix: prefix('contract-ttl-sessions'), ttlMs }), ...redisClock },
  });
  describeTaskStoreContract('RedisTaskStore on a cluster', () => new RedisTaskStore(client, { keyPrefix: prefix('contract-tasks') }), {
    ttl: { ttlMs: 1000, create: () => new RedisTaskStore(client, { keyPrefix: prefix('contract-ttl-tasks') }), ...redisClock },
  });
  describeStreamLeasesContract('RedisStreamLeases on a cluster', () => new RedisStreamLeases(client, { keyPrefix: prefix('contract-leases') }));

  const buses: RedisMessageBus[] = [];
  const bus = (on: Cluster, options: RedisMessageBusOptions) => {
    const created = new RedisMessageBus(on, options);
    buses.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((each) => each.close()));
  });
  let other: Cluster;
  beforeAll(async () => {
    other = await connect();
  });
  describeMessageBusContract('RedisMessageBus on a cluster (sharded pub/sub)', () => {
    const channelPrefix = prefix('bus');
    return { a: bus(client, { channelPrefix }), b: bus(other, { channelPrefix }) };
  });

  describe('cluster specifics', () => {
    test('streams are spread over every master, each stream with its keys on one slot', async () => {
      const keyPrefix = prefix('spread');
      const store = new RedisEventStore(client, { keyPrefix });
      const streams = Array.from({ length: 24 }, (_, n) => `session-${n}/1`);
      for (const streamId of streams) await storeAll(store, streamId, ['a', 'b']);
      for (const streamId of streams) expect((await replay(store, `${streamId}#0`)).map((stored) => stored.method)).toEqual(['a', 'b']);
      // Every master holds some streams: the transactions ran on each node.
      for (const master of client.masters) {
        const node = await client.nodeClient(master);
        const keys = await node.keys(`${keyPrefix}{*`);
        expect(keys.length).toBeGreaterThan(0);
      }
    });

    test('stream ids with braces stay on one slot (escaped in the tag); such a Last-Event-ID replays, never errs', async () => {
      const keyPrefix = prefix('braces');
      const store = new RedisEventStore(client, { keyPrefix });
      for (const streamId of ['}x/1', '{y}/2', 'a{b}c/3', '%7B/4']) {
        const ids = await storeAll(store, streamId, ['e1', 'e2']);
        expect(store.streamIdOf(ids[0])).toBe(streamId);
        expect((await replay(store, ids[0])).map((stored) => stored.id)).toEqual([ids[1]]);
        await store.completeStream(streamId);
        expect(await store.isStreamComplete(streamId)).toBe(true);
      }
      // A stream that ends with its response is complete without a mark: completeStream writes no second key.
      await store.storeEvent('r/1', { message: { jsonrpc: '2.0', id: 1, result: {} } });
      await store.completeStream('r/1');
      expect(await store.isStreamComplete('r/1')).toBe(true);
      const metaKeys = [];
      for (const master of client.masters) metaKeys.push(...(await (await client.nodeClient(master)).keys(`${keyPrefix}*:meta`)));
      expect(metaKeys.filter((key) => key.includes('r/1'))).toEqual([]);
      expect(await replay(store, '{never}/9#5')).toEqual([]);
      expect(await store.isStreamComplete('}{')).toBe(false);
    });

    test('tasks of one owner on different slots are listed page by page', async () => {
      const store = new RedisTaskStore(client, { keyPrefix: prefix('list') });
      const owner = `owner-${Date.now()}`;
      const ids = Array.from({ length: 7 }, (_, n) => `task-${n}`);
      for (const [n, taskId] of ids.entries()) {
        const createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
        await store.create({ taskId, owner, status: 'working', createdAt, lastUpdatedAt: createdAt, ttlMs: 60_000, inputRequests: {}, inputResponses: {} });
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list(owner, { cursor, limit: 3 });
        seen.push(...page.tasks.map((task) => task.taskId));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(seen).toEqual([...ids].reverse()); // newest first
    });

    test('on a cluster client the bus publishes with SPUBLISH by default (a sharded subscriber hears it)', async () => {
      const channelPrefix = prefix('spublish');
      const onBus = bus(client, { channelPrefix });
      const spy = other.duplicate();
      spy.on('error', () => undefined);
      await spy.connect();
      try {
        const raw: string[] = [];
        await spy.sSubscribe(`${channelPrefix}c`, (text) => raw.push(text));
        await onBus.publish('c', { n: 1 });
        await waitUntil(() => raw.length === 1, 'the sharded message');
        expect(raw).toEqual(['{"n":1}']);
      } finally {
        await spy.close();
      }
    });

    // node-redis sends a cluster's PUBLISH to a random node each time: one publisher's messages could overtake each other.
    test('classic pub/sub (sharded: false) is refused on a cluster client, with the reason', () => {
      expect(() => new RedisMessageBus(client, { sharded: false })).toThrow(/sharded: false is not supported on a cluster client.*out of order/);
    });
  });

  describe('two Express apps sharing Redis stores on a cluster (rmcp seed scenario)', () => {
    test('instance B, with its own stores on new cluster clients, replays from Redis the response instance A stored', () =>
      replayOnSecondInstanceWithRedis({ connect, exists: (key) => client.exists(key), prefix }));
  });
});
