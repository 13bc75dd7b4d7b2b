/**
 * The contract every `MessageBus` passes (the in-process and Redis buses, and yours):
 * `describeMessageBusContract('MyBus', () => ({ a: busOfInstanceA, b: busOfInstanceB }))` at the top level of a
 * jest test file. `create` returns two buses that stand for two instances of one deployment (for an in-process bus,
 * the same object twice; for a shared bus, two buses on two connections).
 */
import type { MessageBus } from '../store/message-bus.js';
import { testGlobals } from './test-globals.js';

export interface MessageBusContractOptions {
  /** Called after each test with the pair it used (close connections here). Defaults to doing nothing. */
  dispose?: (pair: MessageBusPair) => void | Promise<void>;
  /** How long a test waits for a message that should arrive, in ms. Defaults to `2000`. */
  deliveryTimeoutMs?: number;
  /** How long a test waits to be sure a message that should not arrive does not, in ms. Defaults to `100`. */
  quietMs?: number;
}

/** Two buses standing for two instances of one deployment. */
export interface MessageBusPair {
  a: MessageBus;
  b: MessageBus;
}

const uniqueChannel = (name: string) => `contract-${name}-${Date.now()}-${Math.random().toString(36).slice(2)}`;

/** Collects what a subscription receives and lets a test wait for a count. */
class Inbox {
  readonly messages: unknown[] = [];
  private waiters: Array<() => void> = [];
  readonly listener = (message: unknown) => {
    this.messages.push(message);
    for (const wake of this.waiters.splice(0)) wake();
  };

  async waitFor(count: number, timeoutMs: number): Promise<unknown[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} messages within ${timeoutMs} ms, got ${this.messages.length}: ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.messages;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeMessageBusContract(name: string, create: () => MessageBusPair | Promise<MessageBusPair>, options: MessageBusContractOptions = {}): void {
  const { describe, test, beforeEach, afterEach, expect } = testGlobals();
  const timeoutMs = options.deliveryTimeoutMs ?? 2000;
  const quietMs = options.quietMs ?? 100;
  describe(`MessageBus contract: ${name}`, () => {
    let pair: MessageBusPair;
    const unsubscribes: Array<() => Promise<void>> = [];
    beforeEach(async () => {
      pair = await create();
    });
    afterEach(async () => {
      for (const unsubscribe of unsubscribes.splice(0)) await unsubscribe();
      await options.dispose?.(pair);
    });
    const subscribe = async (bus: MessageBus, channel: string, inbox: Inbox) => {
      const unsubscribe = await bus.subscribe(channel, inbox.listener);
      unsubscribes.push(unsubscribe);
      return unsubscribe;
    };

    test('a message published on one instance reaches a subscriber on the other, and one on the same instance', async () => {
      const channel = uniqueChannel('cross');
      const onA = new Inbox();
      const onB = new Inbox();
      await subscribe(pair.a, channel, onA);
      await subscribe(pair.b, channel, onB);
      await pair.a.publish(channel, { kind: 'hello', n: 1 });
      expect(await onB.waitFor(1, timeoutMs)).toEqual([{ kind: 'hello', n: 1 }]);
      expect(await onA.waitFor(1, timeoutMs)).toEqual([{ kind: 'hello', n: 1 }]);
    });

    test('messages arrive in publish order from one publisher, each once', async () => {
      const channel = uniqueChannel('order');
      const inbox = new Inbox();
      await subscribe(pair.b, channel, inbox);
      for (let n = 0; n < 50; n++) await pair.a.publish(channel, { n });
      const received = await inbox.waitFor(50, timeoutMs);
      expect(received).toEqual(Array.from({ length: 50 }, (_, n) => ({ n })));
      await pause(quietMs);
      expect(inbox.messages.length).toBe(50);
    });

    test('JSON values of every kind survive the trip unchanged', async () => {
      const channel = uniqueChannel('json');
      const inbox = new Inbox();
      await subscribe(pair.b, channel, inbox);
      const values = ['text with "quotes" and ünïcödé', 42, true, null, [1, 'two', { three: 3 }], { nested: { deep: [{ a: null }] } }];
      for (const value of values) await pair.a.publish(channel, value);
      expect(await inbox.waitFor(values.length, timeoutMs)).toEqual(values);
    });

    test('channels are separate: a subscriber gets only its own channel', async () => {
      const mine = uniqueChannel('mine');
      const other = uniqueChannel('other');
      const inbox = new Inbox();
      await subscribe(pair.b, mine, inbox);
      await pair.a.publish(other, { for: 'other' });
      await pair.a.publish(mine, { for: 'mine' });
      expect(await inbox.waitFor(1, timeoutMs)).toEqual([{ for: 'mine' }]);
      await pause(quietMs);
      expect(inbox.messages).toEqual([{ for: 'mine' }]);
    });

    test('two subscriptions to one channel each get every message', async () => {
      const channel = uniqueChannel('twice');
      const first = new Inbox();
      const second = new Inbox();
      await subscribe(pair.b, channel, first);
      await subscribe(pair.b, channel, second);
      await pair.a.publish(channel, 'x');
      expect(await first.waitFor(1, timeoutMs)).toEqual(['x']);
      expect(await second.waitFor(1, timeoutMs)).toEqual(['x']);
    });

    test('after unsubscribe nothing more arrives; the other subscription of the channel goes on', async () => {
      const channel = uniqueChannel('unsubscribe');
      const leaving = new Inbox();
      const staying = new Inbox();
      const unsubscribe = await subscribe(pair.b, channel, leaving);
      await subscribe(pair.b, channel, staying);
      await pair.a.publish(channel, 1);
      await leaving.waitFor(1, timeoutMs);
      await unsubscribe();
      await pair.a.publish(channel, 2);
      expect(await staying.waitFor(2, timeoutMs)).toEqual([1, 2]);
      await pause(quietMs);
      expect(leaving.messages).toEqual([1]);
    });

    test('a publish with no subscriber anywhere resolves and is not kept for later subscribers', async () => {
      const channel = uniqueChannel('nobody');
      await pair.a.publish(channel, 'lost');
      const inbox = new Inbox();
      await subscribe(pair.b, channel, inbox);
      await pair.a.publish(channel, 'seen');
      expect(await inbox.waitFor(1, timeoutMs)).toEqual(['seen']);
    });

    test('listeners are never called inside publish', async () => {
      const channel = uniqueChannel('async');
      let insidePublish = false;
      let calledInside = false;
      const inbox = new Inbox();
      const unsubscribe = await pair.a.subscribe(channel, (message) => {
        if (insidePublish) calledInside = true;
        inbox.listener(message);
      });
      unsubscribes.push(unsubscribe);
      insidePublish = true;
      const published = pair.a.publish(channel, 'm');
      insidePublish = false;
      await published;
      await inbox.waitFor(1, timeoutMs);
      expect(calledInside).toBe(false);
    });
  });
}
