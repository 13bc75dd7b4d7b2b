/**
 * SseChannel's queue: events wait in order for the consumer, `peek()` shows the oldest, `buffered` counts their JSON
 * text, `clear()` drops them (`clearBehindHead()` all but the oldest), and the overflow and room signals follow the
 * bytes waiting behind the head. Checked against an array model for any sequence of pushes, reads and clears.
 */
import fc from 'fast-check';
import { SseChannel } from '../../lib/session/sse-channel.js';
import type { SseEvent } from '../../lib/store/sse-event.js';

const event = (n: number, bytes = 1): SseEvent => ({ data: String(n).padEnd(bytes, '.') });

describe('SseChannel queue', () => {
  test('events queued before the consumer reads come out in order, then done once ended', async () => {
    const channel = new SseChannel();
    for (let i = 0; i < 5; i++) expect(channel.push(event(i))).toBe(true);
    channel.end();
    expect(channel.push(event(9))).toBe(false);
    const read: unknown[] = [];
    for await (const e of channel) read.push(e.data);
    expect(read).toEqual(['0', '1', '2', '3', '4']);
  });

  test('a reader waiting gets the next event directly, and the queue stays empty', async () => {
    const channel = new SseChannel();
    const pending = channel.next();
    channel.push(event(1));
    expect(await pending).toEqual({ value: event(1), done: false });
    expect(channel.peek()).toBeUndefined();
    expect(channel.buffered).toBe(0);
  });

  test('overflow runs once when the bytes waiting behind the head pass the limit; room returns once the reader catches up', async () => {
    const channel = new SseChannel(10);
    let overflows = 0;
    channel.owner = { channelOverflowed: () => overflows++, channelDetached: () => undefined };
    channel.push(event(1, 8)); // the head: being written, not waiting
    channel.push(event(2, 5));
    expect(channel.waitForRoom()).toBeUndefined(); // 5 waiting, half the limit is 5
    channel.push(event(3, 5));
    expect(overflows).toBe(0); // 10 waiting: not more than the limit
    const room = channel.waitForRoom();
    expect(room).toBeInstanceOf(Promise);
    channel.push(event(4, 1));
    expect(overflows).toBe(1);
    channel.push(event(5, 50));
    expect(overflows).toBe(1);
    let roomy = false;
    void room!.then(() => (roomy = true));
    await channel.next(); // head 2 now: 5 + 1 + 50 wait
    await Promise.resolve();
    expect(roomy).toBe(false);
    await channel.next();
    await channel.next();
    await channel.next(); // only event 5 left, at the head: nothing waits
    await Promise.resolve();
    expect(roomy).toBe(true);
  });

  test('any sequence of pushes, reads, clears and clears behind the head matches an array model', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), bytes: fc.integer({ min: 1, max: 40 }) }),
      fc.constant({ kind: 'read' as const }),
      fc.constant({ kind: 'clear' as const }),
      fc.constant({ kind: 'clearBehindHead' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const channel = new SseChannel();
        const model: SseEvent[] = [];
        let n = 0;
        for (const o of ops) {
          if (o.kind === 'push') {
            const e = event(n++, o.bytes);
            channel.push(e);
            model.push(e);
          } else if (o.kind === 'clear') {
            channel.clear();
            model.length = 0;
          } else if (o.kind === 'clearBehindHead') {
            expect(channel.clearBehindHead()).toBe(model[1]);
            model.length = Math.min(model.length, 1);
          } else if (model.length > 0) {
            expect(await channel.next()).toEqual({ value: model.shift(), done: false });
          }
          expect(channel.peek()).toBe(model[0]);
          expect(channel.buffered).toBe(model.reduce((sum, e) => sum + e.data!.length, 0));
        }
        channel.end();
        const rest: SseEvent[] = [];
        for await (const e of channel) rest.push(e);
        expect(rest).toEqual(model);
      }),
    );
  });
});
