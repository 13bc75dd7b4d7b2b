/**
 * A session's retained streams: added in index order, removed in any order (eviction skips running streams), found
 * by index and walked oldest first. Checked against a Map as the model over random sequences.
 */
import fc from 'fast-check';
import { OutboundStream } from '../../lib/session/outbound-stream.js';
import { RetainedStreams } from '../../lib/session/retained-streams.js';

const SETTINGS = { cacheLimit: 4, cacheByteLimit: 1 << 16, maxBufferedBytes: 1 << 16, sseRetry: 1000, eventStore: undefined, onStoreError: () => undefined };

function stream(index: number): OutboundStream {
  return new OutboundStream(index, `abc.${index}`, `s/abc.${index}`, SETTINGS);
}

describe('RetainedStreams', () => {
  test('finds each stream by index, oldest first, and forgets removed ones', () => {
    const streams = new RetainedStreams();
    const made = [1, 2, 3, 5, 8].map(stream);
    for (const s of made) streams.add(s);
    streams.remove(made[2]); // index 3, from the middle
    expect(streams.size).toBe(4);
    expect([...streams.values()].map((s) => s.index)).toEqual([1, 2, 5, 8]);
    expect(streams.get(8)).toBe(made[4]);
    expect(streams.get(1)).toBe(made[0]);
    for (const missing of [0, 3, 4, 6, 9, 1000]) expect(streams.get(missing)).toBeUndefined();
    expect(streams.oldest()).toBe(made[0]);
    streams.remove(made[2]); // not held any more: nothing changes
    expect(streams.size).toBe(4);
  });

  test('a stream that was never added (the standalone stream) is left alone by remove', () => {
    const streams = new RetainedStreams();
    const held = stream(1);
    streams.add(held);
    streams.remove(stream(0));
    expect([...streams.values()]).toEqual([held]);
  });

  test('removing the stream just yielded while walking goes on with the next one', () => {
    const streams = new RetainedStreams();
    for (const index of [1, 2, 3, 4]) streams.add(stream(index));
    const seen: number[] = [];
    for (const s of streams.values()) {
      seen.push(s.index);
      if (s.index % 2 === 1) streams.remove(s);
    }
    expect(seen).toEqual([1, 2, 3, 4]);
    expect([...streams.values()].map((s) => s.index)).toEqual([2, 4]);
  });

  test('matches a Map of index to stream over random adds and removals', () => {
    const operation = fc.oneof(
      fc.record({ add: fc.integer({ min: 1, max: 3 }) }), // skip 0-2 indices, as a session's other streams would
      fc.record({ remove: fc.nat() }), // the n-th held stream, modulo how many are held
      fc.record({ removeOldest: fc.constant(true) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 200 }), (operations) => {
        const streams = new RetainedStreams();
        const model = new Map<number, OutboundStream>();
        let next = 1;
        for (const op of operations) {
          if ('add' in op) {
            next += op.add;
            const s = stream(next);
            streams.add(s);
            model.set(next, s);
          } else if ('remove' in op) {
            if (model.size === 0) continue;
            const victim = [...model.values()][op.remove % model.size];
            streams.remove(victim);
            model.delete(victim.index);
          } else {
            const oldest = streams.oldest();
            expect(oldest).toBe(model.values().next().value);
            if (oldest) {
              streams.remove(oldest);
              model.delete(oldest.index);
            }
          }
        }
        expect(streams.size).toBe(model.size);
        expect([...streams.values()]).toEqual([...model.values()]);
        for (let index = 0; index <= next + 1; index++) expect(streams.get(index)).toBe(model.get(index));
      }),
    );
  });
});
