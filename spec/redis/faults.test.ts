/**
 * The Redis adapters while Redis is down: a `redis-server` this file starts on a spare port (AOF with
 * `appendfsync always`, so acknowledged writes survive its restart) is stopped and started again. While it is
 * down, every operation rejects (`RedisTimeoutError` after `commandTimeoutMs`, or at once with
 * `disableOfflineQueue`), never hangs; once it is back, node-redis reconnects and the same adapters work again,
 * with everything acknowledged before the outage still there and nothing that failed written late.
 */
import { createClient } from 'redis';
import type { SessionState } from '../../lib/index.js';
import { RedisEventStore, RedisMessageBus, RedisSessionStore, RedisStreamLeases, RedisTaskStore, RedisTimeoutError } from '../../lib/redis/index.js';
import { describeWithRedisBinaries, startRedisServer, type RedisServerProcess } from '../helpers/redis-server.js';
import { waitUntil } from '../helpers/wire.js';
import { event, replay, storeAll } from '../store/event-store-helpers.js';

const TIMEOUT_MS = 300;

const newClient = (url: string, options: { disableOfflineQueue?: boolean } = {}) =>
  createClient({ url, ...options, socket: { reconnectStrategy: () => 50, connectTimeout: 1000 } });
type Client = ReturnType<typeof newClient>;

const state: SessionState = { protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [], initializeParams: {}, createdAt: 0 };
const task = (taskId: string) => ({
  taskId,
  owner: 'alice',
  status: 'working' as const,
  createdAt: '2026-01-01T00:00:00.000Z',
  lastUpdatedAt: '2026-01-01T00:00:00.000Z',
  ttlMs: 60_000,
  inputRequests: {},
  inputResponses: {},
});

describeWithRedisBinaries('the Redis fault suites', () => {
  let server: RedisServerProcess;
  const clients: Client[] = [];
  const buses: RedisMessageBus[] = [];

  async function connect(options: { disableOfflineQueue?: boolean } = {}): Promise<Client> {
    const client = newClient(server.url, options);
    client.on('error', () => undefined); // every failed reconnection while the server is down
    clients.push(client);
    await client.connect();
    return client;
  }

  beforeAll(async () => {
    server = await startRedisServer({ args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
  });

  afterAll(async () => {
    try {
      for (const bus of buses) await bus.close();
      for (const client of clients) client.destroy();
    } finally {
      await server?.dispose();
    }
  });

  test('Redis stopped: every operation rejects within commandTimeoutMs; restarted: the same adapters work again, nothing acknowledged is lost', async () => {
    const client = await connect();
    const events = new RedisEventStore(client, { commandTimeoutMs: TIMEOUT_MS });
    const sessions = new RedisSessionStore(client, { commandTimeoutMs: TIMEOUT_MS });
    const tasks = new RedisTaskStore(client, { commandTimeoutMs: TIMEOUT_MS });
    const leases = new RedisStreamLeases(client, { commandTimeoutMs: TIMEOUT_MS });
    const bus = new RedisMessageBus(client, { commandTimeoutMs: TIMEOUT_MS, onError: () => undefined });
    buses.push(bus);
    const received: unknown[] = [];
    await bus.subscribe('news', (message) => received.push(message));

    const before = await storeAll(events, 's/1', ['e1', 'e2']);
    await sessions.store('s', state);
    await tasks.create(task('t1'));
    await leases.acquire('s/1', { requestId: 1 }, 60_000, 60_000);

    await server.stop();

    const timedOut = expect.objectContaining({ name: 'RedisTimeoutError', message: expect.stringMatching(/^Redis did not answer within 300 ms \(RedisEventStore option commandTimeoutMs\)/) });
    await expect(events.storeEvent('s/1', event('while-down'))).rejects.toEqual(timedOut);
    await expect(replay(events, before[0])).rejects.toBeInstanceOf(RedisTimeoutError);
    await expect(events.completeStream('s/1')).rejects.toBeInstanceOf(RedisTimeoutError);
    await expect(events.isStreamComplete('s/1')).rejects.toBeInstanceOf(RedisTimeoutError);
    await expect(sessions.load('s')).rejects.toThrow(/RedisSessionStore option commandTimeoutMs/);
    await expect(sessions.store('s2', state)).rejects.toBeInstanceOf(RedisTimeoutError);
    await expect(sessions.delete('s')).rejects.toBeInstanceOf(RedisTimeoutError);
    await expect(tasks.get('t1')).rejects.toThrow(/RedisTaskStore option commandTimeoutMs/);
    await expect(tasks.create(task('t2'))).rejects.toBeInstanceOf(RedisTimeoutError);
    await expect(tasks.list('alice')).rejects.toBeInstanceOf(RedisTimeoutError);
    await expect(leases.renew(['s/1'], 60_000)).rejects.toThrow(/RedisStreamLeases option commandTimeoutMs/);
    await expect(leases.inspect('s/1')).rejects.toBeInstanceOf(RedisTimeoutError);
    await expect(leases.release('s/1')).rejects.toBeInstanceOf(RedisTimeoutError);
    await expect(bus.publish('news', 'while-down')).rejects.toThrow(/RedisMessageBus option commandTimeoutMs/);
    // A bus that has not connected its subscriber yet cannot: that too has the deadline.
    const fresh = new RedisMessageBus(client, { commandTimeoutMs: TIMEOUT_MS, onError: () => undefined });
    buses.push(fresh);
    await expect(fresh.subscribe('news', () => undefined)).rejects.toBeInstanceOf(RedisTimeoutError);

    await server.restart();
    await waitUntil(() => client.isReady, 'the client to reconnect', 10_000);

    // What was acknowledged before the outage is there; the write that failed during it never happened.
    expect((await replay(events, `s/1#0`)).map((stored) => stored.method)).toEqual(['e1', 'e2']);
    const after = await storeAll(events, 's/1', ['e3']);
    expect((await replay(events, before[1])).map((stored) => stored.id)).toEqual(after);
    expect(await sessions.load('s')).toEqual(state);
    expect(await sessions.load('s2')).toBeUndefined();
    expect((await tasks.get('t1'))?.status).toBe('working');
    expect(await tasks.get('t2')).toBeUndefined();
    expect((await tasks.list('alice')).tasks.map((each) => each.taskId)).toEqual(['t1']);
    expect(await leases.inspect('s/1')).toEqual({ info: { requestId: 1 }, held: true, released: false });

    // node-redis subscribes the bus's connection again by itself; messages published meanwhile are gone (at most once).
    let n = 0;
    await waitUntil(
      async () => {
        await bus.publish('news', { n: ++n });
        return received.length > 0;
      },
      'a message through the bus after the restart',
      10_000,
    );
    expect(received.every((message) => typeof (message as { n: number }).n === 'number')).toBe(true);
    // The bus that could not subscribe during the outage can now.
    const late: unknown[] = [];
    await fresh.subscribe('news', (message) => late.push(message));
    await bus.publish('news', 'late');
    await waitUntil(() => late.length === 1, 'the late subscription');
    expect(late).toEqual(['late']);
  });

  test('a client created with disableOfflineQueue: operations reject at once with the client’s own error, not the deadline', async () => {
    if (!server) throw new Error('no server');
    const client = await connect({ disableOfflineQueue: true });
    const events = new RedisEventStore(client, { commandTimeoutMs: 60_000 });
    const sessions = new RedisSessionStore(client, { commandTimeoutMs: 60_000 });
    await sessions.store('q', state);
    await server.stop();
    await waitUntil(() => !client.isReady, 'the client to notice');
    // A 60 s deadline would outlast the jest timeout: these reject because the client refuses while offline.
    await expect(events.storeEvent('q/1', event('x'))).rejects.not.toBeInstanceOf(RedisTimeoutError);
    await expect(sessions.load('q')).rejects.not.toBeInstanceOf(RedisTimeoutError);
    await server.restart();
    await waitUntil(() => client.isReady, 'the client to reconnect', 10_000);
    expect(await sessions.load('q')).toEqual(state);
  }, 15_000);

  test('a client created with disableOfflineQueue: an event written as Redis stops is stored if and only if its write succeeded', async () => {
    if (!server) throw new Error('no server');
    const client = await connect({ disableOfflineQueue: true });
    const events = new RedisEventStore(client, { commandTimeoutMs: TIMEOUT_MS });
    await storeAll(events, 'r/1', ['e1']); // Redis answers: the store's writes go without the abort signal
    await server.stop();
    // Often before the client notices (its socket closed, the write waiting in node-redis without a signal): node-redis
    // drops it when it handles the close (no offline queue), or the deadline fails it. Never written late.
    const written = await events.storeEvent('r/1', event('as-it-stops')).then(
      () => true,
      () => false,
    );
    await server.restart();
    await waitUntil(() => client.isReady, 'the client to reconnect', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100)); // anything still queued would be written by now
    expect((await replay(events, 'r/1#0')).map((stored) => stored.method)).toEqual(written ? ['e1', 'as-it-stops'] : ['e1']);
  }, 15_000);
});
