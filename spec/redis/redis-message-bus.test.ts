/**
 * `RedisMessageBus` (`mcp-express/redis`) against a real Redis: the MessageBus contract with two buses on two
 * clients (two instances), with classic and with sharded pub/sub; the wire format; the client it is given stays
 * the user's.
 */
import { RedisMessageBus, type RedisMessageBusOptions } from '../../lib/redis/index.js';
import { describeMessageBusContract } from '../../lib/testing/index.js';
import { describeWithRedis, type RedisTestClient } from '../helpers/redis.js';
import { waitUntil } from '../helpers/wire.js';

describeWithRedis('the Redis message bus suites', (redis) => {
  let other: RedisTestClient;
  beforeAll(async () => {
    other = await redis.connect();
  });

  const buses: RedisMessageBus[] = [];
  const bus = (client: RedisTestClient, options: RedisMessageBusOptions = {}) => {
    const created = new RedisMessageBus(client, { channelPrefix: redis.prefix('bus'), ...options });
    buses.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((each) => each.close()));
  });

  for (const sharded of [false, true]) {
    describeMessageBusContract(`RedisMessageBus (${sharded ? 'sharded' : 'classic'} pub/sub)`, () => {
      const channelPrefix = redis.prefix('contract');
      return { a: bus(redis.client(), { channelPrefix, sharded }), b: bus(other, { channelPrefix, sharded }) };
    });
  }

  describe('RedisMessageBus on Redis', () => {
    test('a message is JSON text on <channelPrefix><channel>, both ways', async () => {
      const channelPrefix = redis.prefix('wire');
      const onBus = bus(redis.client(), { channelPrefix });
      const raw: string[] = [];
      const spy = redis.client().duplicate();
      spy.on('error', () => undefined);
      await spy.connect();
      try {
        await spy.subscribe(`${channelPrefix}c`, (text) => raw.push(text));
        const received: unknown[] = [];
        await onBus.subscribe('c', (message) => received.push(message));
        await onBus.publish('c', { kind: 'reply', id: 7, result: { ok: true } });
        await waitUntil(() => raw.length === 1, '1 message(s) in raw');
        expect(raw).toEqual(['{"kind":"reply","id":7,"result":{"ok":true}}']);
        // Anything that publishes JSON text on the channel reaches the bus's subscribers.
        await other.publish(`${channelPrefix}c`, '[1,"two"]');
        await waitUntil(() => received.length === 2, '2 message(s) in received');
        expect(received).toEqual([{ kind: 'reply', id: 7, result: { ok: true } }, [1, 'two']]);
      } finally {
        await spy.close();
      }
    });

    test('buses with different channel prefixes do not hear each other', async () => {
      const mine = bus(redis.client(), { channelPrefix: redis.prefix('mine') });
      const theirs = bus(other, { channelPrefix: redis.prefix('theirs') });
      const received: unknown[] = [];
      await mine.subscribe('c', (message) => received.push(message));
      await theirs.publish('c', 'not for me');
      await mine.publish('c', 'for me');
      await waitUntil(() => received.length === 1, '1 message(s) in received');
      // A second message of mine, published after theirs, arriving alone proves theirs never came.
      await mine.publish('c', 'again');
      await waitUntil(() => received.length === 2, '2 message(s) in received');
      expect(received).toEqual(['for me', 'again']);
    });

    test('subscribing neither takes over nor closes the client given: it keeps running commands', async () => {
      const client = await redis.connect();
      const channelPrefix = redis.prefix('owner');
      const onBus = bus(client, { channelPrefix });
      const received: unknown[] = [];
      await onBus.subscribe('c', (message) => received.push(message));
      // A client in subscriber mode would refuse SET/GET.
      await client.set(`${channelPrefix}key`, 'v');
      expect(await client.get(`${channelPrefix}key`)).toBe('v');
      expect(await client.pubSubNumSub(`${channelPrefix}c`)).toEqual({ [`${channelPrefix}c`]: 1 });
      await onBus.close();
      // close() closed the bus's own connection (its subscription is gone), not the client.
      expect(client.isOpen).toBe(true);
      expect(await client.pubSubNumSub(`${channelPrefix}c`)).toEqual({ [`${channelPrefix}c`]: 0 });
      expect(await client.ping()).toBe('PONG');
      await expect(onBus.publish('c', 1)).rejects.toThrow(/after close/);
      await expect(onBus.subscribe('c', () => undefined)).rejects.toThrow(/after close/);
      expect(received).toEqual([]);
    });

    test('publishing needs no subscription; unsubscribing the last listener of a channel leaves it on Redis', async () => {
      const channelPrefix = redis.prefix('lazy');
      const onBus = bus(redis.client(), { channelPrefix });
      await onBus.publish('c', 'nobody'); // publishing needs no connection of the bus's own
      const unsubscribeOne = await onBus.subscribe('c', () => undefined);
      const unsubscribeTwo = await onBus.subscribe('c', () => undefined);
      expect(await other.pubSubNumSub(`${channelPrefix}c`)).toEqual({ [`${channelPrefix}c`]: 1 });
      await unsubscribeOne();
      expect(await other.pubSubNumSub(`${channelPrefix}c`)).toEqual({ [`${channelPrefix}c`]: 1 });
      await unsubscribeTwo();
      await unsubscribeTwo(); // twice is harmless
      expect(await other.pubSubNumSub(`${channelPrefix}c`)).toEqual({ [`${channelPrefix}c`]: 0 });
    });

    test('a message that is not JSON and a listener that throws go to onError; delivery goes on', async () => {
      const channelPrefix = redis.prefix('errors');
      const errors: unknown[] = [];
      const onBus = bus(redis.client(), { channelPrefix, onError: (error) => errors.push(error) });
      const received: unknown[] = [];
      await onBus.subscribe('c', (message) => {
        if (message === 'throw') throw new Error('listener failed');
        received.push(message);
      });
      await other.publish(`${channelPrefix}c`, 'not json {');
      await onBus.publish('c', 'throw');
      await onBus.publish('c', 'after');
      await waitUntil(() => received.length === 1, '1 message(s) in received');
      expect(received).toEqual(['after']);
      expect(errors.map((error) => (error as Error).message)).toEqual([expect.stringMatching(/is not JSON/), 'listener failed']);
    });

    test('a value that is not JSON is refused at publish', async () => {
      const onBus = bus(redis.client());
      await expect(onBus.publish('c', undefined)).rejects.toThrow(TypeError);
      await expect(onBus.publish('c', () => 1)).rejects.toThrow(/not a JSON value/);
    });

    test('options are checked', () => {
      expect(() => new RedisMessageBus(redis.client(), { commandTimeoutMs: -1 })).toThrow(/commandTimeoutMs/);
      expect(() => new RedisMessageBus(redis.client(), { commandTimeoutMs: 1.5 })).toThrow(RangeError);
    });
  });
});
