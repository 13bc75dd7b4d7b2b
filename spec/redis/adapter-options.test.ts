/**
 * What the Redis adapters do before Redis is involved, on stand-in clients (no Redis needed): option checks, the
 * deadline of an operation that gets no answer, the abort of what is still queued, the escaping of hash tags.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CommandDeadlines } from '../../lib/redis/command-deadline.js';
import { hashTag } from '../../lib/redis/hash-tag.js';
import { RedisEventStore, RedisMessageBus, RedisSessionStore, RedisTaskStore, RedisTimeoutError, type RedisEventStoreClient } from '../../lib/redis/index.js';
import { event } from '../store/event-store-helpers.js';

/** A client whose commands are never answered (Redis down, node-redis queueing); records the abort signals it was given. */
function unansweredClient() {
  const signals: AbortSignal[] = [];
  const never = () => new Promise<never>(() => undefined);
  const multi = () => {
    const chain: Record<string, unknown> = {};
    for (const name of ['hSet', 'hGet', 'rPush', 'lTrim', 'lRange', 'pExpire', 'pTTL']) chain[name] = () => chain;
    chain.exec = never;
    return chain;
  };
  const client = {
    incr: never,
    hGet: never,
    lRange: never,
    multi,
    get: never,
    set: never,
    del: never,
    eval: never,
    hGetAll: never,
    zAdd: never,
    zRange: never,
    zRem: never,
    pExpire: never,
    publish: never,
    sPublish: never,
    duplicate: () => ({ connect: never, on: () => undefined, subscribe: never, unsubscribe: never, sSubscribe: never, sUnsubscribe: never, close: never, destroy: () => undefined }),
    withCommandOptions(options: { abortSignal?: AbortSignal }) {
      if (options.abortSignal) signals.push(options.abortSignal);
      return client;
    },
  };
  return { client, signals };
}

test('every operation on a client that never answers rejects with RedisTimeoutError naming the adapter and the option', async () => {
  const { client, signals } = unansweredClient();
  const options = { commandTimeoutMs: 20 };
  const events = new RedisEventStore(client as unknown as RedisEventStoreClient, options);
  const sessions = new RedisSessionStore(client, options);
  const tasks = new RedisTaskStore(client, options);
  const bus = new RedisMessageBus(client, { ...options, onError: () => undefined });

  const timeout = (adapter: string) => expect.objectContaining({ name: 'RedisTimeoutError', timeoutMs: 20, message: expect.stringContaining(`within 20 ms (${adapter} option commandTimeoutMs)`) });
  await expect(events.storeEvent('s/1', event('a'))).rejects.toEqual(timeout('RedisEventStore'));
  await expect(events.replayEventsAfter('s/1#1').next()).rejects.toEqual(timeout('RedisEventStore'));
  await expect(events.completeStream('s/1')).rejects.toEqual(timeout('RedisEventStore'));
  await expect(events.isStreamComplete('s/1')).rejects.toEqual(timeout('RedisEventStore'));
  await expect(sessions.load('s')).rejects.toEqual(timeout('RedisSessionStore'));
  await expect(sessions.delete('s')).rejects.toEqual(timeout('RedisSessionStore'));
  await expect(tasks.get('t')).rejects.toEqual(timeout('RedisTaskStore'));
  await expect(tasks.list('alice')).rejects.toEqual(timeout('RedisTaskStore'));
  await expect(bus.publish('c', 1)).rejects.toEqual(timeout('RedisMessageBus'));
  await expect(bus.subscribe('c', () => undefined)).rejects.toBeInstanceOf(RedisTimeoutError);

  // Events of one tick share a command, and its failure: each of them rejects.
  const both = [events.storeEvent('s/2', event('a')), events.storeEvent('s/2', event('b'))];
  for (const stored of both) await expect(stored).rejects.toEqual(timeout('RedisEventStore'));
  await expect(events.storeEvent('', event('a'))).rejects.toThrow(/non-empty streamId/);

  // Commands were sent with the deadline's abort signal, aborted once it passed: node-redis drops what is still queued.
  expect(signals.length).toBeGreaterThanOrEqual(9);
  expect(signals.every((signal) => signal.aborted && signal.reason instanceof RedisTimeoutError)).toBe(true);
});

test('a write that throws at once rejects its own events only: the store goes on writing', async () => {
  let failOnce = true;
  const client = {
    incr: async () => 1,
    lRange: async () => [],
    multi: () => ({}) as never,
    eval: async () => 41,
    withCommandOptions(_options: unknown) {
      if (failOnce) {
        failOnce = false;
        throw new Error('client broke once');
      }
      return client;
    },
  };
  const events = new RedisEventStore(client as unknown as RedisEventStoreClient, { commandTimeoutMs: 1000 });
  // Two streams' events of one tick: the first stream's write throws, the other's is written all the same.
  const [broken, other] = [events.storeEvent('s/1', event('a')), events.storeEvent('s/2', event('b'))];
  await expect(broken).rejects.toThrow('client broke once');
  expect(await other).toBe('s/2#41');
  expect(await events.storeEvent('s/1', event('c'))).toBe('s/1#41');
  expect(await Promise.all([events.storeEvent('s/3', event('d')), events.storeEvent('s/3', event('e'))])).toEqual(['s/3#41', 's/3#42']);
});

test('a transaction is never queued on a disconnected client: it waits for the connection, within the deadline', async () => {
  const sent: string[] = [];
  const client = {
    isReady: false,
    incr: async () => 7, // answered before the connection dropped
    hGet: async () => '7',
    multi: () => {
      const chain = { hSet: () => chain, rPush: () => chain, lTrim: () => chain, lRange: () => chain, pExpire: () => chain, pTTL: () => chain, exec: async () => sent.push('exec') };
      sent.push('multi');
      return chain;
    },
  };
  const events = new RedisEventStore(client as unknown as RedisEventStoreClient, { commandTimeoutMs: 50 });
  await expect(events.storeEvent('s/1', event('a'))).rejects.toBeInstanceOf(RedisTimeoutError);
  await expect(events.completeStream('s/1')).rejects.toBeInstanceOf(RedisTimeoutError);
  expect(sent).toEqual([]); // past the deadline: never sent

  // Connected again before the deadline: the transaction goes out then.
  const patient = new RedisEventStore(client as unknown as RedisEventStoreClient, { commandTimeoutMs: 60_000 });
  const stored = patient.storeEvent('s/1', event('b'));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(sent).toEqual([]);
  client.isReady = true;
  expect(await stored).toBe('s/1#7');
  expect(sent).toEqual(['multi', 'exec']);
});

test('RedisEventStore pipelines (keepsWriteOrder) only on a createClient() client: not a cluster, pool or Sentinel client', () => {
  const evalOnly = { incr: async () => 1, hGet: async () => null, multi: () => ({}) as never, eval: async () => 1 };
  expect(new RedisEventStore(evalOnly as unknown as RedisEventStoreClient).keepsWriteOrder).toBe(true);
  for (const extra of ['getSlotRandomNode', 'execute', 'getMasterNode']) {
    const client = { ...evalOnly, [extra]: () => undefined };
    expect(new RedisEventStore(client as unknown as RedisEventStoreClient).keepsWriteOrder).toBe(false);
  }
});

test('options are checked when an adapter is built', () => {
  const { client } = unansweredClient();
  for (const commandTimeoutMs of [-1, 1.5, Number.NaN]) {
    expect(() => new RedisEventStore(client as unknown as RedisEventStoreClient, { commandTimeoutMs })).toThrow(/commandTimeoutMs must be 0 \(no deadline\) or a positive integer/);
    expect(() => new RedisSessionStore(client, { commandTimeoutMs })).toThrow(RangeError);
    expect(() => new RedisTaskStore(client, { commandTimeoutMs })).toThrow(RangeError);
    expect(() => new RedisMessageBus(client, { commandTimeoutMs })).toThrow(RangeError);
  }
  expect(() => new RedisEventStore(client as unknown as RedisEventStoreClient, { keyPrefix: 'app:{x}:' })).toThrow(/keyPrefix must not contain "\{" or "\}"/);
  expect(() => new RedisTaskStore(client, { keyPrefix: 'app{' })).toThrow(RangeError);
});

test('a hash tag escapes its id: one tag per id, no braces inside, never empty', () => {
  const ids = ['sess/1', '}x', '{y}', 'a{b}c', '%7B', '{', '%', '', 'plain'];
  const tags = ids.map(hashTag);
  expect(new Set(tags).size).toBe(ids.length);
  for (const tag of tags) expect(tag).toMatch(/^\{[^{}]+\}$/);
  expect(hashTag('sess/1')).toBe('{sess/1}'); // ids without %, { or } keep their former keys
  expect(hashTag('{')).toBe('{%7B}');
});

describe('CommandDeadlines: one timer and one signal per window of operations', () => {
  /** A client that records the command options each window asks for and answers when told. */
  function recordingClient() {
    const options: Array<{ abortSignal: AbortSignal; timeout?: number }> = [];
    const client = {
      withCommandOptions(given: { abortSignal: AbortSignal; timeout?: number }) {
        options.push(given);
        return client;
      },
    };
    return { client, options };
  }
  const never = () => new Promise<never>(() => undefined);

  test('operations started together share a signal and reject together, no earlier than the deadline', async () => {
    const { client, options } = recordingClient();
    const deadlines = new CommandDeadlines('TestAdapter', client, 160); // a window of 10 ms
    const started = performance.now();
    const signals: AbortSignal[] = [];
    const failures = [1, 2, 3].map(() =>
      deadlines
        .run((_, signal) => {
          signals.push(signal);
          return never();
        })
        .catch((error: unknown) => ({ error, at: performance.now() - started })),
    );
    expect(new Set(signals).size).toBe(1);
    expect(options).toEqual([{ abortSignal: signals[0], timeout: 0 }]); // node-redis's own per-command timer is replaced
    const results = await Promise.all(failures);
    for (const { error, at } of results) {
      expect(error).toBeInstanceOf(RedisTimeoutError);
      expect((error as RedisTimeoutError).message).toMatch(/within 160 ms \(TestAdapter option commandTimeoutMs\)/);
      expect(at).toBeGreaterThanOrEqual(159);
      expect(at).toBeLessThan(160 + 10 + 150); // the window, and slack for a loaded machine
    }
    expect(signals[0].aborted).toBe(true);
    expect(signals[0].reason).toBe(results[0].error);
  });

  test('an operation after the window gets a new signal; answered operations resolve, late answers are ignored', async () => {
    const { client } = recordingClient();
    const deadlines = new CommandDeadlines('TestAdapter', client, 32); // a window of 2 ms
    let firstSignal: AbortSignal | undefined;
    let answerLate: (value: string) => void = () => undefined;
    const late = deadlines.run((_, signal) => {
      firstSignal = signal;
      return new Promise<string>((resolve) => {
        answerLate = resolve;
      });
    });
    expect(await deadlines.run(async () => 'answered')).toBe('answered');
    await new Promise((resolve) => setTimeout(resolve, 10));
    let secondSignal: AbortSignal | undefined;
    expect(
      await deadlines.run(async (_, signal) => {
        secondSignal = signal;
        return 'later';
      }),
    ).toBe('later');
    expect(secondSignal).not.toBe(firstSignal);
    await expect(late).rejects.toBeInstanceOf(RedisTimeoutError);
    answerLate('too late'); // settles nothing: the caller was already told it failed
    await expect(late).rejects.toBeInstanceOf(RedisTimeoutError);
    expect(secondSignal!.aborted).toBe(false); // the first window's expiry leaves the later window's operations alone
  });

  test('a busy window takes an abort listener per command (as node-redis does) without a MaxListeners warning', () => {
    // In a process of its own, on the build (jest's sandbox does not see the process's warnings).
    const built = path.join(__dirname, '..', '..', 'dist', 'cjs', 'redis', 'command-deadline.js');
    expect(fs.existsSync(built)).toBe(true); // npm run build (.ci/run builds before npm test)
    const program = `
      const { CommandDeadlines } = require(${JSON.stringify(built)});
      const client = { withCommandOptions() { return client; } };
      const deadlines = new CommandDeadlines('TestAdapter', client, 1000);
      const signals = new Set();
      Promise.all(Array.from({ length: 50 }, (_, n) => deadlines.run(async (_, signal) => {
        signal.addEventListener('abort', () => undefined, { once: true });
        signals.add(signal);
        return n;
      }))).then((answers) => setImmediate(() => console.log(JSON.stringify({ answers: answers.length, signals: signals.size }))));
    `;
    const result = spawnSync(process.execPath, ['-e', program], { encoding: 'utf8', timeout: 10_000 });
    expect(JSON.parse(result.stdout)).toEqual({ answers: 50, signals: 1 });
    expect(result.stderr).not.toMatch(/MaxListenersExceededWarning/);
  });

  test('when a window times out, later windows\' operations still waiting fail with it (no write lands behind a dropped one)', async () => {
    const { client } = recordingClient();
    const deadlines = new CommandDeadlines('TestAdapter', client, 160); // a window of 10 ms
    const started = performance.now();
    const first = deadlines.run(never).catch((error: unknown) => ({ error, at: performance.now() - started }));
    await new Promise((resolve) => setTimeout(resolve, 40));
    let laterSignal: AbortSignal | undefined;
    const later = deadlines
      .run((_, signal) => {
        laterSignal = signal;
        return never();
      })
      .catch((error: unknown) => ({ error, at: performance.now() - started }));
    expect(await deadlines.run(async () => 'answered')).toBe('answered'); // settled: unaffected
    const [a, b] = await Promise.all([first, later]);
    expect(a.error).toBeInstanceOf(RedisTimeoutError);
    expect(b.error).toBeInstanceOf(RedisTimeoutError);
    // The later one failed with the first, before its own deadline (started 40 ms later), and its queued command is dropped.
    expect(b.at - a.at).toBeLessThan(30);
    expect(laterSignal!.aborted).toBe(true);
  });

  test('a one-command operation goes without the signal only on a client without an offline queue, while no command may wait in it', async () => {
    /** Each client it makes says whether it carries a signal. A client that drops what is queued when it disconnects. */
    const client = {
      isReady: true,
      options: { disableOfflineQueue: true },
      withCommandOptions(options: { abortSignal?: AbortSignal; timeout?: number }) {
        return { signalled: options.abortSignal !== undefined, timeout: options.timeout };
      },
    };
    type Made = { signalled: boolean; timeout?: number };
    const deadlines = new CommandDeadlines('TestAdapter', client as object, 320); // a window of 20 ms; 20 ms unanswered is a stall
    const sentOn: Array<Made> = [];
    const answered = (oneCommand = true) => deadlines.run(async (c) => sentOn.push(c as Made), oneCommand);
    const unanswered = (oneCommand = true) =>
      deadlines.run((c) => {
        sentOn.push(c as Made);
        return never();
      }, oneCommand);
    const signalled = () => sentOn.map((c) => c.signalled);

    await answered(); // Redis answers: no signal
    await answered(false); // several commands: always (a later one could wait after a disconnect)
    client.isReady = false;
    await answered(); // reconnecting: node-redis would queue it
    client.isReady = true;
    const hanging = unanswered().catch((error: unknown) => error); // nothing else waits: sent without one
    await answered(); // at once, while one waits: Redis answered it, and this one
    expect(signalled()).toEqual([false, true, true, false, false]);

    await new Promise((resolve) => setTimeout(resolve, 40)); // the hanging one: unanswered for more than 20 ms
    const stuck = unanswered().catch((error: unknown) => error);
    // While a command with the signal waits, none goes without it (it could be queued behind one the deadline drops),
    // even when others are answered meanwhile.
    await answered();
    await answered();
    expect(signalled()).toEqual([false, true, true, false, false, true, true, true]);
    expect(await hanging).toBeInstanceOf(RedisTimeoutError);
    expect(await stuck).toBeInstanceOf(RedisTimeoutError);

    await answered(); // past a deadline, with nothing waiting: still signalled until Redis answers
    await answered(); // it did
    expect(signalled().slice(8)).toEqual([true, false]);
    expect(sentOn.every((c) => c.timeout === 0)).toBe(true); // node-redis's own timer is off on both clients

    // Every command carries it on a client that keeps what is queued across a reconnection (the offline queue on, as
    // by default: a command written nowhere when the connection drops is sent once it is back), and on a cluster
    // client, whose isReady speaks for all its nodes, not the one a command takes.
    for (const other of [{ ...client, options: {} }, { ...client, getSlotRandomNode: () => undefined }]) {
      let sentOnOther: Made | undefined;
      await new CommandDeadlines('TestAdapter', other as object, 320).run(async (c) => (sentOnOther = c as Made), true);
      expect(sentOnOther!.signalled).toBe(true);
    }
  });

  test('an operation that throws at once rejects; commandTimeoutMs 0 uses the client as given, with no deadline', async () => {
    const { client, options } = recordingClient();
    const none = new CommandDeadlines('TestAdapter', client, 0);
    let given: unknown;
    expect(
      await none.run(async (c) => {
        given = c;
        return 1;
      }),
    ).toBe(1);
    expect(given).toBe(client);
    expect(options).toEqual([]);
    const deadlines = new CommandDeadlines('TestAdapter', client, 1000);
    await expect(
      deadlines.run(() => {
        throw new Error('bad arguments');
      }),
    ).rejects.toThrow('bad arguments');
    await expect(none.run(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  });
});
