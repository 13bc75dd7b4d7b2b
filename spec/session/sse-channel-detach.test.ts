/**
 * SseChannel's detach listeners: the consumer's `return()` tells each listener still registered once, in the order
 * they were registered, whatever was removed before. The first listener is kept without an array (the usual
 * channel has one), so the order across that slot and the rest is what these tests pin down.
 */
import fc from 'fast-check';
import { SseChannel } from '../../lib/session/sse-channel.js';

describe('SseChannel.onDetach', () => {
  test('return() calls each listener once, in the order they were registered', async () => {
    const channel = new SseChannel();
    const calls: string[] = [];
    channel.onDetach(() => calls.push('a'));
    channel.onDetach(() => calls.push('b'));
    channel.onDetach(() => calls.push('c'));
    await channel.return();
    await channel.return();
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  test('a removed first listener is not called, and one registered after it still comes after the others', async () => {
    const channel = new SseChannel();
    const calls: string[] = [];
    const offA = channel.onDetach(() => calls.push('a'));
    channel.onDetach(() => calls.push('b'));
    offA();
    channel.onDetach(() => calls.push('c'));
    await channel.return();
    expect(calls).toEqual(['b', 'c']);
  });

  test('the owner is told once, after the listeners, with the channel; the channel ending normally tells it nothing', async () => {
    const calls: string[] = [];
    const owner = { channelDetached: (channel: SseChannel) => calls.push(channel === detached ? 'owner' : 'owner of another'), channelOverflowed: () => calls.push('overflow') };
    const detached = new SseChannel();
    detached.owner = owner;
    detached.onDetach(() => calls.push('a'));
    await detached.return();
    await detached.return();
    const ended = new SseChannel();
    ended.owner = owner;
    ended.end();
    expect(await ended.next()).toEqual({ value: undefined, done: true });
    expect(calls).toEqual(['a', 'owner']);
  });

  test('a listener registered after the consumer went away runs at once, and its remover does nothing', async () => {
    const channel = new SseChannel();
    await channel.return();
    const calls: string[] = [];
    const off = channel.onDetach(() => calls.push('late'));
    expect(calls).toEqual(['late']);
    off();
    await channel.return();
    expect(calls).toEqual(['late']);
  });

  test('the channel ending normally (end, then the consumer reads done) calls no listener', async () => {
    const channel = new SseChannel();
    const calls: string[] = [];
    channel.onDetach(() => calls.push('a'));
    channel.push({ data: '1' });
    channel.end();
    expect(await channel.next()).toEqual({ value: { data: '1' }, done: false });
    expect(await channel.next()).toEqual({ value: undefined, done: true });
    expect(calls).toEqual([]);
  });

  test('any sequence of registrations and removals: return() calls exactly the listeners left, in registration order', async () => {
    // Each step registers a new listener (true) or removes the listener registered `at` (modulo how many exist).
    const step = fc.oneof(fc.constant({ add: true as const }), fc.record({ add: fc.constant(false as const), at: fc.nat(20) }));
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 24 }), async (steps) => {
        const channel = new SseChannel();
        const calls: number[] = [];
        const removers: Array<() => void> = [];
        const left = new Set<number>();
        for (const s of steps) {
          if (s.add) {
            const n = removers.length;
            removers.push(channel.onDetach(() => calls.push(n)));
            left.add(n);
          } else if (removers.length > 0) {
            const n = s.at % removers.length;
            removers[n]();
            left.delete(n);
          }
        }
        await channel.return();
        expect(calls).toEqual([...left].sort((a, b) => a - b));
      }),
    );
  });
});
